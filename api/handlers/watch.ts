// A watch over HTTP: status 200, a chunked body, one JSON event per line (or, for protobuf, one
// length-prefixed WatchEvent frame), flushed as it happens.
// Problems found before the stream starts (bad options, bad selectors) are ordinary HTTP errors;
// once it has started, a problem is one ERROR event and the end of the stream (410 Expired among
// them, which tells informers to relist). The stream ends cleanly on timeoutSeconds (or after the
// server's own random long-running timeout), when the client goes away, and at shutdown. A client
// that stops reading is cut off by the store (bounded buffer) and then by the handler (the socket).
import { randomInt } from 'node:crypto';
import type { FlowcontrolObject, KubeObject } from '../../engine/resources/types.ts';
import type { ResourceStore, WatchOptions, Watcher } from '../../engine/store/store-types.ts';
import type { WatchEvent } from '../../engine/store/watch-event.ts';
import type { RequestContext } from '../http-context.ts';
import { toTable, parseIncludeObject } from '../table.ts';
import { ApiError, badRequest } from '../errors.ts';
import { checkResourceVersion, QueryReader } from './query.ts';
import { PROTOBUF_MEDIA_TYPE } from '../content-negotiation.ts';
import { encodeObject, watchFrame } from '../protobuf/objects.ts';
import type { Output, OutputContext } from './resource-output.ts';

/** kube-apiserver's --min-request-timeout default: watches without timeoutSeconds last 1–2× this. */
export const MIN_REQUEST_TIMEOUT_MS = 1_800_000;

/**
 * How often a watch whose client stopped reading checks whether the store has cut it off. The
 * store drops a watcher that falls `watcherBufferSize` events behind, but the HTTP response would
 * stay open as long as the client's socket does; once the store has let go, so does the handler.
 */
export const STALLED_WATCH_CHECK_MS = 2_000;

export interface WatchDeps {
  store: ResourceStore;
  out: OutputContext;
  /** A watch was closed because its client stopped reading (apiserver_terminated_watchers_total). */
  onTerminated?: () => void;
}

/**
 * Waits until the socket takes more, the client goes away, or the store has cut the watcher off
 * while the socket stayed full: then the response is destroyed (resolves `false`).
 */
function drained(res: RequestContext['res'], watcher: Watcher): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const done = (flowing: boolean) => {
      clearInterval(check);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(flowing);
    };
    const onDrain = () => done(true);
    const check = setInterval(() => {
      if (!watcher.stopped) return;
      res.destroy();
      done(false);
    }, STALLED_WATCH_CHECK_MS);
    res.on('drain', onDrain);
    res.on('close', onDrain);
  });
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

type Encoder = (event: WatchEvent) => string | Buffer;

const json: Encoder = (event) => `${event.json()}\n`;
/** Kubernetes' protobuf watch frame: the event's object in its own envelope, inside WatchEvent. */
const protobuf: Encoder = (event) => watchFrame(event.type, encodeObject(event.object));

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
      json: (event) => `${JSON.stringify({ type: event.type, object: partialMetadata(event, metaGroup) })}\n`,
      protobuf: (event) => watchFrame(event.type, encodeObject(partialMetadata(event, metaGroup))),
    };
    partialEncoders.set(metaGroup, pair);
  }
  return protobufOutput ? pair.protobuf : pair.json;
}

function encoders(context: RequestContext, output: Output, out: OutputContext): { first: Encoder; rest: Encoder } {
  const isProtobuf = output.mediaType === PROTOBUF_MEDIA_TYPE;
  if (output.conversion === 'PartialObjectMetadata' || output.conversion === 'PartialObjectMetadataList') {
    const partial = partialEncoder(out.metaGroup, isProtobuf);
    return { first: partial, rest: partial };
  }
  if (isProtobuf) return { first: protobuf, rest: protobuf };
  if (output.conversion !== 'Table') return { first: json, rest: json };
  const parsed = parseIncludeObject(context.url.searchParams.get('includeObject') ?? undefined);
  if (!parsed.ok) throw new ApiError(parsed.status);
  const table = (noHeaders: boolean): Encoder => (event) => {
    if (event.type === 'ERROR') return json(event);
    const object = event.object as KubeObject;
    const rows = event.type === 'BOOKMARK' ? [] : [object as FlowcontrolObject];
    const value = toTable(out.kind, rows, {
      nowMs: out.nowMs(),
      includeObject: parsed.includeObject,
      listMeta: { resourceVersion: object.metadata?.resourceVersion ?? '' },
      noHeaders,
      ...(out.apiDomain !== undefined ? { apiDomain: out.apiDomain } : {}),
    });
    return `${JSON.stringify({ type: event.type, object: value })}\n`;
  };
  // Encodings are cached per event and encoder, so both must be stable functions per watch kind.
  return { first: table(false), rest: table(true) };
}

const PENDING = Symbol('pending');

/** Serves one watch until it ends. */
export async function serveWatch(context: RequestContext, deps: WatchDeps, output: Output, options: WatchOptions): Promise<void> {
  const { first, rest } = encoders(context, output, deps.out);
  const watcher: Watcher = await deps.store.watch(options);
  const { res } = context;
  const stop = () => watcher.stop();
  context.signal.addEventListener('abort', stop, { once: true });
  res.on('close', stop);
  try {
    res.statusCode = 200;
    res.setHeader('Content-Type', output.mediaType === PROTOBUF_MEDIA_TYPE ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : 'application/json');
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
    let initialized = false;
    let encode = first;
    for (;;) {
      const next = watcher.next();
      if (!initialized) {
        // Initial events come back already resolved; the first time the watcher has to wait,
        // the initial state has been written (APF releases a watch's seats then).
        const raced = await Promise.race([next, Promise.resolve(PENDING)]);
        if (raced === PENDING) {
          initialized = true;
          context.markWatchInitialized();
        }
      }
      const item = await next;
      if (item.done === true) break;
      const event = item.value;
      const line = event.encode(encode);
      encode = rest;
      if (res.destroyed || res.writableEnded) break;
      if (!res.write(line) && !(await drained(res, watcher))) {
        deps.onTerminated?.();
        break;
      }
      if (event.type === 'ERROR') break;
    }
  } finally {
    watcher.stop();
    context.signal.removeEventListener('abort', stop);
    res.off('close', stop);
    context.markWatchInitialized();
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
