// RFC 7386 JSON merge patch, as kube-apiserver applies it (evanphx/json-patch v4 `MergePatch`):
// a null deletes a member, an object merges into an object, anything else replaces. Where a value
// is taken whole (no object to merge into), v4 also strips nulls inside it, list items included.

import type { Status } from '../resources/types.ts';
import { badRequest } from '../status/errors.ts';
import { goJsonTypeName, parseGoJson } from './go-json.ts';
import type { FieldValidation } from './json-patch.ts';
import type { JsonObject } from './typed-value.ts';
import { isRecord, ownValue, setOwn } from '../own-property.ts';

/** `duplicates` are the patch's repeated fields, for fieldValidation to report. */
export type MergePatchResult = { value: unknown; duplicates: string[] } | { status: Status };

const BAD_PATCH = 'Invalid JSON Patch';

export function applyMergePatch(document: unknown, patchText: string, fieldValidation: FieldValidation = 'Warn'): MergePatchResult {
  const strict = fieldValidation !== 'Ignore';
  const parsed = parseGoJson(patchText);
  if ('error' in parsed) return { status: badRequest(strict ? `error decoding patch: ${parsed.error}` : BAD_PATCH) };
  const patch = parsed.value;
  if (strict && patch !== null && !isRecord(patch)) {
    return { status: badRequest(`error decoding patch: json: cannot unmarshal ${goJsonTypeName(patch)} into Go value of type map[string]interface {}`) };
  }
  if (patch === null) return { status: badRequest(BAD_PATCH) };
  if (Array.isArray(patch)) return { value: pruneNulls(patch), duplicates: parsed.duplicates };
  if (!isRecord(patch)) return { status: badRequest(BAD_PATCH) };
  const base = isRecord(document) ? structuredClone(document) : {};
  return { value: mergeInto(base, patch), duplicates: parsed.duplicates };
}

/** Merges `patch` into `target` in place (target is already a private copy). */
export function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete target[key];
      continue;
    }
    const current = ownValue(target, key);
    if (current === undefined || current === null || !isRecord(current)) {
      setOwn(target, key, pruneNulls(structuredClone(value)));
    } else if (isRecord(value)) {
      mergeInto(current, value);
    } else {
      setOwn(target, key, structuredClone(value));
    }
  }
  return target;
}

function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(pruneNulls);
  if (!isRecord(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) if (item !== null) setOwn(out, key, pruneNulls(item));
  return out;
}
