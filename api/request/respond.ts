// Writing responses: objects in the negotiated representation (JSON, YAML or protobuf, pretty on
// request), Status objects for failures (negotiated and pretty as successes are), and `Warning`
// headers. Every error that reaches a handler's edge is turned into the Status kube-apiserver would
// send here, and only a genuine server fault (never a client's input) becomes a 500.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Status } from '../../engine/resources/types.ts';
import type { RequestContext } from './http-context.ts';
import { errorStatus } from '../engine-errors.ts';
import { negotiateOutput, OBJECT_MEDIA_TYPES } from './content-negotiation.ts';
import { encode, type Representation } from '../../engine/render/serializer.ts';
import type { Logger } from '../log.ts';

// The writing itself is the serializer's, below the API (engine/render/serializer.ts).

export const JSON_REPRESENTATION: Representation = { mediaType: 'application/json', pretty: false };

/**
 * `pretty`: kube-apiserver pretty-prints when `?pretty` parses as true, and for curl, Wget and
 * browsers when the parameter is absent; an unparseable value means "not pretty", not an error.
 */
export function wantsPretty(query: URLSearchParams, userAgent: string | undefined): boolean {
  const value = query.get('pretty');
  if (value !== null && value !== '') return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
  const agent = userAgent ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

const NO_QUERY = new URLSearchParams();

/**
 * How kube-apiserver's ErrorNegotiated writes a Status for this request: in the Accept header's
 * choice among JSON, YAML and protobuf (no conversions), pretty as a success body would be; when
 * nothing is acceptable, as indented JSON all the same (responsewriters.WriteRawJSON).
 */
export function statusRepresentation(req: IncomingMessage, query?: URLSearchParams): Representation {
  const negotiated = negotiateOutput(req.headers.accept, { conversions: [], mediaTypes: OBJECT_MEDIA_TYPES });
  if (!negotiated.ok) return { mediaType: 'application/json', pretty: true };
  const pretty = negotiated.pretty || wantsPretty(query ?? NO_QUERY, req.headers['user-agent']);
  return { mediaType: negotiated.mediaType, pretty };
}

/**
 * `299 - "<text>"` as kube-apiserver's warning recorder writes it, `"` and `\` escaped and the
 * text as UTF-8 bytes (Node writes header strings as Latin-1 and throws on a character above
 * U+00FF, so the UTF-8 bytes go in as Latin-1 code units). Undefined for text kube drops: not
 * valid Unicode (a lone surrogate) or holding a control character.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function warningHeaderValue(text: string): string | undefined {
  if (LONE_SURROGATE.test(text) || /[\u0000-\u001f\u007f-\u009f]/.test(text)) return undefined;
  const quoted = text.replace(/[\\"]/g, (c) => `\\${c}`);
  return `299 - "${Buffer.from(quoted, 'utf8').toString('latin1')}"`;
}

/**
 * kube-apiserver's warning recorder: each text once, in order; once the texts pass 4 Ki characters
 * (Unicode code points) in all, each is cut to 256 and those past 4 Ki are dropped. Unbounded,
 * 5,000 unknown fields under `fieldValidation=Warn` were 180 KB of headers, past a client's limit.
 */
const WARNINGS_TOTAL_RUNES = 4 * 1024;
const WARNING_ITEM_RUNES = 256;

interface RecordedWarnings {
  texts: string[];
  seen: Set<string>;
}

const recordedWarnings = new WeakMap<ServerResponse, RecordedWarnings>();

export function addWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  let recorded = recordedWarnings.get(res);
  if (recorded === undefined) {
    recorded = { texts: [], seen: new Set() };
    recordedWarnings.set(res, recorded);
  }
  const before = recorded.texts.length;
  for (const text of warnings) {
    if (text === '' || recorded.seen.has(text) || warningHeaderValue(text) === undefined) continue;
    recorded.seen.add(text);
    recorded.texts.push(text);
  }
  if (recorded.texts.length > before) res.setHeader('Warning', warningHeaders(recorded.texts));
}

function warningHeaders(texts: readonly string[]): string[] {
  let total = 0;
  for (const text of texts) total += runesUpTo(text, WARNINGS_TOTAL_RUNES + 1);
  if (total <= WARNINGS_TOTAL_RUNES) return texts.map((text) => warningHeaderValue(text)!);
  const values: string[] = [];
  let written = 0;
  for (const text of texts) {
    const cut = firstRunes(text, WARNING_ITEM_RUNES);
    const length = runesUpTo(cut, WARNING_ITEM_RUNES);
    if (written + length > WARNINGS_TOTAL_RUNES) break;
    const value = warningHeaderValue(cut);
    if (value === undefined) continue;
    written += length;
    values.push(value);
  }
  return values;
}

/** The number of code points in `text`, counting no further than `limit`. */
function runesUpTo(text: string, limit: number): number {
  let count = 0;
  for (const _ of text) if (++count >= limit) break;
  return count;
}

function firstRunes(text: string, count: number): string {
  let end = 0;
  let seen = 0;
  for (const rune of text) {
    if (seen++ === count) break;
    end += rune.length;
  }
  return text.slice(0, end);
}

/** Writes a complete response. */
export function sendText(res: ServerResponse, statusCode: number, body: string | Buffer, contentType: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = statusCode;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function sendObject(res: ServerResponse, statusCode: number, value: unknown, representation: Representation, contentType?: string): void {
  sendText(res, statusCode, encode(value, representation), contentType ?? representation.mediaType);
}

/** A failure Status; like kube-apiserver's ErrorNegotiated, `details.retryAfterSeconds` also goes out as `Retry-After`. */
export function sendStatus(res: ServerResponse, status: Status, representation: Representation = JSON_REPRESENTATION): void {
  const retryAfterSeconds = status.details?.retryAfterSeconds ?? 0;
  if (retryAfterSeconds > 0 && !res.headersSent) res.setHeader('Retry-After', String(retryAfterSeconds));
  sendObject(res, status.code ?? 500, status, representation);
}

/** A Status for `context`, in the representation its Accept header asks for (kube's ErrorNegotiated). */
export function sendStatusNegotiated(context: Pick<RequestContext, 'req' | 'res' | 'query'>, status: Status): void {
  sendStatus(context.res, status, statusRepresentation(context.req, context.query));
}

/**
 * Answers a failed request with its Status (or just ends a response that already started), in the
 * request's negotiated representation, or else in the one its Accept header asks for.
 */
export function sendError(context: RequestContext, error: unknown, logger?: Logger, representation?: Representation): void {
  if (context.res.headersSent) {
    if (!context.res.writableEnded) context.res.end();
    return;
  }
  sendStatus(context.res, errorStatus(error, logger), representation ?? statusRepresentation(context.req, context.query));
}
