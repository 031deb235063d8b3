// What a resource endpoint sends back: the object or list itself (JSON, YAML or protobuf), or one of
// the meta/v1 conversions kubectl asks for (Table, PartialObjectMetadata, PartialObjectMetadataList).
// Plain JSON reuses each object's cached bytes (the watch cache keeps them), so a GET costs one
// write and a LIST copies bytes; encoding many objects, and every other representation (protobuf
// included, which reuses each object's cached message when rendered on the main thread), is work for
// the execution plane (workers/), which keeps small work on the main thread and sends large work to
// a worker. Large bodies are streamed in chunks (api/request/response-body.ts). Each function resolves when
// the body has been handed to the response, so the request keeps its APF seats until then.
import type { FlowcontrolObject, KubeObject, ListMeta } from '../../engine/resources/types.ts';
import { newStoredForm, objectJsonBytes, objectJsonLine, storedFormOf } from '../../engine/store/cached-object.ts';
import { goJsonText } from '../../engine/store/go-json.ts';
import { BoundedCache } from '../../engine/bounded-cache.ts';
import type { ListResult, StoredForm } from '../../engine/store/store-types.ts';
import type { Executor } from '../../workers/executor.ts';
import { negotiateOutput, OBJECT_MEDIA_TYPES, tableConversions, type NegotiatedMediaType } from '../request/content-negotiation.ts';
import { PROTOBUF_MEDIA_TYPE, type Representation } from '../../engine/render/serializer.ts';
import { ApiError } from '../../engine/status/errors.ts';
import { ageJson, parseIncludeObject, tableFrame, tableOrder, type IncludeObject } from '../../engine/render/table.ts';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import type { RequestContext } from '../request/http-context.ts';
import { type BodyParts, sendBody, sendBytes } from '../request/response-body.ts';
import type { RenderSpec } from '../../engine/render/render-body.ts';
import { renderWork } from '../../workers/render-stages.ts';
import { type AgedTableRow, cacheJson, type KeptItems, sameForms, tableRowSplit } from './encoded-items.ts';
import { listBodyParts } from '../../engine/protobuf/objects.ts';
import { yamlListFrame } from '../../engine/store/yaml-text.ts';
import { wantsPretty } from '../request/respond.ts';

export interface OutputContext {
  kind: FlowcontrolKind;
  listKind: string;
  apiVersion: string;
  metaGroup: string;
  apiDomain?: string | undefined;
  nowMs: () => number;
  /** Where encoding work runs (the routing executor of the execution plane, or inline). */
  executor: Executor;
  /** Each object's YAML as a list item and its protobuf message, kept (encoded-items.ts); absent: such LISTs are rendered whole. */
  yamlItems?: KeptItems | undefined;
  protobufItems?: KeptItems | undefined;
  tableRows?: Record<IncludeObject, KeptItems> | undefined;
  /** The kept Table rows with their Ages in place; absent: rows are sent in three parts. */
  agedTableRow?: AgedTableRow | undefined;
}

export interface Output extends Representation {
  negotiated: NegotiatedMediaType;
  /** Set when a meta/v1 conversion was asked for. */
  conversion?: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList' | undefined;
}

// Accept headers repeat (every kubectl, every client-go informer sends one of a few): each is parsed
// once per kind of endpoint, and the answer keeps the two Outputs it gives (pretty or not), so a
// request that repeats one allocates nothing here. Bounded, as the header comes from the client.
const NEGOTIATIONS_PER_VARIANT = 256;

interface Negotiation {
  readonly result: ReturnType<typeof negotiateOutput>;
  /** The Output without and with `pretty`, made when first needed. */
  readonly outputs: [Output | undefined, Output | undefined];
}

/** By endpoint variant (conversions × watch), then meta group, then Accept header. */
const negotiations: Map<string, BoundedCache<string, Negotiation>>[] = [new Map(), new Map(), new Map(), new Map()];

