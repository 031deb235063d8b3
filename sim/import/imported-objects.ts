// What a flowcontrol list from the server becomes in the scenario: each item as a manifest,
// checked as the server checks a create (decode, default, validate: the check the scenario loader
// runs too), in name order. The server may be anyone's, so nothing is assumed of its answer: a
// list whose `items` is not a list is an error; an item that is not an object, fails the check or
// repeats a name is skipped with a warning naming it, so the scenario holds what does load.
//
// The lists are bounded too: inferring the server concurrency limit takes time quadratic in the
// number of priority levels, and a real cluster has tens of them, not the hundred thousand a
// 64 MiB answer can hold.

import { flowcontrolManifestKinds } from '../../engine/config/flowcontrol-kinds.ts';
import { createManifestRegistry } from '../../engine/config/manifests.ts';
import { isRecord } from '../../engine/own-property.ts';
import { formatFieldError } from '../../engine/resources/field-errors.ts';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import { manifestOf } from './import-scenario.ts';

export const MAX_IMPORTED_OBJECTS = 1000;

export type ImportedObjects = { ok: true; manifests: Record<string, unknown>[]; warnings: string[] } | { ok: false; error: string };

const registry = createManifestRegistry(flowcontrolManifestKinds());

/** `source` names the list in messages (`GET https://…/flowschemas`). */
export function importedObjects(items: unknown, kind: FlowcontrolKind, source: string): ImportedObjects {
  if (!Array.isArray(items)) return { ok: false, error: `${source}: items must be a list of ${kind} objects, got ${describeType(items)}` };
  if (items.length > MAX_IMPORTED_OBJECTS)
    return { ok: false, error: `${source}: ${items.length} items, more than the ${MAX_IMPORTED_OBJECTS} ${kind} objects sim import takes` };
  const warnings: string[] = [];
  const byName = new Map<string, Record<string, unknown>>();
  items.forEach((item: unknown, index) => {
    const skip = (why: string) => warnings.push(`${source}: items[${index}]${why}: skipped`);
    if (!isRecord(item)) return skip(`: not an object but ${describeType(item)}`);
    const manifest = manifestOf(item, kind);
    const name = (manifest.metadata as { name?: unknown }).name;
    const label = ` (${kind} ${typeof name === 'string' ? JSON.stringify(name) : 'without a name'})`;
    const entry = registry.lookup(manifest.apiVersion, kind);
    if (entry === undefined) return skip(`${label}: apiVersion ${JSON.stringify(manifest.apiVersion)} is not one a scenario takes`);
    const errors = entry.check(manifest, source);
    // The first error is enough to say why; a hostile value could make the whole list megabytes.
    if (errors.length > 0) return skip(`${label}: ${clip(formatFieldError(errors[0]!))}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`);
    if (byName.has(name as string)) return skip(`${label}: a second object of that name`);
    byName.set(name as string, manifest);
  });
  const manifests = [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, manifest]) => manifest);
  return { ok: true, manifests, warnings };
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  return `a ${typeof value}`;
}
