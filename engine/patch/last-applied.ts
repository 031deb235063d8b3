// The two ways kube-apiserver's field manager honours kubectl's client-side-apply annotation when
// the applier is the default `kubectl` manager, so `kubectl apply --server-side` can take over an
// object that `kubectl apply` made:
//   - lastAppliedManager: conflicts on fields the annotation still describes (unchanged since the
//     client-side apply) are forgiven, and the apply is forced;
//   - lastAppliedUpdater: after the apply, the annotation is rewritten to the applied
//     configuration, so a later client-side apply diffs against the right thing.

import { compareGoStrings, type FieldSet } from './field-set.ts';
import { parseGoJson } from './go-json.ts';
import { goView } from './managed-fields.ts';
import { validateApplyConfig } from './schema-check.ts';
import type { SchemaNode } from './schema.ts';
import { compareTyped, presentKeys, toFieldSet, type JsonObject } from './typed-value.ts';
import { isRecord, setOwn } from '../own-property.ts';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The only manager name both behaviours apply to. */
export const KUBECTL_MANAGER = 'kubectl';

function annotationsOf(object: unknown): JsonObject | undefined {
  if (!isRecord(object) || !isRecord(object['metadata'])) return undefined;
  const annotations = object['metadata']['annotations'];
  return isRecord(annotations) ? annotations : undefined;
}

/**
 * The fields kubectl's annotation set that still hold the annotated values on the live object;
 * undefined when there is no usable annotation.
 */
export function fieldsAllowedByLastApplied(node: SchemaNode, live: unknown): FieldSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string' || text === '') return undefined;
  const parsed = parseGoJson(text);
  if ('error' in parsed || !isRecord(parsed.value)) return undefined;
  const lastApplied = parsed.value;
  if (validateApplyConfig(node, lastApplied).some((error) => !error.includes('duplicate entries'))) return undefined;
  const comparison = compareTyped(node, lastApplied, goView(node, live));
  return toFieldSet(node, lastApplied).difference(comparison.modified).difference(comparison.added).difference(comparison.removed);
}

/** Rewrites the annotation on `object` (in place) to the applied configuration, if it carries one. */
export function syncLastApplied(object: JsonObject, config: JsonObject): void {
  const annotations = annotationsOf(object);
  if (annotations === undefined || annotations[LAST_APPLIED_ANNOTATION] === undefined) return;
  setOwn(annotations, LAST_APPLIED_ANNOTATION, buildLastApplied(config));
}

/** The configuration as Go's encoder writes an unstructured object: sorted keys, HTML-escaped, newline. */
export function buildLastApplied(config: JsonObject): string {
  const copy = structuredClone(config);
  const annotations = annotationsOf(copy);
  if (annotations !== undefined) delete annotations[LAST_APPLIED_ANNOTATION];
  return `${goJson(copy)}\n`;
}

function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = presentKeys(value).sort(compareGoStrings);
    return `{${keys.map((key) => `${escapeHtml(JSON.stringify(key))}:${goJson(value[key])}`).join(',')}}`;
  }
  return escapeHtml(JSON.stringify(value ?? null));
}

function escapeHtml(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