// The last answer of each variant, by meta group and Accept header: consecutive requests mostly
// repeat both, and comparing the header costs less than hashing it (a new string per request) for
// two map lookups. In arrays, one slot per variant, so a miss allocates nothing.
const lastGroups: (string | undefined)[] = [undefined, undefined, undefined, undefined];
const lastAccepts: (string | undefined)[] = [undefined, undefined, undefined, undefined];
const lastNegotiations: (Negotiation | undefined)[] = [undefined, undefined, undefined, undefined];

function negotiationFor(accept: string | undefined, metaGroup: string, conversions: boolean, watch: boolean): Negotiation {
  const variant = (conversions ? 1 : 0) + (watch ? 2 : 0);
  const key = accept ?? '\u0000';
  if (lastAccepts[variant] === key && lastGroups[variant] === metaGroup) return lastNegotiations[variant]!;
  const byGroup = negotiations[variant]!;
  let byAccept = byGroup.get(metaGroup);
  if (byAccept === undefined) byGroup.set(metaGroup, (byAccept = new BoundedCache(NEGOTIATIONS_PER_VARIANT)));
  let negotiation = byAccept.peek(key);
  if (negotiation === undefined) {
    const result = negotiateOutput(accept, {
      conversions: conversions ? tableConversions(metaGroup) : [],
      allowsWatchStream: watch,
      mediaTypes: OBJECT_MEDIA_TYPES,
    });
    negotiation = { result, outputs: [undefined, undefined] };
    byAccept.set(key, negotiation);
  }
  lastGroups[variant] = metaGroup;
  lastAccepts[variant] = key;
  lastNegotiations[variant] = negotiation;
  return negotiation;
}

/** The response representation for this request; 406 when the Accept header allows none. Shared: never modify it. */
export function negotiate(context: RequestContext, metaGroup: string, options: { conversions: boolean; watch?: boolean }): Output {
  const negotiation = negotiationFor(context.req.headers.accept, metaGroup, options.conversions, options.watch ?? false);
  const negotiated = negotiation.result;
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  const pretty = negotiated.pretty || wantsPretty(context.query, context.req.headers['user-agent']);
  const slot = pretty ? 1 : 0;
  let output = negotiation.outputs[slot];
  if (output === undefined) {
    const conversion = negotiated.target?.kind as Output['conversion'];
    output = { mediaType: negotiated.mediaType, pretty, negotiated, conversion };
    negotiation.outputs[slot] = output;
  }
  return output;
}

/** The stored form of an object the store returned (or one made now, for an object it did not). */
function formOf(object: KubeObject): StoredForm {
  return storedFormOf(object) ?? newStoredForm(object, Number(object.metadata?.resourceVersion ?? 0));
}

const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}\n');

function includeObject(context: RequestContext) {
  const parsed = parseIncludeObject(context.query.get('includeObject') ?? undefined);
  if (!parsed.ok) throw new ApiError(parsed.status);
  return parsed.includeObject;
}

/** The render spec of `output` for this request (a list when `listMeta` is given). */
function renderSpec(context: RequestContext, out: OutputContext, output: Output, listMeta?: ListMeta): RenderSpec {
  const conversion = output.conversion;
  const single = listMeta === undefined;
  return {
    ...(single ? {} : { list: { kind: out.listKind, apiVersion: out.apiVersion, metadata: listMeta } }),
    conversion,
    ...(conversion === 'Table'
      ? {
          table: {
            kind: out.kind,
            nowMs: out.nowMs(),
            includeObject: includeObject(context),
            apiDomain: out.apiDomain,
          },
        }
      : {}),
    metaGroup: out.metaGroup,
    mediaType: output.mediaType,
    pretty: output.pretty,
  };
}

function isPlainJson(output: Output): boolean {
  return output.conversion === undefined && output.mediaType === 'application/json' && !output.pretty;
}

