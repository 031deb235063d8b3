// Request bodies: read up to kube-apiserver's 3 MiB cap (413 beyond it), then parsed as JSON, YAML
// or protobuf (api/protobuf/) by Content-Type. A body that does not parse, or nests too deeply for the recursive code
// after parsing (nesting-depth.ts), is the client's mistake: 400, never 500.
import type { IncomingMessage } from 'node:http';
import { parse as yamlParse } from 'yaml';
import { ApiError, badRequest, malformedBody, MAX_REQUEST_BODY_BYTES, requestEntityTooLarge } from '../errors.ts';
import { negotiateInput, PROTOBUF_MEDIA_TYPE } from '../content-negotiation.ts';
import { decodeBody } from '../protobuf/objects.ts';
import { checkNestingDepth } from './nesting-depth.ts';

export const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] as const;
export type BodyMediaType = (typeof BODY_MEDIA_TYPES)[number];

/** Reads the whole body; rejects with 413 as soon as it is known to exceed `limitBytes`. */
export async function readBody(req: IncomingMessage, limitBytes: number = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    throw new ApiError(requestEntityTooLarge(limitBytes));
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > limitBytes) {
      req.resume();
      throw new ApiError(requestEntityTooLarge(limitBytes));
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export interface ParsedBody {
  /** The parsed value; undefined for an empty body. */
  value: unknown;
  /** The text, for duplicate-field detection. */
  text: string;
  mediaType: BodyMediaType;
}

/**
 * Parses a body by its Content-Type (JSON when absent); 415 for a type neither JSON, YAML nor
 * protobuf. `kind` is what the endpoint decodes (a protobuf envelope may leave its kind out).
 */
export function parseBody(bytes: Buffer, contentType: string | undefined, kind = ''): ParsedBody {
  const negotiated = negotiateInput(contentType, BODY_MEDIA_TYPES);
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  if (negotiated.mediaType === PROTOBUF_MEDIA_TYPE) return { value: bytes.length === 0 ? undefined : parseProtobuf(bytes, kind), text: '', mediaType: negotiated.mediaType };
  const text = bytes.toString('utf8');
  if (text.trim() === '') return { value: undefined, text, mediaType: negotiated.mediaType };
  return { value: parseText(text, negotiated.mediaType), text, mediaType: negotiated.mediaType };
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

export function parseText(text: string, mediaType: Exclude<BodyMediaType, typeof PROTOBUF_MEDIA_TYPE>): unknown {
  checkNestingDepth(text, mediaType === 'application/json' ? 'json' : 'yaml');
  if (mediaType === 'application/json') {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ApiError(badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`));
    }
  }
  try {
    // Duplicate keys are reported by strict decoding, not here; the last one wins, as in Go.
    // logLevel 'error': a client's odd tags must not write a warning to the server's log per request.
    return yamlParse(text, { uniqueKeys: false, maxAliasCount: 100, logLevel: 'error' });
  } catch (error) {
    throw new ApiError(badRequest(`error converting YAML to JSON: yaml: ${(error as Error).message.split('\n')[0]}`));
  }
}
