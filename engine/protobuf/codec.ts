// Kubernetes' generated protobuf messages, read and written as the Go marshallers do, for objects
// kept in their JSON form. protobufjs reads the .proto files of kubernetes/api and
// kubernetes/apimachinery (proto/README.md) and supplies the wire writer (go-wire.ts reads); the walk over
// fields is ours, because Go's rules are not protobuf's defaults and protobufjs has no hook for
// them: fields in tag order; non-pointer fields always written, even empty (go-types.ts lists the
// pointers); maps as repeated key/value entries sorted by key bytes, both always written; metav1.Time
// as seconds+nanos (an empty message for the zero time); FieldsV1 as its raw JSON bytes.
//
// Decoding gives the JSON form Fairway works on: a zero non-pointer scalar is left out (Go cannot
// tell it from an absent one either), a pointer scalar set to zero is kept, a message on the wire is
// an object even when empty, and unknown fields are skipped as Go's unmarshallers skip them.
import protobuf from 'protobufjs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { formatRfc3339Seconds, parseRfc3339, ZERO_TIME_SECONDS } from '../resources/rfc3339.ts';
import { compareGoStrings } from '../patch/field-set.ts';
import { FIELDS_V1_MESSAGE, GO_POINTER_FIELDS, TIME_MESSAGE } from './go-types.ts';
import { ownValue } from '../own-property.ts';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../nesting-depth.ts';
import { GoWireReader, UNEXPECTED_EOF } from './go-wire.ts';
import { ProtobufError } from './protobuf-error.ts';

const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));

/** The .proto files every message Fairway speaks is defined in (their imports come along). */
const PROTO_FILES = [
  'k8s.io/api/flowcontrol/v1/generated.proto',
  'k8s.io/api/authorization/v1/generated.proto',
  'k8s.io/api/authentication/v1/generated.proto',
  'k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto',
];

export { ProtobufError };

type ScalarType = 'string' | 'bool' | 'int32' | 'int64' | 'bytes';
const SCALAR_WIRE: Record<ScalarType, number> = { string: 2, bytes: 2, bool: 0, int32: 0, int64: 0 };

interface FieldPlan {
  readonly name: string;
  readonly id: number;
  readonly tag: number;
  readonly wireType: number;
  readonly repeated: boolean;
  readonly pointer: boolean;
  readonly scalar?: ScalarType;
  readonly message?: MessagePlan;
  /** For a map: the value's scalar type or message (keys are strings in every Kubernetes map). */
  readonly map?: { scalar?: ScalarType; message?: MessagePlan };
}

interface MessagePlan {
  readonly name: string;
  readonly special?: 'time' | 'fieldsV1' | undefined;
  fields: FieldPlan[];
  byId: Map<number, FieldPlan>;
}

let root: protobuf.Root | undefined;
const plans = new Map<string, MessagePlan>();

function loadRoot(): protobuf.Root {
  if (root === undefined) {
    const loaded = new protobuf.Root();
    loaded.resolvePath = (_origin, target) => join(PROTO_DIR, target);
    loaded.loadSync(PROTO_FILES, { keepCase: true });
    loaded.resolveAll();
    root = loaded;
  }
  return root;
}

function scalarOf(type: string, where: string): ScalarType {
  if (type === 'string' || type === 'bool' || type === 'int32' || type === 'int64' || type === 'bytes') return type;
  throw new Error(`protobuf field ${where} has type ${type}, which Fairway does not encode`);
}

/** The compiled plan of a message (built once, recursive types through the cache). */
export function messagePlan(fullName: string): MessagePlan {
  const cached = plans.get(fullName);
  if (cached !== undefined) return cached;
  const type = loadRoot().lookupType(fullName);
  const special = fullName === TIME_MESSAGE ? 'time' : fullName === FIELDS_V1_MESSAGE ? 'fieldsV1' : undefined;
  const plan: MessagePlan = { name: fullName, special, fields: [], byId: new Map() };
  plans.set(fullName, plan);
  const pointers = GO_POINTER_FIELDS.get(fullName);
  for (const field of [...type.fieldsArray].sort((a, b) => a.id - b.id)) {
    field.resolve();
    const where = `${fullName}.${field.name}`;
    const nested = field.resolvedType instanceof protobuf.Type ? messagePlan(field.resolvedType.fullName.replace(/^\./, '')) : undefined;
    let built: FieldPlan;
    if (field instanceof protobuf.MapField) {
      if (field.keyType !== 'string') throw new Error(`protobuf map ${where} has ${field.keyType} keys`);
      built = {
        name: field.name,
        id: field.id,
        tag: (field.id << 3) | 2,
        wireType: 2,
        repeated: false,
        pointer: true,
        map: nested !== undefined ? { message: nested } : { scalar: scalarOf(field.type, where) },
      };
    } else if (nested !== undefined) {
      built = {
        name: field.name,
        id: field.id,
        tag: (field.id << 3) | 2,
        wireType: 2,
        repeated: field.repeated,
        pointer: pointers?.has(field.name) ?? false,
        message: nested,
      };
    } else {
      const scalar = scalarOf(field.type, where);
      const wireType = SCALAR_WIRE[scalar];
      built = {
        name: field.name,
        id: field.id,
        tag: (field.id << 3) | wireType,
        wireType,
        repeated: field.repeated,
        pointer: pointers?.has(field.name) ?? false,
        scalar,
      };
    }
    plan.fields.push(built);
    plan.byId.set(built.id, built);
  }
  return plan;
}

