// When a response is really done. `res.end(body)` returns at once: Node keeps whatever the socket
// did not take in user space and writes it as the client reads. A handler that "returned" may
// therefore still be sending megabytes to a slow reader. kube-apiserver's handlers block in Write
// until the kernel has taken the body, so its APF seats and its shutdown drain cover the sending;
// callers that hold seats or count in-flight requests wait for this promise to do the same.
import type { ServerResponse } from 'node:http';
import { responseExtras } from './response-extras.ts';
import type { Hook } from './hook-slots.ts';

const FLUSHED = Symbol('fairway.responseFlushed');
type Tracked = ServerResponse & { [FLUSHED]?: Promise<void> };
const DONE = Promise.resolve();

/**
 * Resolves once an ended response has been handed completely to the socket, or the connection is
 * gone: a response emits 'close' after 'finish' (next tick) and when its connection is lost, so
 * 'close' covers both. A response nobody ended resolves at once: whoever ends it later is not
 * waited for. Every caller of one response shares one promise (the APF filter and the server both
 * wait for it).
 */
export function responseFlushed(res: ServerResponse): Promise<void> {
  if (flushedNow(res)) return DONE;
  const tracked = res as Tracked;
  let flushed = tracked[FLUSHED];
  if (flushed === undefined) {
    flushed = new Promise<void>((resolve) => res.on('close', resolve));
    tracked[FLUSHED] = flushed;
  }
  return flushed;
}

/** Whether responseFlushed would resolve at once: not ended by anyone yet, or already handed over or gone. */
function flushedNow(res: ServerResponse): boolean {
  return !res.writableEnded || res.writableFinished || res.destroyed;
}

/**
 * responseFlushed without a promise, for the per-request path: calls `listener(res, arg)` at once,
 * or from the response's 'close'. `listener` is one function shared by every response, which
 * finds its request's state in `arg`.
 */
export function whenFlushed<A>(res: ServerResponse, listener: Hook<ServerResponse, A>, arg: A): void {
  if (flushedNow(res)) {
    listener(res, arg);
    return;
  }
  const extras = responseExtras(res);
  // Run by the HTTP/1.1 response's own 'close' listener: no listener array per response.
  if (extras !== undefined) extras.onClose(listener, arg);
  // HTTP/2: a response emits 'close' once; `on` spares the wrapper `once` would allocate.
  else res.on('close', () => listener(res, arg));
}
