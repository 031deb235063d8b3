// A response body of stored objects in any representation but compact plain JSON (which the
// watch cache's per-object bytes give directly): pretty JSON, YAML, protobuf, a meta/v1 Table,
// partial object metadata, for one object or a list. One pure function, run by the execution
// plane: on the main thread over the cache's objects, or on a worker over the same objects rebuilt
// from their codec bytes (workers/stored-objects.ts), which gives the same bytes.
import type { FlowcontrolObject, KubeObject, ListMeta } from '../../engine/resources/types.ts';
import type { StoredForm } from '../../engine/store/store-types.ts';
import type { Work } from '../../workers/executor.ts';
import { PROTOBUF_MEDIA_TYPE, type SerializerMediaType } from './content-negotiation.ts';
import { encodeList, objectMessage } from '../protobuf/objects.ts';
import { objectsOf } from '../../workers/stored-objects.ts';
import { packEncoded } from '../../workers/objects-json.ts';
import { tableRowParts, toTable, type FlowcontrolKind, type IncludeObject } from './table.ts';
import { encode } from './respond.ts';

export interface RenderSpec {
  /** A list with this head (apiVersion, kind, metadata); absent: one object. */
  readonly list?: { readonly kind: string; readonly apiVersion: string; readonly metadata: ListMeta };
  readonly conversion?: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList' | undefined;
  /** For a Table: the kind's columns, the instant Age is measured to, what each row carries. */
  readonly table?: { readonly kind: FlowcontrolKind; readonly nowMs: number; readonly includeObject: IncludeObject; readonly apiDomain?: string | undefined };
  /** The meta API group (`meta.k8s.io`) of PartialObjectMetadata. */
  readonly metaGroup: string;
  readonly mediaType: SerializerMediaType;
  readonly pretty: boolean;
}

/** Stage names by their cost: YAML and Tables cost more per byte than JSON, so they go to a worker sooner. */
export type RenderStage = 'render-json' | 'render-table' | 'render-yaml' | 'render-protobuf';

export function renderStageFor(spec: RenderSpec): RenderStage {
  if (spec.mediaType === 'application/yaml') return 'render-yaml';
  if (spec.mediaType === PROTOBUF_MEDIA_TYPE) return 'render-protobuf';
  return spec.conversion === 'Table' ? 'render-table' : 'render-json';
}

/** Work rendering `forms` as `spec` says; the routing executor sends it to a worker when it is big. */
export function renderWork(forms: readonly StoredForm[], spec: RenderSpec): Work {
  return { stage: renderStageFor(spec), payload: { objects: forms, spec } };
}

/** The body: the value kube-apiserver would encode, in the representation asked for. */
export function renderBody(objects: readonly KubeObject[], spec: RenderSpec): Buffer {
  const list = spec.list;
  // A protobuf list is its items' messages (cached per stored object on the main thread) after the
  // ListMeta, as Go writes FooList; encoding the list value whole gives the same bytes, slower.
  if (spec.mediaType === PROTOBUF_MEDIA_TYPE && list !== undefined && spec.conversion === undefined) {
    return encodeList(list.kind, list.apiVersion, list.metadata, objects);
  }
  const body = encode(bodyValue(objects, spec), spec);
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

function bodyValue(objects: readonly KubeObject[], spec: RenderSpec): unknown {
  const partialApiVersion = `${spec.metaGroup}/v1`;
  const partial = (object: KubeObject) => ({ kind: 'PartialObjectMetadata', apiVersion: partialApiVersion, metadata: object.metadata ?? {} });
  const list = spec.list;
  if (spec.conversion === 'Table') {
    const table = spec.table;
    if (table === undefined) throw new TypeError('a Table needs spec.table');
    return toTable(table.kind, objects as readonly FlowcontrolObject[], {
      nowMs: table.nowMs,
      includeObject: table.includeObject,
      listMeta: list !== undefined ? list.metadata : { resourceVersion: objects[0]?.metadata?.resourceVersion ?? '' },
      apiDomain: table.apiDomain,
    });
  }
  if (list === undefined) {
    const object = objects[0];
    if (objects.length !== 1 || object === undefined) throw new RangeError(`one object expected, got ${objects.length}`);
    return spec.conversion === undefined ? object : partial(object);
  }
  if (spec.conversion !== undefined)
    return { kind: 'PartialObjectMetadataList', apiVersion: partialApiVersion, metadata: list.metadata, items: objects.map(partial) };
  return { kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata, items: objects };
}

/** The stage that makes each stored object's protobuf message, for protobuf LISTs to keep (encoded-items.ts). */
export const ENCODE_PROTOBUF_ITEMS_STAGE = 'encode-protobuf-items';

export function encodeProtobufItems(payload: unknown): Buffer {
  return packEncoded(objectsOf(payload).map(objectMessage));
}

/** The stage that makes each stored object's Table row, cut where its Age goes (table.ts `tableRowParts`), for Table LISTs to keep. */
export const ENCODE_TABLE_ROWS_STAGE = 'encode-table-rows';

export interface TableRowsSpec {
  readonly kind: FlowcontrolKind;
  readonly includeObject: IncludeObject;
  readonly apiDomain?: string | undefined;
}

/** Per object: the byte length of the part before its Age (4 bytes, little-endian), then both parts. */
export function encodeTableRows(payload: unknown): Buffer {
  const spec = (payload as { table: TableRowsSpec }).table;
  return packEncoded(
    objectsOf(payload).map((object) => {
      const [before, after] = tableRowParts(spec.kind, object as FlowcontrolObject, spec.includeObject, spec.apiDomain);
      const beforeBytes = Buffer.byteLength(before, 'utf8');
      const out = Buffer.allocUnsafe(4 + beforeBytes + Buffer.byteLength(after, 'utf8'));
      out.writeUInt32LE(beforeBytes, 0);
      out.write(before, 4, 'utf8');
      out.write(after, 4 + beforeBytes, 'utf8');
      return out;
    }),
  );
}