/** Sends one stored object; synchronous when its JSON is cached (the common GET). */
export function sendStoredObject(
  context: RequestContext,
  out: OutputContext,
  output: Output,
  statusCode: number,
  object: KubeObject,
): undefined | Promise<unknown> {
  const form = formOf(object);
  const contentType = output.negotiated.contentType;
  if (!isPlainJson(output)) return renderAndSend(context, out.executor, [form], renderSpec(context, out, output), statusCode, contentType);
  if (form.jsonBytes !== undefined) return sendBytes(context.res, context.priorityLevelUid, statusCode, contentType, objectJsonLine(form));
  return cacheJson([form], out.executor).then(() => sendBytes(context.res, context.priorityLevelUid, statusCode, contentType, objectJsonLine(form)));
}

async function renderAndSend(
  context: RequestContext,
  executor: Executor,
  forms: readonly StoredForm[],
  spec: RenderSpec,
  statusCode: number,
  contentType: string,
): Promise<unknown> {
  const body = await executor.execute<Buffer>(renderWork(forms, spec));
  return sendBytes(context.res, context.priorityLevelUid, statusCode, contentType, body);
}

function listMeta(list: Pick<ListResult, 'resourceVersion' | 'continue' | 'remainingItemCount'>): ListMeta {
  const meta: ListMeta = { resourceVersion: list.resourceVersion };
  if (list.continue !== undefined) meta.continue = list.continue;
  if (list.remainingItemCount !== undefined) meta.remainingItemCount = list.remainingItemCount;
  return meta;
}

export function sendList(context: RequestContext, out: OutputContext, output: Output, list: ListResult): Promise<unknown> {
  return sendForms(context, out, output, list.forms, listMeta(list));
}

/**
 * A list body. Plain JSON is the cached item bytes between a head and a tail, streamed; any other
 * representation is rendered by the execution plane, then streamed.
 */
async function sendForms(context: RequestContext, out: OutputContext, output: Output, forms: readonly StoredForm[], metadata: ListMeta): Promise<unknown> {
  const contentType = output.negotiated.contentType;
  if (output.mediaType === 'application/yaml' && output.conversion === undefined && forms.length > 0 && out.yamlItems !== undefined) {
    // Each object's kept YAML item between the list's head and tail: what the whole list's YAML would be (engine/store/yaml-text.ts).
    const items = await out.yamlItems.of(forms, out.executor);
    const frame = yamlListFrame({ apiVersion: out.apiVersion, kind: out.listKind, metadata });
    const parts = new FramedParts(Buffer.from(frame.head, 'utf8'), items, Buffer.from(frame.tail, 'utf8'));
    return sendBody(context.res, context.priorityLevelUid, 200, contentType, parts, parts.byteLength);
  }
  if (output.conversion === 'Table' && output.mediaType === 'application/json' && !output.pretty && forms.length > 0 && out.tableRows !== undefined) {
    // Each object's kept row with its Age at this instant, in the printer's order, inside the Table's frame.
    const kept = out.tableRows[includeObject(context)];
    const nowMs = out.nowMs();
    let rows = lastTableRows.get(kept);
    if (rows === undefined || !rows.serves(forms, nowMs)) {
      rows = new TableRows(await kept.of(forms, out.executor), forms, out.kind, nowMs, out.agedTableRow);
      if (rows.reusable) lastTableRows.set(kept, rows);
    }
    const frame = tableFrame(out.kind, metadata, out.apiDomain);
    const body = new TableParts(Buffer.from(frame.head, 'utf8'), rows, Buffer.from(frame.tail, 'utf8'));
    return sendBody(context.res, context.priorityLevelUid, 200, contentType, body, body.byteLength);
  }
  if (output.mediaType === PROTOBUF_MEDIA_TYPE && output.conversion === undefined && out.protobufItems !== undefined) {
    // The list message around each object's kept message, as Go writes FooList.
    const messages = await out.protobufItems.of(forms, out.executor);
    const parts = listBodyParts(out.listKind, out.apiVersion, metadata, messages);
    const body = new FramedParts(parts[0]!, parts.slice(1, -1), parts.at(-1)!);
    return sendBody(context.res, context.priorityLevelUid, 200, contentType, body, body.byteLength);
  }
  if (!isPlainJson(output)) return renderAndSend(context, out.executor, forms, renderSpec(context, out, output, metadata), 200, contentType);
  await cacheJson(forms, out.executor);
  const head = Buffer.from(
    `{"kind":${goJsonText(out.listKind)},"apiVersion":${goJsonText(out.apiVersion)},"metadata":${goJsonText(metadata)},"items":[`,
    'utf8',
  );
  let byteLength = head.byteLength + LIST_END.byteLength + Math.max(0, forms.length - 1);
  for (let i = 0; i < forms.length; i++) byteLength += objectJsonBytes(forms[i]!).byteLength;
  return sendBody(context.res, context.priorityLevelUid, 200, contentType, new ListParts(head, forms), byteLength);
}

