// What this server's HTTP/1.1 responses add to Node's ServerResponse (the transport's Http1Response,
// transport/http1-connection.ts), as the modules that write and finish responses use it: hooks run
// by the response's one 'close' listener, and header lines serialized once for many responses. An
// HTTP/2 compatibility response has neither and gets the plain ServerResponse way.
import type { ServerResponse } from 'node:http';
import type { Hook } from './hook-slots.ts';

/** Header lines validated and serialized once (preset-headers.ts's PresetHeaders). */
export interface PresetLines {
  /** `Name: value\r\n` for each header. */
  readonly lines: string;
  /** The value of header `name` (any case), if it is one of them. */
  value(name: string): string | undefined;
}

/** Marks the responses that have the extras: true on their prototype, so no response carries a field for it. */
export const RESPONSE_EXTRAS = Symbol('fairway.responseExtras');

export interface ResponseExtras {
  readonly [RESPONSE_EXTRAS]: true;
  /** Runs `hook(response, arg)` when the response closes, as a 'close' listener added now would. */
  onClose<A>(hook: Hook<ServerResponse, A>, arg: A): void;
  /** Sends `preset`'s lines right after the status line. */
  addHeaderLines(preset: PresetLines): void;
}

/** `res` with the extras, or undefined for a response without them. */
export function responseExtras(res: ServerResponse): (ServerResponse & ResponseExtras) | undefined {
  return (res as Partial<ResponseExtras>)[RESPONSE_EXTRAS] === true ? (res as ServerResponse & ResponseExtras) : undefined;
}
