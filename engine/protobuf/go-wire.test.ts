// The wire as gogo reads it, on the inputs where protobufjs's reader differed: unknown fields of
// deeply nested groups (a plain Error, so a 500, before), varints of more than 10 bytes, and
// lengths that run past a nested message's end into its parent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeMessage } from './codec.ts';
import { decodeBody } from './objects.ts';
import { MESSAGE_PREFIX } from './go-types.ts';

const FLOW_SCHEMA = `${MESSAGE_PREFIX.flowcontrol}FlowSchema`;
/** An unknown field 99 of wire type 3: its start-group tag. */
const START_99 = [0x9b, 0x06];
const END_99 = [0x9c, 0x06];

const outcome = (bytes: number[]): string => {
  try {
    return JSON.stringify(decodeMessage(FLOW_SCHEMA, new Uint8Array(bytes)));
  } catch (error) {
    return `${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
};

test('an unknown field of groups nested 100,000 deep is skipped, as gogo skips it (no stack, no 500)', () => {
  const depth = 100_000;
  const inner = new Array<number[]>(depth - 1).fill([0x0b]).flat();
  const closing = new Array<number[]>(depth - 1).fill([0x0c]).flat();
  assert.is(outcome([...START_99, ...inner, ...closing, ...END_99, 0x0a, 0x00]), '{"metadata":{}}');
  // Left open, the groups run to the end of the message.
  assert.is(outcome([...START_99, ...inner]), 'ProtobufError: unexpected EOF');
});

test('an end-group with no group open, and wire types 6 and 7, are gogo’s errors', () => {
  assert.is(outcome([0x0c]), 'ProtobufError: proto: FlowSchema: wiretype end group for non-group');
  assert.is(outcome([...START_99, 0x0c, 0x0c]), 'ProtobufError: proto: FlowSchema: wiretype end group for non-group');
  // Only a map entry skips a field without looking at its wire type first.
  assert.is(outcome([0x0a, 0x03, 0x5a, 0x01, 0x1c]), 'ProtobufError: proto: unexpected end of group');
  assert.is(outcome([0x9e, 0x06]), 'ProtobufError: proto: illegal wireType 6');
  assert.is(outcome([...START_99, 0x0f]), 'ProtobufError: proto: illegal wireType 7');
  assert.is(outcome([0x00]), 'ProtobufError: proto: FlowSchema: illegal tag 0 (wire type 0)');
});

test('a varint stops at 10 bytes: an 11th is an integer overflow, a 10-byte one is read', () => {
  const ten = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
  assert.is(outcome([0x98, 0x06, ...ten.slice(0, 9), 0x81, 0x00]), 'ProtobufError: proto: integer overflow');
  assert.is(outcome([0x98, 0x06, ...ten]), '{}');
  // A tag of 11 bytes.
  assert.is(outcome([0x8a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), 'ProtobufError: proto: integer overflow');
  // A length with the top bit set is negative to Go.
  assert.is(outcome([0x0a, ...ten]), 'ProtobufError: proto: negative length found during unmarshaling');
  assert.is(outcome([0x9a, 0x06, ...ten]), 'ProtobufError: proto: negative length found during unmarshaling');
});

test('nothing is read past a nested message’s end, even when the parent has the bytes', () => {
  // metadata (3 bytes): name (field 1) announces 5 bytes, which only the parent's tail holds.
  const body = [0x0a, 0x03, 0x0a, 0x05, 0x61, 0x62, 0x63, 0x64, 0x65];
  assert.is(outcome(body), 'ProtobufError: unexpected EOF');
  // An unknown fixed64 in metadata that runs past its end.
  assert.is(outcome([0x0a, 0x03, 0x99, 0x06, 0x00, 0, 0, 0, 0, 0, 0, 0]), 'ProtobufError: unexpected EOF');
});

test('a body of deep groups is a decode error with the envelope’s kind, never a thrown Error', () => {
  const depth = 5_000;
  const raw = [...START_99, ...new Array<number>(depth).fill(0x0b)];
  const typeMeta = [0x12, 0x0a, ...Buffer.from('FlowSchema')];
  const body = new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, typeMeta.length, ...typeMeta, 0x12, ...varint(raw.length), ...raw]);
  assert.is(raw.length, 5_002);
  const decoded = decodeBody(body, 'FlowSchema');
  assert.equal(decoded.ok ? 'decoded' : decoded.error, 'unexpected EOF');
});

test('managedFields[].fieldsV1 nested deeper than a JSON body may be is refused before it is parsed', () => {
  const json = `${'{"f:a":'.repeat(300)}{}${'}'.repeat(300)}`;
  const fieldsV1 = [0x0a, ...varint(json.length), ...Buffer.from(json)];
  const entry = [0x3a, ...varint(fieldsV1.length), ...fieldsV1];
  const metadata = [0x8a, 0x01, ...varint(entry.length), ...entry];
  assert.is(
    outcome([0x0a, ...varint(metadata.length), ...metadata]),
    'ProtobufError: managedFields[].fieldsV1 nests objects and lists more than 256 levels deep',
  );
});

function varint(n: number): number[] {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return out;
}

test.run();
