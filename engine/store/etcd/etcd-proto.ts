// etcd's messages, encoded and decoded by protobufjs from etcd's own .proto files (./proto/, as
// the etcd3 npm package shipped them). The decoded messages are used as protobufjs returns them:
// camelCase field names, bytes as Buffers that are views into the received message (copied only
// by whoever keeps them), int64 fields as Long (read them with `int64`). Not through toObject or
// @grpc/proto-loader's options: turning every int64 into a decimal string, as the etcd3 library
// asked for, showed as 8–10% of a create's CPU.
// The interfaces below declare the part of those messages the backend reads or writes.

import protobuf from 'protobufjs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** An int64 as protobufjs decodes it (a Long), or a number where we build the message. */
export type Int64 = number | { toNumber(): number };

export function int64(value: Int64): number {
  return typeof value === 'number' ? value : value.toNumber();
}

/** mvccpb.KeyValue. */
export interface EtcdKeyValue {
  readonly key: Buffer;
  readonly createRevision: Int64;
  readonly modRevision: Int64;
  readonly version: Int64;
  /** protobufjs leaves an empty value as an empty array: see `bytesOf`. */
  readonly value: Uint8Array;
}

/** mvccpb.Event; decodeWatchResponse makes sure `kv` is there. */
export interface EtcdEvent {
  readonly type: number;
  readonly kv: EtcdKeyValue;
  readonly prevKv?: EtcdKeyValue | null;
}

export interface EtcdResponseHeader {
  readonly revision: Int64;
}

/**
 * The part of etcdserverpb.Compare the backend sends: a key's mod revision or version against a
 * number. The number is set even when 0 (absent key): it selects the compare's target_union.
 */
export type EtcdCompare =
  | { readonly result: number; readonly target: number; readonly key: Buffer; readonly modRevision: number }
  | { readonly result: number; readonly target: number; readonly key: Buffer; readonly version: number };

/** The part of etcdserverpb.TxnRequest the backend sends: compares, then puts, deletes, reads. */
export interface EtcdTxnRequest {
  readonly compare: readonly EtcdCompare[];
  readonly success: readonly EtcdRequestOp[];
  readonly failure: readonly EtcdRequestOp[];
}

export type EtcdRequestOp =
  | { readonly requestPut: EtcdPutRequest }
  | { readonly requestDeleteRange: EtcdDeleteRangeRequest }
  | { readonly requestRange: EtcdRangeRequest };

export interface EtcdTxnResponse {
  readonly header?: EtcdResponseHeader | null;
  readonly succeeded: boolean;
  readonly responses: readonly { readonly responseRange?: { readonly kvs: readonly EtcdKeyValue[] } | null }[];
}

/** etcdserverpb.RangeRequest: `rangeEnd` absent reads one key; `revision` absent (0) reads the newest. */
export interface EtcdRangeRequest {
  readonly key: Buffer;
  readonly rangeEnd?: Buffer;
  /** At most this many keys (0 or absent: no limit); `more` says whether there were others. */
  readonly limit?: number;
  readonly revision?: number;
  readonly keysOnly?: boolean;
}

export interface EtcdRangeResponse {
  readonly header?: EtcdResponseHeader | null;
  readonly kvs: readonly EtcdKeyValue[];
  readonly more: boolean;
  readonly count: Int64;
}

export interface EtcdPutRequest {
  readonly key: Buffer;
  readonly value: Uint8Array;
}

/** `rangeEnd` absent deletes one key. */
export interface EtcdDeleteRangeRequest {
  readonly key: Buffer;
  readonly rangeEnd?: Buffer;
}

export interface EtcdCompactionRequest {
  readonly revision: number;
  /** Wait until the compaction is applied to the backend database too. */
  readonly physical: boolean;
}

/** Put, DeleteRange and Compaction responses: the backend reads only their header. */
export interface EtcdHeaderResponse {
  readonly header?: EtcdResponseHeader | null;
}

