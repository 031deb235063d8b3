// Objects are stored with their keys in one canonical order: Go's struct field order for typed
// fields (taken from the decoding shapes, which list fields as the Go types declare them), sorted
// keys for maps (Go's JSON encoder sorts them), `kind` then `apiVersion` first. Two writes of the
// same content then encode to the same bytes, which is how the store recognises a no-op update
// (same resourceVersion, no watch event, as kubectl's "patched (no change)" expects), and the JSON
// reads as kube-apiserver's does.
import type { Shape } from './schema-decoder.ts';
import type { KubeObject } from './types.ts';
import { setOwn } from '../own-property.ts';

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function order(value: unknown, shape: Shape | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => order(item, shape?.type === 'array' ? shape.items : undefined));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const put = (key: string, fieldShape: Shape | undefined) => {
    if (Object.hasOwn(record, key) && !Object.hasOwn(out, key)) {
      setOwn(out, key, order(record[key], fieldShape));
    }
  };
  if (shape?.type === 'object') {
    for (const key of Object.keys(shape.fields)) put(key, shape.fields[key]);
    for (const key of Object.keys(record).sort(byCodeUnit)) put(key, undefined);
    return out;
  }
  if (shape?.type === 'any') return value;
  const valueShape = shape?.type === 'map' ? shape.values : undefined;
  for (const key of Object.keys(record).sort(byCodeUnit)) put(key, valueShape);
  return out;
}

/** A copy of `object` in canonical key order for `shape` (the kind's decoding shape). */
export function canonicalOrder(object: KubeObject, shape: Shape): KubeObject {
  const ordered = order(object, shape) as KubeObject;
  const { kind, apiVersion, ...rest } = ordered;
  // Spread defines own properties; Object.assign would take a `__proto__` member as the prototype.
  return { ...(kind !== undefined ? { kind } : {}), ...(apiVersion !== undefined ? { apiVersion } : {}), ...rest };
}