/**
 * A plain JSON list body as parts read in place: the head, each item's cached JSON with a comma
 * between two, the tail. No array of the parts is made: a LIST of thousands of objects streams over
 * many turns of the event loop, and arrays that live that long are copied by every young-generation
 * garbage collection meanwhile.
 */
/** A head, items back to back, a tail. */
class FramedParts implements BodyParts {
  readonly length: number;
  readonly byteLength: number;

  constructor(
    private readonly head: Uint8Array,
    private readonly items: readonly Uint8Array[],
    private readonly tail: Uint8Array,
  ) {
    this.length = items.length + 2;
    let byteLength = head.byteLength + tail.byteLength;
    for (const item of items) byteLength += item.byteLength;
    this.byteLength = byteLength;
  }

  at(index: number): Uint8Array | undefined {
    if (index === 0) return this.head;
    if (index === this.length - 1) return this.tail;
    return this.items[index - 1];
  }
}

/**
 * A Table's rows as sent: per row in the printer's order a comma (but before the first) and the
 * row with its Age at this instant. A row is its kept copy with that Age in place when it may be
 * kept (encoded-items.ts, agedTableRows), else three parts: the kept row up to its Age cell, the
 * Age, the rest. Parts are made as they are read: a body of thousands of rows streams over many
 * turns of the event loop, and holding its parts in an array would have every young-generation
 * garbage collection meanwhile copy it (as ListParts). The Ages are few distinct texts (objects
 * made together share one), worked out once each.
 */
class TableRows {
  readonly length: number;
  readonly byteLength: number;
  readonly #order: Uint32Array;
  /** Per row (in `rows`' order), which of `#ages` is its Age cell. */
  readonly #ageOf: Uint32Array;
  readonly #ages: Uint8Array[] = [];
  /** Per row (in `rows`' order), the row with its Age in place; undefined: some row has none, all are sent in three parts. */
  readonly #whole: Uint8Array[] | undefined;
  readonly #second: number;

