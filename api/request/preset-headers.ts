// Headers a filter adds to many responses with the same values (APF's FlowSchema and priority
// level UIDs on every response), validated and serialized once. Node's setHeader validates the
// name and the value, lower-cases the name and stores the pair in a dictionary on every call, and
// the head is then built from that dictionary: for two headers on every request that was a
// measurable share of a small GET. An HTTP/1.1 response (Http1Response) takes the serialized lines
// as they are; an HTTP/2 response, whose head is a HEADERS frame rather than text, gets them
// through setHeader.
import { validateHeaderName, validateHeaderValue, type ServerResponse } from 'node:http';
import { responseExtras, type PresetLines } from './response-extras.ts';

export class PresetHeaders implements PresetLines {
  /** `Name: value\r\n` for each pair, in order. */
  readonly lines: string;

  /** Throws, as setHeader would, for a name or value that may not be sent. */
  constructor(readonly pairs: readonly (readonly [name: string, value: string])[]) {
    let lines = '';
    for (const [name, value] of pairs) {
      validateHeaderName(name);
      validateHeaderValue(name, value);
      lines += `${name}: ${value}\r\n`;
    }
    this.lines = lines;
  }

  value(name: string): string | undefined {
    for (const [key, value] of this.pairs) if (key.length === name.length && key.toLowerCase() === name.toLowerCase()) return value;
    return undefined;
  }
}

/** Adds `headers` to a response whose head is not sent yet. */
export function addPresetHeaders(res: ServerResponse, headers: PresetHeaders): void {
  const extras = responseExtras(res);
  if (extras !== undefined) {
    extras.addHeaderLines(headers);
    return;
  }
  for (const [name, value] of headers.pairs) res.setHeader(name, value);
}
