// A detached watch writes what its watcher wakes it for where it is woken (no promise per event);
// what it writes must be exactly what the chunked path writes, ERROR events included.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { internalError } from '../../engine/store/store-errors.ts';
import type { ResourceStore } from '../../engine/store/store-types.ts';
import { errorEvent } from '../../engine/store/watch-event.ts';
import { CacheWatcher } from '../../engine/store/watcher.ts';
import { createInlineExecutor } from '../../workers/inline-executor.ts';
import type { RequestContext } from '../request/http-context.ts';
import type { Output, OutputContext } from './resource-output.ts';
import { serveWatch } from './watch.ts';

/** A response that takes every write and records it as text. */
function recordingResponse() {
  const body: string[] = [];
  const res = {
    statusCode: 200,
    headersSent: false,
    writableEnded: false,
    destroyed: false,
    setHeader: () => undefined,
    flushHeaders: () => void (res.headersSent = true),
    write: (chunk: Uint8Array) => body.push(Buffer.from(chunk).toString('utf8')) > 0,
    end: () => void (res.writableEnded = true),
    getHeader: () => undefined,
    on: () => res,
    once: () => res,
    off: () => res,
  };
  return { res, body };
}

test("a store failure's ERROR event reaches an open watch as the Status kube-apiserver sends (reason and code), then the stream ends", async () => {
  const watcher = new CacheWatcher({
    filter: undefined,
    bufferSize: 10,
    bookmarks: false,
    afterRevision: 0,
    owner: { watcherEnded: () => undefined, timeoutNear: () => undefined },
  });
  const { res, body } = recordingResponse();
  let ended = 0;
  const context = {
    res: res as unknown as ServerResponse,
    query: new URLSearchParams(),
    markWatchInitialized: () => undefined,
    detach: () => undefined,
    setAbortListener: () => undefined,
    end: () => void ended++,
  } as unknown as RequestContext;
  const out = { kind: 'PriorityLevelConfiguration', metaGroup: 'meta.k8s.io', nowMs: () => 0, executor: createInlineExecutor() } as unknown as OutputContext;
  const output = { mediaType: 'application/json', pretty: false } as unknown as Output;
  await serveWatch(context, { store: { watch: async () => watcher } as unknown as ResourceStore, out }, output, {});
  assert.equal(body, [], 'nothing to send yet: the watch waits, detached');
  watcher.finish(errorEvent(internalError('FW_ERR_STORE_CORRUPT', 'decoding a watch event failed')));
  assert.is(body.length, 1, 'written where the watcher woke the stream');
  const event = JSON.parse(body[0]!);
  assert.is(event.type, 'ERROR');
  assert.equal([event.object.kind, event.object.reason, event.object.code], ['Status', 'InternalError', 500]);
  assert.ok(res.writableEnded, 'the stream ends after the ERROR');
  assert.is(ended, 1, 'and the request with it');
});

test.run();
