// A watch over HTTP: status 200, a chunked body, one JSON event per line (or, for protobuf, one
// length-prefixed WatchEvent frame), flushed as it happens.
// Problems found before the stream starts (bad options, bad selectors) are ordinary HTTP errors;
// once it has started, a problem is one ERROR event and the end of the stream (410 Expired among
// them, which tells informers to relist). The stream ends cleanly on timeoutSeconds (or after the
// server's own random long-running timeout), when the client goes away, and at shutdown. A client
// that stops reading is cut off by the store (bounded buffer) and then by the handler (the socket).
import { randomInt } from 'node:crypto';
import type { FlowcontrolObject, KubeObject } from '../../engine/resources/types.ts';
import { goJsonText } from '../../engine/store/go-json.ts';
import type { ResourceStore, StoredForm, WatchOptions, Watcher } from '../../engine/store/store-types.ts';
import { WatchEvent } from '../../engine/store/watch-event.ts';
import type { StoreError } from '../../engine/store/store-errors.ts';
import { storeErrorStatus } from '../engine-errors.ts';
import type { RequestContext } from '../request/http-context.ts';
import { toTable, parseIncludeObject, type IncludeObject } from '../../engine/render/table.ts';
import { ApiError, badRequest } from '../../engine/status/errors.ts';
import { CHUNK_BYTES, ChunkedBody } from '../request/response-body.ts';
import { checkResourceVersion, type QueryReader } from './query.ts';
import { PROTOBUF_MEDIA_TYPE } from '../../engine/render/serializer.ts';
import { encodeObject, watchFrame } from '../../engine/protobuf/objects.ts';
import { cacheJson } from './encoded-items.ts';
import type { Output, OutputContext } from './resource-output.ts';
import { DEFAULT_POOL_THRESHOLDS } from '../../workers/pool-thresholds.ts';

/** kube-apiserver's --min-request-timeout default: watches without timeoutSeconds last 1–2× this. */
export const MIN_REQUEST_TIMEOUT_MS = 1_800_000;

export interface WatchDeps {
  store: ResourceStore;
  out: OutputContext;
  /** A watch was closed because its client stopped reading (apiserver_terminated_watchers_total). */
  onTerminated?: ((context: RequestContext) => void) | undefined;
}

/** Watch options from the query; `name` narrows the watch to one object (the /watch/<r>/<name> path form). */
export function parseWatchOptions(query: QueryReader, name: string, minRequestTimeoutMs: number): WatchOptions {
  const options: { -readonly [K in keyof WatchOptions]: WatchOptions[K] } = {};
  const resourceVersion = checkResourceVersion(query.string('resourceVersion'));
  if (resourceVersion !== undefined) options.resourceVersion = resourceVersion;
  const match = query.string('resourceVersionMatch');
  if (match !== undefined) options.resourceVersionMatch = match;
  const initial = query.bool('sendInitialEvents');
  if (initial !== undefined) options.sendInitialEvents = initial;
  const bookmarks = query.bool('allowWatchBookmarks');
  if (bookmarks !== undefined) options.allowWatchBookmarks = bookmarks;
  const labelSelector = query.string('labelSelector');
  if (labelSelector !== undefined) options.labelSelector = labelSelector;
  let fieldSelector = query.string('fieldSelector') ?? '';
  if (name !== '') fieldSelector = fieldSelector === '' ? `metadata.name=${name}` : `${fieldSelector},metadata.name=${name}`;
  if (fieldSelector !== '') options.fieldSelector = fieldSelector;
  // As kube-apiserver: absent or 0 means the server's random long-running timeout; a negative one
  // ends the watch at once.
  const timeoutSeconds = query.int('timeoutSeconds') ?? 0;
  options.timeoutMs = timeoutSeconds !== 0 ? Math.max(0, timeoutSeconds) * 1000 : minRequestTimeoutMs + randomInt(minRequestTimeoutMs);
  if (query.string('continue')) throw new ApiError(badRequest('continue is not supported for watch'));
  return options;
}

/** The store's ERROR event as the client gets it: the Status the API edge makes of the store's error. */
function statusEvent(error: StoreError): WatchEvent {
  return new WatchEvent('ERROR', storeErrorStatus(error));
}

/**
 * An event's line (JSON) or frame (protobuf) as byte ranges, computed once per event and encoder:
 * one buffer, except the plain JSON line, whose object part is the watch cache's own bytes.
 */
type Encoder = (event: WatchEvent) => readonly Uint8Array[];

const EVENT_END = Buffer.from('}\n');
const jsonLine: Encoder = (event) => [event.prefix, event.objectBytes(), EVENT_END];
/** Kubernetes' protobuf watch frame: the event's object in its own envelope, inside WatchEvent. */
const protobufFrame: Encoder = (event) => [watchFrame(event.type, encodeObject(event.object))];

