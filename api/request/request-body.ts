// What a body reader needs to know of how its request's body arrives: whether any of it is left
// unread, a `100 Continue` the client waits for (sent only when a reader starts, as Go does), and
// framing found broken mid-body (which fails the read). The HTTP/1.1 rules of the transport
// (transport/http1-connection.ts) mark a request with these; an HTTP/2 request never has them.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Emitted on a request (and kept on it) when its body's framing is broken. */
const framingError = Symbol('fairway.framingError');
/** On a request that asked for `100 Continue` and has not been sent it yet: its response. */
const continuePending = Symbol('fairway.continuePending');

type FramedRequest = IncomingMessage & { [framingError]?: Error; [continuePending]?: ServerResponse | undefined };

function expectsBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The request has no body left unread. */
export function requestBodyRead(req: IncomingMessage): boolean {
  return req.complete || !expectsBody(req);
}

/** The client sent `Expect: 100-continue`; `res` sends the `100 Continue` when a reader starts. */
export function awaitContinue(req: IncomingMessage, res: ServerResponse): void {
  (req as FramedRequest)[continuePending] = res;
}

/** The client still waits for `100 Continue` before it sends the body. */
export function waitsForContinue(req: IncomingMessage): boolean {
  return (req as FramedRequest)[continuePending] !== undefined;
}

/** Called by body readers before the first read: sends a `100 Continue` the client waits for. */
export function beginBodyRead(req: IncomingMessage): void {
  const framed = req as FramedRequest;
  const res = framed[continuePending];
  if (res === undefined) return;
  framed[continuePending] = undefined;
  if (!res.headersSent && !res.writableEnded) res.writeContinue();
}

/** The request's body framing is broken: kept on the request, and told to whoever listens (onBodyFramingError). */
export function failBodyFraming(req: IncomingMessage, error: Error): void {
  const framed = req as FramedRequest;
  framed[framingError] = error;
  framed.emit(framingError, error);
}

/**
 * Calls `listener` when the request's body framing turns out broken (now, if it already has);
 * returns the function that stops listening. Body readers use it to fail the read.
 */
export function onBodyFramingError(req: IncomingMessage, listener: (error: Error) => void): () => void {
  const framed = req as FramedRequest;
  const existing = framed[framingError];
  if (existing !== undefined) {
    listener(existing);
    return () => undefined;
  }
  framed.once(framingError, listener);
  return () => framed.off(framingError, listener);
}
