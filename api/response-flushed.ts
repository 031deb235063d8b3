// When a response is really done. `res.end(body)` returns at once: Node keeps whatever the socket
// did not take in user space and writes it as the client reads. A handler that "returned" may
// therefore still be sending megabytes to a slow reader. kube-apiserver's handlers block in Write
// until the kernel has taken the body, so its APF seats and its shutdown drain cover the sending;
// callers that hold seats or count in-flight requests wait for this promise to do the same.
import type { ServerResponse } from 'node:http';

/**
 * Resolves once an ended response has been handed completely to the socket ('finish'), or the
 * connection is gone ('close'). A response nobody ended resolves at once: whoever ends it later
 * is not waited for.
 */
export function responseFlushed(res: ServerResponse): Promise<void> {
  if (!res.writableEnded || res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      resolve();
    };
    res.on('finish', done);
    res.on('close', done);
  });
}
