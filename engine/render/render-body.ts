// A response body of stored objects in any representation but compact plain JSON (which the
// watch cache's per-object bytes give directly): pretty JSON, YAML, protobuf, a meta/v1 Table,
// partial object metadata, for one object or a list. One pure function, run by the execution
// plane (workers/render-stages.ts): on the main thread over the cache's objects, or on a worker over
// the same objects rebuilt from their codec bytes (workers/stored-objects.ts), which gives the same
// bytes.
import type { FlowcontrolObject, KubeObject, ListMeta } from '../resources/types.ts';
import { encodeList } from '../protobuf/objects.ts';
import { encode, PROTOBUF_MEDIA_TYPE, type SerializerMediaType } from './serializer.ts';
import type { FlowcontrolKind } from '../resources/types.ts';
import { toTable, type IncludeObject } from './table.ts';

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
