// The protobuf wire read as gogo's generated Unmarshal methods (Kubernetes' generated.pb.go) read
// it, rather than with protobufjs's reader, which differs where a hostile body can reach: it skips
// groups by recursion and fails deep ones with a plain Error ("maximum nesting depth exceeded", a
// 500), takes any varint longer than 5 bytes as 10 without looking, and reads a nested message's
// fields up to the end of the whole buffer. gogo reads each message from its own slice (never past
// its end), stops a varint at 10 bytes ("integer overflow"), and skips unknown fields in a loop
// with a group depth counter, so no input nests anything on the stack. The errors are gogo's own.
import { ProtobufError } from './protobuf-error.ts';

export const UNEXPECTED_EOF = 'unexpected EOF';
const INTEGER_OVERFLOW = 'proto: integer overflow';
const NEGATIVE_LENGTH = 'proto: negative length found during unmarshaling';
const UNEXPECTED_END_OF_GROUP = 'proto: unexpected end of group';
const TWO_POW_32 = 0x1_0000_0000;
const MAX_INT64 = (1n << 63n) - 1n;

export class GoWireReader {
  pos = 0;
  /** The end of the message being read: gogo unmarshals each message from its own slice. */
  end: number;
  /** The last varint read, as Go's uint64: its low and high 32 bits. */
  lo = 0;
  hi = 0;

  constructor(readonly buf: Uint8Array) {
    this.end = buf.length;
  }

  /** A varint as gogo reads one: at most 10 bytes, bits past the 64th dropped. */
  varint(): void {
    let lo = 0;
    let hi = 0;
    for (let shift = 0; ; shift += 7) {
      if (shift >= 64) throw new ProtobufError(INTEGER_OVERFLOW);
      if (this.pos >= this.end) throw new ProtobufError(UNEXPECTED_EOF);
      const byte = this.buf[this.pos++]!;
      const bits = byte & 0x7f;
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (shift - 32);
      if (byte < 0x80) break;
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** The last varint as Go's uint64, for error texts. */
  uint64Text(): string {
    return ((BigInt(this.hi) << 32n) | BigInt(this.lo)).toString();
  }

  int32(): number {
    this.varint();
    return this.lo | 0;
  }

  /** Go's int64 (as precise as a number can be, as Long's toNumber was). */
  int64(): number {
    this.varint();
    return (this.hi | 0) * TWO_POW_32 + this.lo;
  }

  bool(): boolean {
    this.varint();
    return this.lo !== 0 || this.hi !== 0;
  }

  /**
   * Reads a length and returns where the bytes it announces end, checked as gogo checks a
   * length-delimited field: negative (or overflowing) is an invalid length, past `limit` an EOF.
   */
  lengthEnd(limit: number = this.end): number {
    this.varint();
    const end = addLength(this.pos, this.hi, this.lo);
    if (end > limit) throw new ProtobufError(UNEXPECTED_EOF);
    return end;
  }

  bytes(limit: number = this.end): Uint8Array {
    const end = this.lengthEnd(limit);
    const value = this.buf.subarray(this.pos, end);
    this.pos = end;
    return value;
  }

  /**
   * Skips the unknown field whose tag starts at `start`, as gogo's skipGenerated does: groups
   * (wire types 3 and 4) by a depth counter, so any depth costs no stack; a field that runs past the
   * message's end is an EOF.
   */
  skipField(start: number): void {
    const { end } = this;
    this.pos = start;
    let depth = 0;
    while (this.pos < end) {
      this.varint();
      const wireType = this.lo & 7;
      switch (wireType) {
        case 0:
          for (let shift = 0; ; shift += 7) {
            if (shift >= 64) throw new ProtobufError(INTEGER_OVERFLOW);
            if (this.pos >= end) throw new ProtobufError(UNEXPECTED_EOF);
            if (this.buf[this.pos++]! < 0x80) break;
          }
          break;
        case 1:
          this.pos += 8;
          break;
        case 2:
          this.varint();
          this.pos = addLength(this.pos, this.hi, this.lo, start);
          break;
        case 3:
          depth++;
          break;
        case 4:
          if (depth === 0) throw new ProtobufError(UNEXPECTED_END_OF_GROUP);
          depth--;
          break;
        case 5:
          this.pos += 4;
          break;
        default:
          throw new ProtobufError(`proto: illegal wireType ${wireType}`);
      }
      if (depth === 0) {
        if (this.pos > end) throw new ProtobufError(UNEXPECTED_EOF);
        return;
      }
    }
    throw new ProtobufError(UNEXPECTED_EOF);
  }
}

/**
 * `index + length` as Go computes it on an `int` relative to `base` (the slice's start): a length
 * with the top bit set, or a sum past MaxInt64, is negative there, so an invalid length.
 */
function addLength(index: number, hi: number, lo: number, base = 0): number {
  if (hi >= 0x8000_0000) throw new ProtobufError(NEGATIVE_LENGTH);
  if (hi >= 0x7fff_0000 && (BigInt(hi) << 32n) + BigInt(lo) + BigInt(index - base) > MAX_INT64) throw new ProtobufError(NEGATIVE_LENGTH);
  return index + hi * TWO_POW_32 + lo;
}
