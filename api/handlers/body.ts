// Request bodies: read up to kube-apiserver's 3 MiB cap (413 beyond it), then parsed as JSON, YAML
// or protobuf (engine/protobuf/) by Content-Type, as Go reads each (syntax errors in Go's words,
// repeated keys listed for strict field validation). A body that does not parse, nests too deeply
// for the recursive code after parsing (nesting-depth.ts), or is YAML that would cost more to
// compose than any object needs (engine/yaml-cost.ts), is the client's mistake: 400. YAML is read
// by a YamlDecoder: on a worker beyond a few hundred bytes (workers/decode-yaml.ts).
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest, malformedBody, MAX_REQUEST_BODY_BYTES, nestingTooDeep, requestEntityTooLarge } from '../../engine/status/errors.ts';
import { negotiateInput } from '../request/content-negotiation.ts';
import { PROTOBUF_MEDIA_TYPE } from '../../engine/render/serializer.ts';
import { decodeBody } from '../../engine/protobuf/objects.ts';
import { parseGoJson } from '../../engine/go-json.ts';
import { strictYamlError, type GoYamlResult } from '../../engine/go-yaml.ts';
import { inlineYamlDecoder, type YamlDecoder } from '../../workers/decode-yaml.ts';
import { goQuote } from '../../engine/go-format.ts';
import { checkNestingDepth, MAX_BODY_NESTING_DEPTH } from './nesting-depth.ts';
import { beginBodyRead, onBodyFramingError } from '../request/request-body.ts';

export const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] as const;
export type BodyMediaType = (typeof BODY_MEDIA_TYPES)[number];

/**
 * Reads the whole body; rejects with 413 as soon as it is known to exceed `limitBytes`, and with
 * 400 when its framing is broken. A refused body is left unread (paused, not drained): the
 * response then closes the connection (http1-connection.ts) instead of reading on.
 */
export function readBody(req: IncomingMessage, limitBytes: number = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(new ApiError(requestEntityTooLarge(limitBytes)));
  beginBodyRead(req);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (error: unknown, body?: Buffer) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onEnd);
      req.off('close', onClose);
      stopFraming();
      if (error === undefined) {
        resolve(body!);
      } else {
        req.pause();
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limitBytes) finish(new ApiError(requestEntityTooLarge(limitBytes)));
      else chunks.push(chunk);
    };
    const onEnd = (error?: unknown) => (error === undefined ? finish(undefined, Buffer.concat(chunks, total)) : finish(bodyCutShort()));
    // The client went away mid-body (an HTTP/2 stream reset, a closed connection), or the server
    // closed the connection after a timeout.
    const onClose = () => finish(bodyCutShort());
    const stopFraming = onBodyFramingError(req, (error) => finish(new ApiError(badRequest(`unable to read the request body: ${error.message}`))));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onEnd);
    req.once('close', onClose);
  });
}

/**
 * A body its client stopped sending: the client's doing, so a 400 and no internal-error log line
 * (kube-apiserver answers 500 and counts code="500"; docs/reliability.md says why not here). The
 * stream or connection is usually gone, so the answer mostly goes nowhere; the access log and
 * apiserver_request_total still record it.
 */
export function bodyCutShort(): ApiError {
  return new ApiError(badRequest('unable to read the request body: the client closed the stream before the body was complete'));
}

export interface ParsedBody {
  /** The parsed value; undefined for an empty options body (its options then come from the query). */
  value: unknown;
  /** Repeated keys in JSON text, as strict field validation reports them (`duplicate field "spec.type"`). */
  duplicates: string[];
  /** Repeated keys in YAML text: go-yaml's one error listing them all, reported before any field problem. */
  yamlDuplicates: string[];
  /** How numbers were written in JSON text where that differs from their value (`5e3`), by path. */
  numberLiterals: ReadonlyMap<string, string>;
  mediaType: BodyMediaType;
}

