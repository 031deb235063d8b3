// When a response is really done. `res.end(body)` returns at once: Node keeps whatever the socket
// did not take in user space and writes it as the client reads. A handler that "returned" may
// therefore still be sending megabytes to a slow reader. kube-apiserver's handlers block in Write
// until the kernel has taken the body, so its APF seats and its shutdown drain cover the sending;
// callers that hold seats or count in-flight requests wait for this promise to do the same.
import type { ServerResponse } from 'node:http';

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
  if (!res.writableEnded || res.writableFinished || res.destroyed) return DONE;
  const tracked = res as Tracked;
  let flushed = tracked[FLUSHED];
  if (flushed === undefined) {
    flushed = new Promise<void>((resolve) => res.on('close', resolve));
    tracked[FLUSHED] = flushed;
  }
  return flushed;
}
