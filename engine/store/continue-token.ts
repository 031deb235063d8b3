// Continue tokens in kube-apiserver's own format, so a token looks and fails exactly as a real
// server's: unpadded base64url of `{"v":"meta.k8s.io/v1","rv":<snapshot rv>,"start":"<name>\u0000"}`.
// `start` is the first name the next page may hold (the last returned name plus NUL, the smallest
// string after it). `rv` is the snapshot every page is served at; a negative rv means "continue at
// the latest version", which is what the fresh token in an Expired status carries.

import { parseGoJson } from '../go-json.ts';
import { badRequestError, type StoreError } from './store-errors.ts';

export interface ContinuePosition {
  /** The smallest name the page may start with. */
  startName: string;
  /** Snapshot revision; negative means the latest. */
  revision: number;
}

const VERSION = 'meta.k8s.io/v1';

export function encodeContinueToken(startName: string, revision: number): string {
  const json = JSON.stringify({ v: VERSION, rv: revision, start: startName });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** The token that resumes after `lastName` (exclusive). */
export function continueAfter(lastName: string, revision: number): string {
  return encodeContinueToken(`${lastName}\u0000`, revision);
}

/** Decodes a token; a malformed one is a BadRequest `invalid continue token: …`. */
export function decodeContinueToken(token: string): ContinuePosition {
  const bad = (why: string): StoreError => badRequestError('FW_ERR_STORE_BAD_CONTINUE', `invalid continue token: ${why}`);
  const illegal = /[^A-Za-z0-9_-]/.exec(token);
  if (illegal !== null) throw bad(`continue key is not valid: illegal base64 data at input byte ${illegal.index}`);
  if (token.length % 4 === 1) throw bad(`continue key is not valid: illegal base64 data at input byte ${token.length - 1}`);
  const read = parseGoJson(Buffer.from(token, 'base64url').toString('utf8'));
  if ('error' in read) throw bad(`continue key is not valid: ${read.error}`);
  const parsed = read.value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw bad('continue key is not valid: json: cannot unmarshal into Go value of type storage.continueToken');
  }
  const fields = parsed as Record<string, unknown>;
  const version = fields.v ?? '';
  const revision = fields.rv ?? 0;
  const start = fields.start ?? '';
  if (typeof version !== 'string' || typeof start !== 'string' || typeof revision !== 'number' || !Number.isSafeInteger(revision)) {
    throw bad('continue key is not valid: json: cannot unmarshal into Go struct field of storage.continueToken');
  }
  if (version !== VERSION) throw bad(`continue key is not valid: server does not recognize this encoded version ${version}`);
  if (revision === 0) throw bad('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (start.length === 0) throw bad('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // Refuse path tricks (`../x`, `a//b`): the start must already be a clean path below the prefix.
  const rooted = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(rooted) !== rooted) throw bad(`continue key is not valid: ${start}`);
  return { startName: rooted.slice(1), revision };
}

/** Go's path.Clean for a rooted path. */
export function cleanPath(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}