export interface BodyTarget {
  /** What the endpoint decodes (a protobuf envelope may leave its kind out). */
  kind: string;
  /**
   * An options body (DeleteOptions): may be empty, and its decode errors carry the decoder's words
   * alone; an object body's errors name the kind, as kube-apiserver's transformDecodeError does.
   */
  options?: boolean;
}

/**
 * Parses a body by its Content-Type (JSON when absent); 415 for a type neither JSON, YAML nor
 * protobuf. YAML goes through `decodeYaml`.
 */
export async function parseBody(
  bytes: Buffer,
  contentType: string | undefined,
  target: BodyTarget,
  decodeYaml: YamlDecoder = inlineYamlDecoder,
): Promise<ParsedBody> {
  const negotiated = negotiateInput(contentType, BODY_MEDIA_TYPES);
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  const { mediaType } = negotiated;
  if (target.options === true && bytes.length === 0) return { value: undefined, duplicates: [], yamlDuplicates: [], numberLiterals: NONE, mediaType };
  if (mediaType === PROTOBUF_MEDIA_TYPE)
    return { value: parseProtobuf(bytes, target.kind), duplicates: [], yamlDuplicates: [], numberLiterals: NONE, mediaType };
  let parsed: TextBody;
  if (mediaType === 'application/json') {
    const text = bytes.toString('utf8');
    checkNestingDepth(text);
    parsed = jsonBody(text);
  } else {
    parsed = yamlBody(await decodeYaml(bytes));
  }
  if ('error' in parsed) {
    if (target.options === true) throw new ApiError(badRequest(parsed.error));
    throw new ApiError(badRequest(`the object provided is unrecognized (must be of type ${target.kind}): ${parsed.error} (${summarizeData(bytes, 30)})`));
  }
  return { ...parsed, mediaType };
}

/** JSON as Go reads it: its syntax errors as `couldn't get version/kind` words them. */
const NONE: ReadonlyMap<string, string> = new Map();

type TextBody = Omit<ParsedBody, 'mediaType'> | { error: string };

function jsonBody(text: string): TextBody {
  const parsed = parseGoJson(text);
  if ('error' in parsed) return { error: `couldn't get version/kind; json parse error: ${parsed.error}` };
  return {
    value: parsed.value,
    duplicates: parsed.duplicates.map((path) => `duplicate field ${goQuote(path)}`),
    yamlDuplicates: [],
    numberLiterals: parsed.numberLiterals,
  };
}

function yamlBody(parsed: GoYamlResult): TextBody {
  if (!parsed.ok) {
    if (parsed.bound === 'depth') throw new ApiError(nestingTooDeep(MAX_BODY_NESTING_DEPTH));
    return { error: `error converting YAML to JSON: ${parsed.error}` };
  }
  return {
    value: parsed.value,
    duplicates: [],
    yamlDuplicates: parsed.duplicateKeys.length > 0 ? [strictYamlError(parsed.duplicateKeys)] : [],
    numberLiterals: NONE,
  };
}

/** A protobuf body's object in its JSON form; a 400 worded as apimachinery's transformDecodeError. */
function parseProtobuf(bytes: Buffer, kind: string): unknown {
  const decoded = decodeBody(bytes, kind);
  if (decoded.ok) return decoded.decoded.value;
  if (decoded.typeMeta !== undefined && decoded.typeMeta.kind !== '') {
    const version = decoded.typeMeta.apiVersion.slice(decoded.typeMeta.apiVersion.indexOf('/') + 1);
    throw new ApiError(malformedBody(decoded.typeMeta.kind, version, decoded.error));
  }
  throw new ApiError(badRequest(`the object provided is unrecognized (must be of type ${kind}): ${decoded.error} (${summarizeData(bytes, 30)})`));
}

/** apimachinery's summarizeData: JSON-looking text as it is, anything else in hex, cut at `max` bytes. */
function summarizeData(data: Buffer, max: number): string {
  if (data.length === 0) return '<empty>';
  const cut = data.subarray(0, max);
  const more = data.length > max ? ' ...' : '';
  return data[0] === 0x7b ? `${cut.toString('utf8')}${more}` : `${cut.toString('hex')}${more}`;
}
