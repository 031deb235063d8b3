// What a resource endpoint sends back: the object or list itself (JSON, YAML or protobuf), or one of
// the meta/v1 conversions kubectl asks for (Table, PartialObjectMetadata, PartialObjectMetadataList).
// Plain JSON of a stored object reuses its cached text, and protobuf its cached message
// (api/protobuf/), so a GET costs one write and a LIST encodes no item again.
import type { FlowcontrolObject, KubeObject, ListMeta } from '../../engine/resources/types.ts';
import type { ListResult } from '../../engine/store/store-types.ts';
import { negotiateOutput, OBJECT_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE, tableConversions, type NegotiatedMediaType } from '../content-negotiation.ts';
import { encodeList, encodeObject } from '../protobuf/objects.ts';
import { ApiError } from '../errors.ts';
import { parseIncludeObject, toTable, type FlowcontrolKind } from '../table.ts';
import type { RequestContext } from '../http-context.ts';
import { sendObject, wantsPretty, type Representation } from './respond.ts';

export interface OutputContext {
  kind: FlowcontrolKind;
  listKind: string;
  apiVersion: string;
  metaGroup: string;
  apiDomain?: string;
  nowMs: () => number;
}

export interface Output extends Representation {
  negotiated: NegotiatedMediaType;
  /** Set when a meta/v1 conversion was asked for. */
  conversion?: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
}

/** The response representation for this request; 406 when the Accept header allows none. */
export function negotiate(context: RequestContext, metaGroup: string, options: { conversions: boolean; watch?: boolean }): Output {
  const negotiated = negotiateOutput(context.req.headers.accept, {
    conversions: options.conversions ? tableConversions(metaGroup) : [],
    allowsWatchStream: options.watch ?? false,
    mediaTypes: OBJECT_MEDIA_TYPES,
  });
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  const pretty = negotiated.pretty || wantsPretty(context.url, context.req.headers['user-agent']);
  const conversion = negotiated.target?.kind as Output['conversion'];
  return { mediaType: negotiated.mediaType, pretty, negotiated, ...(conversion !== undefined ? { conversion } : {}) };
}

const jsonBodies = new WeakMap<object, Buffer>();

/**
 * The UTF-8 JSON of a stored (frozen, shared) object, encoded once per object version: a GET
 * writes these bytes as they are, and a LIST concatenates them without encoding anything again.
 */
export function storedJsonBytes(object: KubeObject): Buffer {
  let bytes = jsonBodies.get(object);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(object), 'utf8');
    if (Object.isFrozen(object)) jsonBodies.set(object, bytes);
  }
  return bytes;
}

const NEWLINE = Buffer.from('\n');
const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}\n');

/** Writes a complete response whose body is already bytes. */
function sendBytes(context: RequestContext, statusCode: number, parts: readonly Buffer[], contentType: string): void {
  const { res } = context;
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  res.statusCode = statusCode;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

function includeObject(context: RequestContext) {
  const parsed = parseIncludeObject(context.url.searchParams.get('includeObject') ?? undefined);
  if (!parsed.ok) throw new ApiError(parsed.status);
  return parsed.includeObject;
}

/** The body for one object in the chosen representation. */
export function objectBody(context: RequestContext, out: OutputContext, output: Output, object: KubeObject): unknown {
  if (output.conversion === 'Table') {
    return toTable(out.kind, [object as FlowcontrolObject], {
      nowMs: out.nowMs(),
      includeObject: includeObject(context),
      listMeta: { resourceVersion: object.metadata?.resourceVersion ?? '' },
      ...(out.apiDomain !== undefined ? { apiDomain: out.apiDomain } : {}),
    });
  }
  if (output.conversion === 'PartialObjectMetadata' || output.conversion === 'PartialObjectMetadataList') {
    return { kind: 'PartialObjectMetadata', apiVersion: `${out.metaGroup}/v1`, metadata: object.metadata ?? {} };
  }
  return object;
}

export function sendStoredObject(context: RequestContext, out: OutputContext, output: Output, statusCode: number, object: KubeObject): void {
  if (output.conversion === undefined && output.mediaType === 'application/json' && !output.pretty) {
    sendBytes(context, statusCode, [storedJsonBytes(object), NEWLINE], output.negotiated.contentType);
    return;
  }
  if (output.conversion === undefined && output.mediaType === PROTOBUF_MEDIA_TYPE) {
    sendBytes(context, statusCode, [encodeObject(object)], output.negotiated.contentType);
    return;
  }
  sendObject(context.res, statusCode, objectBody(context, out, output, object), output, output.negotiated.contentType);
}

function listMeta(list: Pick<ListResult, 'resourceVersion' | 'continue' | 'remainingItemCount'>): ListMeta {
  const meta: ListMeta = { resourceVersion: list.resourceVersion };
  if (list.continue !== undefined) meta.continue = list.continue;
  if (list.remainingItemCount !== undefined) meta.remainingItemCount = list.remainingItemCount;
  return meta;
}

export function sendList(context: RequestContext, out: OutputContext, output: Output, list: ListResult): void {
  const metadata = listMeta(list);
  if (output.conversion === 'Table') {
    const table = toTable(out.kind, list.items as readonly FlowcontrolObject[], {
      nowMs: out.nowMs(),
      includeObject: includeObject(context),
      listMeta: metadata,
      ...(out.apiDomain !== undefined ? { apiDomain: out.apiDomain } : {}),
    });
    sendObject(context.res, 200, table, output, output.negotiated.contentType);
    return;
  }
  if (output.conversion !== undefined) {
    const items = list.items.map((item) => ({ kind: 'PartialObjectMetadata', apiVersion: `${out.metaGroup}/v1`, metadata: item.metadata ?? {} }));
    sendObject(context.res, 200, { kind: 'PartialObjectMetadataList', apiVersion: `${out.metaGroup}/v1`, metadata, items }, output, output.negotiated.contentType);
    return;
  }
  if (output.mediaType === PROTOBUF_MEDIA_TYPE) {
    sendBytes(context, 200, [encodeList(out.listKind, out.apiVersion, metadata, list.items)], output.negotiated.contentType);
    return;
  }
  if (output.mediaType === 'application/json' && !output.pretty) {
    const head = `{"kind":${JSON.stringify(out.listKind)},"apiVersion":${JSON.stringify(out.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
    const parts: Buffer[] = [Buffer.from(head, 'utf8')];
    list.items.forEach((item, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(storedJsonBytes(item));
    });
    parts.push(LIST_END);
    sendBytes(context, 200, parts, output.negotiated.contentType);
    return;
  }
  sendObject(context.res, 200, { kind: out.listKind, apiVersion: out.apiVersion, metadata, items: list.items }, output, output.negotiated.contentType);
}