export interface EtcdWatchCreateRequest {
  readonly key: Buffer;
  readonly rangeEnd: Buffer;
  readonly startRevision: number;
  readonly progressNotify: boolean;
  readonly prevKv: boolean;
}

export interface EtcdWatchResponse {
  readonly header?: EtcdResponseHeader | null;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly compactRevision: Int64;
  readonly cancelReason: string;
  readonly events: readonly EtcdEvent[];
}

/** The directory of etcd's .proto files. */
export const ETCD_PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));

const root = new protobuf.Root().loadSync(join(ETCD_PROTO_DIR, 'rpc.proto'));
const WatchRequest = root.lookupType('etcdserverpb.WatchRequest');
const WatchResponse = root.lookupType('etcdserverpb.WatchResponse');

/** A value of one of etcd's enums; throws if the .proto files are not the ones expected. */
function enumValue(name: string, key: string): number {
  const value = root.lookupEnum(name).values[key];
  if (value === undefined) throw new Error(`etcd's ${name} has no value ${key} in ${ETCD_PROTO_DIR}`);
  return value;
}

export const COMPARE_MOD = enumValue('etcdserverpb.Compare.CompareTarget', 'Mod');
export const COMPARE_VERSION = enumValue('etcdserverpb.Compare.CompareTarget', 'Version');
export const COMPARE_EQUAL = enumValue('etcdserverpb.Compare.CompareResult', 'Equal');
export const EVENT_DELETE = enumValue('mvccpb.Event.EventType', 'Delete');

const EMPTY = Buffer.alloc(0);

/** Bytes as a Buffer: protobufjs gives an absent (empty) bytes field as a plain empty array. */
export function bytesOf(bytes: Uint8Array): Uint8Array {
  return bytes.length === 0 ? EMPTY : bytes;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A message type's encoder: the message as a Buffer, ready for the transport. */
function encoder<T>(typeName: string): (message: T) => Buffer {
  const type = root.lookupType(`etcdserverpb.${typeName}`);
  return (message) => asBuffer(type.encode(message as object).finish());
}

/** A message type's decoder: protobufjs's message, read through the interface declared above. */
function decoder<T>(typeName: string): (message: Buffer) => T {
  const type = root.lookupType(`etcdserverpb.${typeName}`);
  return (message) => type.decode(message) as unknown as T;
}

export const encodeTxnRequest = encoder<EtcdTxnRequest>('TxnRequest');
export const decodeTxnResponse = decoder<EtcdTxnResponse>('TxnResponse');
export const encodeRangeRequest = encoder<EtcdRangeRequest>('RangeRequest');
export const decodeRangeResponse = decoder<EtcdRangeResponse>('RangeResponse');
export const encodePutRequest = encoder<EtcdPutRequest>('PutRequest');
export const decodePutResponse = decoder<EtcdHeaderResponse>('PutResponse');
export const encodeDeleteRangeRequest = encoder<EtcdDeleteRangeRequest>('DeleteRangeRequest');
export const decodeDeleteRangeResponse = decoder<EtcdHeaderResponse>('DeleteRangeResponse');
export const encodeCompactionRequest = encoder<EtcdCompactionRequest>('CompactionRequest');
export const decodeCompactionResponse = decoder<EtcdHeaderResponse>('CompactionResponse');

export function encodeWatchCreate(createRequest: EtcdWatchCreateRequest): Buffer {
  return asBuffer(WatchRequest.encode({ createRequest }).finish());
}

/** Throws for a message that is not a WatchResponse, or an event without its key-value. */
export function decodeWatchResponse(message: Buffer): EtcdWatchResponse {
  const response = WatchResponse.decode(message) as unknown as EtcdWatchResponse;
  for (const event of response.events) {
    if (event.kv == null) throw new Error('etcd sent a watch event without a key-value');
  }
  return response;
}

/** The header's revision: the store's revision when etcd answered. */
export function headerRevision(response: { readonly header?: EtcdResponseHeader | null }): number {
  return response.header == null ? 0 : int64(response.header.revision);
}