/** The event's object as PartialObjectMetadata (an ERROR's Status stays as it is). */
function partialMetadata(event: WatchEvent, metaGroup: string): unknown {
  if (event.type === 'ERROR') return event.object;
  return { kind: 'PartialObjectMetadata', apiVersion: `${metaGroup}/v1`, metadata: (event.object as KubeObject).metadata ?? {} };
}

/** One encoder per meta group, so that event caches are shared between watches alike. */
const partialEncoders = new Map<string, { json: Encoder; protobuf: Encoder }>();

function partialEncoder(metaGroup: string, protobufOutput: boolean): Encoder {
  let pair = partialEncoders.get(metaGroup);
  if (pair === undefined) {
    pair = {
      json: (event) => [Buffer.from(`${goJsonText({ type: event.type, object: partialMetadata(event, metaGroup) })}\n`, 'utf8')],
      protobuf: (event) => [watchFrame(event.type, encodeObject(partialMetadata(event, metaGroup)))],
    };
    partialEncoders.set(metaGroup, pair);
  }
  return protobufOutput ? pair.protobuf : pair.json;
}

// Table encoders per (kind, includeObject, domain, headers): one function for every watch of that
// shape, so an event's encoding is computed once for all of them.
const tableEncoders = new Map<string, Encoder>();

function tableEncoder(out: OutputContext, includeObject: IncludeObject, noHeaders: boolean): Encoder {
  const key = `${out.kind}|${includeObject}|${out.apiDomain ?? ''}|${noHeaders}`;
  let encoder = tableEncoders.get(key);
  if (encoder === undefined) {
    encoder = (event) => {
      if (event.type === 'ERROR') return jsonLine(event);
      const object = event.object as KubeObject;
      const rows = event.type === 'BOOKMARK' ? [] : [object as FlowcontrolObject];
      const value = toTable(out.kind, rows, {
        nowMs: out.nowMs(),
        includeObject,
        listMeta: { resourceVersion: object.metadata?.resourceVersion ?? '' },
        noHeaders,
        apiDomain: out.apiDomain,
      });
      return [Buffer.from(`${goJsonText({ type: event.type, object: value })}\n`, 'utf8')];
    };
    tableEncoders.set(key, encoder);
  }
  return encoder;
}

function encoders(context: RequestContext, output: Output, out: OutputContext): { first: Encoder; rest: Encoder } {
  const isProtobuf = output.mediaType === PROTOBUF_MEDIA_TYPE;
  if (output.conversion === 'PartialObjectMetadata' || output.conversion === 'PartialObjectMetadataList') {
    const partial = partialEncoder(out.metaGroup, isProtobuf);
    return { first: partial, rest: partial };
  }
  if (isProtobuf) return { first: protobufFrame, rest: protobufFrame };
  if (output.conversion !== 'Table') return { first: jsonLine, rest: jsonLine };
  const parsed = parseIncludeObject(context.query.get('includeObject') ?? undefined);
  if (!parsed.ok) throw new ApiError(parsed.status);
  return { first: tableEncoder(out, parsed.includeObject, false), rest: tableEncoder(out, parsed.includeObject, true) };
}

/** Events written per turn of the event loop at most (their JSON is computed together, see cacheJson). */
const BATCH_EVENTS = 1_000;

/**
 * An object JSON the watch cache has not kept yet is encoded where a wake-up finds it needed when
 * it is smaller than this (the size from which the execution plane would send the work to a
 * worker); a larger one is encoded through the executor, off the main thread.
 */
const INLINE_JSON_MAX_CODEC_BYTES = DEFAULT_POOL_THRESHOLDS['encode-objects'] ?? 0;

/** The JSON line as one buffer, so a live event costs each watch one write (computed once per event). */
const jsonLineJoined: Encoder = (event) => [Buffer.concat(jsonLine(event))];

