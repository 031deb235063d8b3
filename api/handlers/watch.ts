// A watch over HTTP: status 200, a chunked body, one JSON event per line, flushed as it happens.
// Problems found before the stream starts (bad options, bad selectors) are ordinary HTTP errors;
// once it has started, a problem is one ERROR event and the end of the stream (410 Expired among
// them, which tells informers to relist). The stream ends cleanly on timeoutSeconds (or after the
// server's own random long-running timeout), when the client goes away, and at shutdown.
import { randomInt } from 'node:crypto';
import type { FlowcontrolObject, KubeObject } from '../../engine/resources/types.ts';
import type { ResourceStore, WatchOptions, Watcher } from '../../engine/store/store-types.ts';
import type { WatchEvent } from '../../engine/store/watch-event.ts';
import type { RequestContext } from '../http-context.ts';
import { toTable, parseIncludeObject } from '../table.ts';
import { ApiError, badRequest } from '../errors.ts';
import { checkResourceVersion, QueryReader } from './query.ts';
import type { Output, OutputContext } from './resource-output.ts';

/** kube-apiserver's --min-request-timeout default: watches without timeoutSeconds last 1–2× this. */
export const MIN_REQUEST_TIMEOUT_MS = 1_800_000;

export interface WatchDeps {
  store: ResourceStore;
  out: OutputContext;
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
  const timeoutSeconds = query.int('timeoutSeconds');
  options.timeoutMs = timeoutSeconds !== undefined ? Math.max(0, timeoutSeconds) * 1000 : minRequestTimeoutMs + randomInt(minRequestTimeoutMs);
  if (query.string('continue')) throw new ApiError(badRequest('continue is not supported for watch'));
  return options;
}

type Encoder = (event: WatchEvent) => string;

function encoders(context: RequestContext, output: Output, out: OutputContext): { first: Encoder; rest: Encoder } {
  const json: Encoder = (event) => event.json();
  if (output.conversion !== 'Table') return { first: json, rest: json };
  const parsed = parseIncludeObject(context.url.searchParams.get('includeObject') ?? undefined);
  if (!parsed.ok) throw new ApiError(parsed.status);
  const table = (noHeaders: boolean): Encoder => (event) => {
    if (event.type === 'ERROR') return event.json();
    const object = event.object as KubeObject;
    const rows = event.type === 'BOOKMARK' ? [] : [object as FlowcontrolObject];
    const value = toTable(out.kind, rows, {
      nowMs: out.nowMs(),
      includeObject: parsed.includeObject,
      listMeta: { resourceVersion: object.metadata?.resourceVersion ?? '' },
      noHeaders,
      ...(out.apiDomain !== undefined ? { apiDomain: out.apiDomain } : {}),
    });
    return JSON.stringify({ type: event.type, object: value });
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
    res.setHeader('Content-Type', 'application/json');
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
      const line = `${event.encode(encode)}\n`;
      encode = rest;
      if (res.destroyed || res.writableEnded) break;
      if (!res.write(line)) await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
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
