// Request bodies: read up to kube-apiserver's 3 MiB cap (413 beyond it), then parsed as JSON or
// YAML by Content-Type. A body that does not parse, or nests too deeply for the recursive code
// after parsing (nesting-depth.ts), is the client's mistake: 400, never 500.
import type { IncomingMessage } from 'node:http';
import { parse as yamlParse } from 'yaml';
import { ApiError, badRequest, MAX_REQUEST_BODY_BYTES, requestEntityTooLarge } from '../errors.ts';
import { negotiateInput } from '../content-negotiation.ts';
import { checkNestingDepth } from './nesting-depth.ts';
import { beginBodyRead, onBodyFramingError } from '../http1-connection.ts';

export const BODY_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;
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
    const onEnd = (error?: unknown) => finish(error, error === undefined ? Buffer.concat(chunks, total) : undefined);
    // The client went away mid-body (or the server closed the connection after a timeout).
    const onClose = () => finish(new Error('the client closed the connection before the request body was complete'));
    const stopFraming = onBodyFramingError(req, (error) => finish(new ApiError(badRequest(`unable to read the request body: ${error.message}`))));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onEnd);
    req.once('close', onClose);
  });
}

export interface ParsedBody {
  /** The parsed value; undefined for an empty body. */
  value: unknown;
  /** The text, for duplicate-field detection. */
  text: string;
  mediaType: BodyMediaType;
}

/** Parses a body by its Content-Type (JSON when absent); 415 for a type neither JSON nor YAML. */
export function parseBody(bytes: Buffer, contentType: string | undefined): ParsedBody {
  const negotiated = negotiateInput(contentType, BODY_MEDIA_TYPES);
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  const text = bytes.toString('utf8');
  if (text.trim() === '') return { value: undefined, text, mediaType: negotiated.mediaType };
  return { value: parseText(text, negotiated.mediaType), text, mediaType: negotiated.mediaType };
}

export function parseText(text: string, mediaType: BodyMediaType): unknown {
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
