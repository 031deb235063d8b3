// Request bodies: read up to kube-apiserver's 3 MiB cap (413 beyond it), then parsed as JSON, YAML
// or protobuf (api/protobuf/) by Content-Type, as Go reads each (syntax errors in Go's words,
// repeated keys listed for strict field validation). A body that does not parse, or nests too
// deeply for the recursive code after parsing (nesting-depth.ts), is the client's mistake: 400.
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest, malformedBody, MAX_REQUEST_BODY_BYTES, requestEntityTooLarge } from '../errors.ts';
import { negotiateInput, PROTOBUF_MEDIA_TYPE } from '../content-negotiation.ts';
import { decodeBody } from '../protobuf/objects.ts';
import { parseGoJson } from '../../engine/go-json.ts';
import { parseGoYaml, strictYamlError } from '../go-yaml.ts';
import { goQuote } from '../go-format.ts';
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
  /** The parsed value; undefined for an empty options body (its options then come from the query). */
  value: unknown;
  /** Repeated keys in JSON text, as strict field validation reports them (`duplicate field "spec.type"`). */
  duplicates: string[];
  /** Repeated keys in YAML text: go-yaml's one error listing them all, reported before any field problem. */
  yamlDuplicates: string[];
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

/** Parses a body by its Content-Type (JSON when absent); 415 for a type neither JSON, YAML nor protobuf. */
export function parseBody(bytes: Buffer, contentType: string | undefined, target: BodyTarget): ParsedBody {
  const negotiated = negotiateInput(contentType, BODY_MEDIA_TYPES);
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  const { mediaType } = negotiated;
  if (target.options === true && bytes.length === 0) return { value: undefined, duplicates: [], yamlDuplicates: [], mediaType };
  if (mediaType === PROTOBUF_MEDIA_TYPE) return { value: parseProtobuf(bytes, target.kind), duplicates: [], yamlDuplicates: [], mediaType };
  const text = bytes.toString('utf8');
  checkNestingDepth(text, mediaType === 'application/json' ? 'json' : 'yaml');
  const parsed = mediaType === 'application/json' ? jsonBody(text) : yamlBody(text);
  if ('error' in parsed) {
    if (target.options === true) throw new ApiError(badRequest(parsed.error));
    throw new ApiError(badRequest(`the object provided is unrecognized (must be of type ${target.kind}): ${parsed.error} (${summarizeData(bytes, 30)})`));
  }
  return { ...parsed, mediaType };
}

/** JSON as Go reads it: its syntax errors as `couldn't get version/kind` words them. */
type TextBody = Omit<ParsedBody, 'mediaType'> | { error: string };

function jsonBody(text: string): TextBody {
  const parsed = parseGoJson(text);
  if ('error' in parsed) return { error: `couldn't get version/kind; json parse error: ${parsed.error}` };
  return { value: parsed.value, duplicates: parsed.duplicates.map((path) => `duplicate field ${goQuote(path)}`), yamlDuplicates: [] };
}

function yamlBody(text: string): TextBody {
  const parsed = parseGoYaml(text);
  if (!parsed.ok) return { error: `error converting YAML to JSON: ${parsed.error}` };
  return { value: parsed.value, duplicates: [], yamlDuplicates: parsed.duplicateKeys.length > 0 ? [strictYamlError(parsed.duplicateKeys)] : [] };
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