  constructor(
    private readonly rows: readonly Uint8Array[],
    private readonly forms: readonly StoredForm[],
    kind: FlowcontrolKind,
    nowMs: number,
    aged: AgedTableRow | undefined,
  ) {
    this.#second = Math.floor(nowMs / 1000);
    const objects = forms.map((form) => form.object as FlowcontrolObject);
    this.#order = Uint32Array.from(tableOrder(kind, objects));
    this.#ageOf = new Uint32Array(rows.length);
    // An Age depends only on the creation time: worked out once per distinct creation time.
    const byCreation = new Map<string | undefined, number>();
    const byText = new Map<string, number>();
    const texts: string[] = [];
    let whole: Uint8Array[] | undefined = aged === undefined ? undefined : new Array(rows.length);
    let byteLength = Math.max(0, rows.length - 1);
    for (let i = 0; i < rows.length; i++) {
      const created = objects[i]!.metadata?.creationTimestamp;
      let at = byCreation.get(created);
      if (at === undefined) {
        const text = ageJson(objects[i]!, nowMs);
        at = byText.get(text);
        if (at === undefined) {
          at = this.#ages.push(Buffer.from(text, 'utf8')) - 1;
          texts.push(text);
          byText.set(text, at);
        }
        byCreation.set(created, at);
      }
      this.#ageOf[i] = at;
      // The row's kept bytes carry a 4-byte prefix (where the Age goes) that is not sent.
      byteLength += rows[i]!.byteLength - 4 + this.#ages[at]!.byteLength;
      if (whole !== undefined) {
        const row = aged!(rows[i]!, texts[at]!);
        if (row === undefined) whole = undefined;
        else whole[i] = row;
      }
    }
    this.#whole = whole;
    this.byteLength = byteLength;
    this.length = (whole === undefined ? 4 : 2) * rows.length - 1;
  }

  /** Whole rows only: the next LIST of the same versions within the same second sends these again. */
  get reusable(): boolean {
    return this.#whole !== undefined;
  }

  /**
   * Whether these are the rows of `forms` at `nowMs`: the same versions (the watch cache's own
   * objects, compared by reference) and the same second, so the same Ages (kubectl's ages have
   * whole seconds). A kubectl get repeated against an unchanged list skips the rows' work.
   */
  serves(forms: readonly StoredForm[], nowMs: number): boolean {
    return Math.floor(nowMs / 1000) === this.#second && sameForms(this.forms, forms);
  }

  /** Part `index` of the rows (from 0; the first row has no comma). */
  at(index: number): Uint8Array | undefined {
    const whole = this.#whole;
    if (whole !== undefined) {
      // Row k is at 2k, its comma (none before row 0) at 2k − 1.
      return (index & 1) === 1 ? COMMA : whole[this.#order[index >> 1]!];
    }
    // Row k's parts are at 4k − 1 (its comma; none before row 0) to 4k + 2.
    const k = (index + 1) >> 2;
    const part = (index + 1) & 3;
    if (part === 0) return COMMA;
    const i = this.#order[k]!;
    if (part === 2) return this.#ages[this.#ageOf[i]!];
    const row = this.rows[i]!;
    const split = tableRowSplit(row);
    return part === 1 ? row.subarray(4, split) : row.subarray(split);
  }
}

/** Per kind and includeObject form (its KeptItems), the Table rows last sent whole: see TableRows.serves. */
const lastTableRows = new WeakMap<KeptItems, TableRows>();

/** A Table body: the frame's head, the rows, the frame's tail. */
class TableParts implements BodyParts {
  readonly length: number;
  readonly byteLength: number;

  constructor(
    private readonly head: Uint8Array,
    private readonly rows: TableRows,
    private readonly tail: Uint8Array,
  ) {
    this.length = rows.length + 2;
    this.byteLength = head.byteLength + rows.byteLength + tail.byteLength;
  }

  at(index: number): Uint8Array | undefined {
    if (index === 0) return this.head;
    if (index === this.length - 1) return this.tail;
    if (index < 0 || index >= this.length) return undefined;
    return this.rows.at(index - 1);
  }
}

class ListParts implements BodyParts {
  readonly length: number;

  constructor(
    private readonly head: Uint8Array,
    private readonly forms: readonly StoredForm[],
  ) {
    this.length = forms.length === 0 ? 2 : 2 * forms.length + 1;
  }

  at(index: number): Uint8Array | undefined {
    if (index === 0) return this.head;
    if (index === this.length - 1) return LIST_END;
    if (index < 0 || index >= this.length) return undefined;
    // A version replaced while the body streams has let its JSON go (releaseEncodings): made again, the same bytes.
    return index % 2 === 1 ? objectJsonBytes(this.forms[(index - 1) >> 1]!) : COMMA;
  }
}