// --- encoding ---------------------------------------------------------------------------------

function writeScalar(writer: protobuf.Writer, type: ScalarType, value: unknown, where: string): void {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw new ProtobufError(`${where}: expected a string`);
      writer.string(value);
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw new ProtobufError(`${where}: expected a boolean`);
      writer.bool(value);
      return;
    case 'int32':
      if (!Number.isInteger(value)) throw new ProtobufError(`${where}: expected an integer`);
      writer.int32(value as number);
      return;
    case 'int64':
      if (!Number.isInteger(value)) throw new ProtobufError(`${where}: expected an integer`);
      writer.int64(value as number);
      return;
    case 'bytes':
      if (!(value instanceof Uint8Array)) throw new ProtobufError(`${where}: expected bytes`);
      writer.bytes(value);
      return;
  }
}

const ZERO: Record<ScalarType, unknown> = { string: '', bool: false, int32: 0, int64: 0, bytes: new Uint8Array() };

function writeMessageBody(writer: protobuf.Writer, plan: MessagePlan, value: unknown): void {
  if (plan.special === 'time') {
    if (value === undefined || value === null) return;
    if (typeof value !== 'string') throw new ProtobufError(`${plan.name}: expected an RFC 3339 string`);
    const parsed = parseRfc3339(value);
    if (!parsed.ok) throw new ProtobufError(parsed.message);
    if (parsed.seconds === ZERO_TIME_SECONDS && parsed.nanos === 0) return;
    writer.uint32(8).int64(parsed.seconds).uint32(16).int32(parsed.nanos);
    return;
  }
  if (plan.special === 'fieldsV1') {
    if (value === undefined || value === null) return;
    writer.uint32(10).bytes(Buffer.from(JSON.stringify(value), 'utf8'));
    return;
  }
  if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) throw new ProtobufError(`${plan.name}: expected an object`);
  const record = (value ?? {}) as Record<string, unknown>;
  for (const field of plan.fields) {
    const item = ownValue(record, field.name);
    if (field.map !== undefined) {
      if (item === undefined || item === null) continue;
      writeMap(writer, field, item);
    } else if (field.repeated) {
      if (item === undefined || item === null) continue;
      if (!Array.isArray(item)) throw new ProtobufError(`${plan.name}.${field.name}: expected an array`);
      for (const element of item) writeField(writer, field, element);
    } else if (item === undefined || item === null) {
      if (!field.pointer) writeField(writer, field, field.message !== undefined ? undefined : ZERO[field.scalar!]);
    } else {
      writeField(writer, field, item);
    }
  }
}

function writeField(writer: protobuf.Writer, field: FieldPlan, value: unknown): void {
  writer.uint32(field.tag);
  if (field.message !== undefined) {
    writer.fork();
    writeMessageBody(writer, field.message, value);
    writer.ldelim();
  } else {
    writeScalar(writer, field.scalar!, value, field.name);
  }
}

function writeMap(writer: protobuf.Writer, field: FieldPlan, value: unknown): void {
  if (typeof value !== 'object' || Array.isArray(value)) throw new ProtobufError(`${field.name}: expected an object`);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort(compareGoStrings)) {
    writer.uint32(field.tag).fork().uint32(10).string(key);
    const entry = record[key];
    if (field.map!.message !== undefined) {
      writer.uint32(18).fork();
      writeMessageBody(writer, field.map!.message, entry);
      writer.ldelim();
    } else {
      writer.uint32((2 << 3) | SCALAR_WIRE[field.map!.scalar!]);
      writeScalar(writer, field.map!.scalar!, entry ?? ZERO[field.map!.scalar!], `${field.name}[${key}]`);
    }
    writer.ldelim();
  }
}

/** The message bytes of `value` (the JSON form) as Go's generated Marshal writes them. */
export function encodeMessage(messageName: string, value: unknown): Uint8Array {
  const writer = protobuf.Writer.create();
  writeMessageBody(writer, messagePlan(messageName), value);
  return writer.finish();
}

// --- decoding ---------------------------------------------------------------------------------
// The wire is read by go-wire.ts, as gogo's generated Unmarshal methods read it.

const utf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

function readScalar(reader: GoWireReader, type: ScalarType): unknown {
  switch (type) {
    case 'string':
      return utf8(reader.bytes());
    case 'bool':
      return reader.bool();
    case 'int32':
      return reader.int32();
    case 'int64':
      return reader.int64();
    case 'bytes':
      return Buffer.from(reader.bytes());
  }
}

const isZero = (value: unknown) => value === '' || value === 0 || value === false;