/** The bytes `encode` gives `event`, as one buffer shared by every watch alike. */
function lineOf(event: WatchEvent, encode: Encoder): Uint8Array {
  const parts = event.encode(encode === jsonLine ? jsonLineJoined : encode);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** Whether writing `event` now would encode a large object on the main thread. */
function needsExecutor(event: WatchEvent, encode: Encoder): boolean {
  const form = event.form;
  return encode === jsonLine && form !== undefined && form.jsonBytes === undefined && form.codecBytes.byteLength >= INLINE_JSON_MAX_CODEC_BYTES;
}

/**
 * Serves one watch. Resolves once its initial events are out (the request is then detached from
 * the filter chain: `context.detach()`) or when it ended before that; a detached watch goes on as a
 * WatchStream, held only by its watcher and its request, and ends the request when it is over.
 */
export async function serveWatch(context: RequestContext, deps: WatchDeps, output: Output, options: WatchOptions): Promise<void> {
  const { first, rest } = encoders(context, output, deps.out);
  const watcher: Watcher = await deps.store.watch(options);
  const { res } = context;
  const stream = new WatchStream(context, watcher, deps, first, rest);
  try {
    context.setAbortListener(stream);
    res.statusCode = 200;
    res.setHeader('Content-Type', output.mediaType === PROTOBUF_MEDIA_TYPE ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : 'application/json');
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
    await stream.pump(undefined, false);
  } catch (error) {
    stream.close();
    throw error;
  }
  if (stream.closed) return;
  // The first time the watcher has to wait, the initial state has been written: APF releases the
  // watch's seats, and the chain lets go of it.
  context.markWatchInitialized();
  context.detach();
  watcher.setConsumer(stream);
}

/**
 * An open watch between its events: its request, its watcher and which encoder comes next. A
 * wake-up writes what is ready straight away, one shared buffer per event and no promise, while
 * the stream takes it; the asynchronous `pump` takes over only for what cannot be done so: a full
 * stream to wait for, more than a chunk of bytes at once (a turn of the event loop between
 * chunks), or a large object to encode off the main thread.
 */
class WatchStream {
  closed = false;
  private pumping = false;

  constructor(
    private readonly context: RequestContext,
    private readonly watcher: Watcher,
    private readonly deps: WatchDeps,
    private encode: Encoder,
    private readonly rest: Encoder,
  ) {}

  /** The watcher has events, or ended. */
  watchReady(): void {
    if (this.pumping || this.closed) return;
    try {
      this.writeReady();
    } catch {
      this.endWatch();
    }
  }

  /** Client gone, deadline, shutdown. */
  requestAborted(): void {
    this.watcher.stop();
  }

  /** Writes the events ready now, synchronously, until the watcher has to wait or `pump` must take over. */
  private writeReady(): void {
    const { watcher } = this;
    const res = this.context.res;
    let written = 0;
    for (;;) {
      const taken = watcher.takeNext();
      if (taken === undefined) {
        if (watcher.stopped) this.endWatch();
        return;
      }
      if (needsExecutor(taken, this.encode)) {
        this.continueAsync(taken, false);
        return;
      }
      const event = taken.error === undefined ? taken : statusEvent(taken.error);
      const line = lineOf(event, this.encode);
      this.encode = this.rest;
      const flowing = res.write(line);
      if (event.type === 'ERROR') {
        this.endWatch();
        return;
      }
      written += line.byteLength;
      if (!flowing || written >= CHUNK_BYTES) {
        this.continueAsync(undefined, !flowing);
        return;
      }
    }
  }

  private continueAsync(carried: WatchEvent | undefined, full: boolean): void {
    this.pump(carried, full).then(
      () => {
        if (this.closed) this.context.end();
        else if (this.watcher.pending > 0 || this.watcher.stopped) this.watchReady();
      },
      () => {
        this.close();
        this.context.end();
      },
    );
  }

  private endWatch(): void {
    this.close();
    this.context.end();
  }

  /**
   * Writes what is ready in chunks, a turn of the event loop between them (`carried` first, after
   * the stream drained when it is `full`); returns when the watcher has to wait, or closes the
   * stream when it ended.
   */
  async pump(carried: WatchEvent | undefined, full: boolean): Promise<void> {
    this.pumping = true;
    try {
      const { watcher, deps } = this;
      // A client that stops reading keeps the socket full; once the store has cut its watcher off
      // (bounded buffer), the response goes too.
      const body = new ChunkedBody(this.context.res, this.context.priorityLevelUid, { abandonWhen: () => watcher.stopped });
      if (full && !(await body.drained())) {
        if (body.abandoned) deps.onTerminated?.(this.context);
        this.close();
        return;
      }
      for (;;) {
        const events = watcher.takeReady(BATCH_EVENTS);
        if (carried !== undefined) {
          events.unshift(carried);
          carried = undefined;
        }
        // Nothing ready: the watcher has ended (stopped, and everything taken) or waits.
        if (events.length === 0) {
          if (watcher.stopped) break;
          return;
        }
        if (this.encode === jsonLine) await cacheJson(formsWithoutJson(events), deps.out.executor);
        let ended = false;
        for (const taken of events) {
          const event = taken.error === undefined ? taken : statusEvent(taken.error);
          for (const part of event.encode(this.encode)) body.append(part);
          this.encode = this.rest;
          if (event.type === 'ERROR') {
            ended = true;
            break;
          }
          if (body.buffered >= CHUNK_BYTES && !(await body.flush())) {
            ended = true;
            break;
          }
        }
        if (!(await body.flush(true))) {
          if (body.abandoned) deps.onTerminated?.(this.context);
          break;
        }
        if (ended) break;
      }
      this.close();
    } finally {
      this.pumping = false;
    }
  }

  /** Stops the watcher and ends the response (the request's end comes after, from its owner). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const { context, watcher } = this;
    watcher.setConsumer(undefined);
    watcher.stop();
    context.setAbortListener(undefined);
    context.markWatchInitialized();
    const res = context.res;
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}

function formsWithoutJson(events: readonly WatchEvent[]): StoredForm[] {
  const forms: StoredForm[] = [];
  for (const event of events) if (event.form !== undefined && event.form.jsonBytes === undefined) forms.push(event.form);
  return forms;
}
