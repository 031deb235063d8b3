// A response for filter unit tests: takes a status and one body through `end`, as the filters'
// `sendStatus` writes them, and records both.
import type { ServerResponse } from 'node:http';

export function fakeResponse(): { res: ServerResponse; written: { status?: number; body?: string } } {
  const written: { status?: number; body?: string } = {};
  const res = {
    headersSent: false,
    statusCode: 200,
    setHeader: () => undefined,
    end(body: string) {
      written.status = res.statusCode;
      written.body = body;
    },
  };
  return { res: res as unknown as ServerResponse, written };
}