/** The message from the reader's position to its `end` (the message's own slice, in Go). */
function readMessage(reader: GoWireReader, plan: MessagePlan): unknown {
  const out: Record<string, unknown> = {};
  let maps: Map<FieldPlan, [string, unknown][]> | undefined;
  while (reader.pos < reader.end) {
    const start = reader.pos;
    reader.varint();
    const wireType = reader.lo & 7;
    // Go's int32(wire >> 3).
    const id = (reader.lo >>> 3) | (reader.hi << 29);
    if (wireType === 4) throw new ProtobufError(`proto: ${shortName(plan)}: wiretype end group for non-group`);
    if (id <= 0) throw new ProtobufError(`proto: ${shortName(plan)}: illegal tag ${id} (wire type ${reader.uint64Text()})`);
    const field = plan.byId.get(id);
    if (field === undefined) {
      reader.skipField(start);
      continue;
    }
    if (wireType !== field.wireType) throw new ProtobufError(`proto: wrong wireType = ${wireType} for field ${goFieldName(field.name)}`);
    if (field.map !== undefined) {
      const entry = readMapEntry(reader, field);
      maps ??= new Map();
      const entries = maps.get(field) ?? [];
      entries.push(entry);
      maps.set(field, entries);
      continue;
    }
    const value = field.message !== undefined ? readNested(reader, field.message) : readScalar(reader, field.scalar!);
    if (field.repeated) {
      const list = (out[field.name] as unknown[] | undefined) ?? [];
      list.push(value === undefined ? {} : value);
      out[field.name] = list;
    } else {
      out[field.name] = value;
    }
  }
  // Map keys come from the message: Object.fromEntries defines own properties, so no key (not even
  // `__proto__`) can reach a prototype.
  for (const [field, entries] of maps ?? []) out[field.name] = Object.fromEntries(entries);
  for (const field of plan.fields) {
    const value = out[field.name];
    if (value === undefined) continue;
    if ((field.scalar !== undefined && !field.pointer && !field.repeated && isZero(value)) || (field.message?.special === 'time' && value === TIME_ABSENT))
      delete out[field.name];
  }
  if (plan.special === 'fieldsV1') return fieldsV1Json(out.Raw as Buffer | undefined);
  return out;
}

const TIME_ABSENT = Symbol('zero time');

/** A length-delimited message field, read from its own slice as Go's Unmarshal reads it. */
function readNested(reader: GoWireReader, plan: MessagePlan): unknown {
  const outer = reader.end;
  const end = reader.lengthEnd();
  const empty = end === reader.pos;
  reader.end = end;
  const value = readMessage(reader, plan);
  reader.end = outer;
  reader.pos = end;
  if (plan.special !== 'time') return value;
  const { seconds = 0, nanos = 0 } = value as { seconds?: number; nanos?: number };
  if (empty) return TIME_ABSENT;
  const text = formatRfc3339Seconds(seconds);
  if (text === undefined || nanos < 0 || nanos > 999_999_999) throw new ProtobufError('Time.MarshalJSON: year outside of range [0,9999]');
  return text;
}

/**
 * One map entry as gogo's generated code reads it: key (field 1) and value (field 2) by field
 * number alone, their lengths checked against the enclosing message's end, not the entry's; other
 * fields skipped, and reading resumes at the entry's end.
 */
function readMapEntry(reader: GoWireReader, field: FieldPlan): [string, unknown] {
  const end = reader.lengthEnd();
  let key = '';
  let value: unknown = field.map!.message !== undefined ? {} : ZERO[field.map!.scalar!];
  while (reader.pos < end) {
    const start = reader.pos;
    reader.varint();
    const id = (reader.lo >>> 3) | (reader.hi << 29);
    if (id === 1) key = utf8(reader.bytes());
    else if (id === 2) value = field.map!.message !== undefined ? readNested(reader, field.map!.message) : readScalar(reader, field.map!.scalar!);
    else {
      reader.skipField(start);
      if (reader.pos > end) throw new ProtobufError(UNEXPECTED_EOF);
    }
  }
  reader.pos = end;
  return [key, value];
}

/** FieldsV1's raw JSON, refused when nested deeper than any request body may be (engine/nesting-depth.ts). */
function fieldsV1Json(raw: Buffer | undefined): unknown {
  if (raw === undefined) return undefined;
  const text = raw.toString('utf8');
  if (jsonNestingDepth(text) > MAX_NESTING_DEPTH)
    throw new ProtobufError(`managedFields[].fieldsV1 nests objects and lists more than ${MAX_NESTING_DEPTH} levels deep`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtobufError('invalid JSON in managedFields[].fieldsV1');
  }
}

/** gogo's error texts name a message by its Go type (metav1.Time unmarshals as a Timestamp). */
const shortName = (plan: MessagePlan) => (plan.special === 'time' ? 'Timestamp' : plan.name.slice(plan.name.lastIndexOf('.') + 1));
/** gogo's error texts name fields by their Go (exported) names. */
const goFieldName = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** The JSON form of a message's bytes; a ProtobufError (Go's wording) when they are malformed. */
export function decodeMessage(messageName: string, bytes: Uint8Array): Record<string, unknown> {
  return readMessage(new GoWireReader(bytes), messagePlan(messageName)) as Record<string, unknown>;
}
