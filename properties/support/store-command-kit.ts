// Shared pieces of the store model's commands: the command type, the names they use, and how an
// outcome (a value, or the StoreError code it failed with) is checked against the model.

import type fc from 'fast-check';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../engine/resources/types.ts';
import { isStoreError, type StoreError, type StoreErrorCode } from '../../engine/store/store-errors.ts';
import { expected, observed, type Kind, type ModelObject, type StoreModel } from './store-model.ts';
import type { RealStore } from './store-real.ts';

export type Command = fc.AsyncCommand<StoreModel, RealStore>;

export const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
/** Names kube's key function refuses: every verb must answer 400 BadRequest. */
export const BAD_NAMES = ['', 'x/y', '..', '50%'];
export const isBadName = (name: string) => BAD_NAMES.includes(name);

/** A name, or "the k-th existing object" (resolved when the command runs, so writes mostly hit). */
export type NameRef = string | { existing: number };

export function resolve(m: Readonly<StoreModel>, kind: Kind, ref: NameRef): string {
  if (typeof ref === 'string') return ref;
  const names = [...m.objects[kind].keys()].sort();
  return names.length > 0 ? names[ref.existing % names.length]! : NAMES[ref.existing % NAMES.length]!;
}

export const showRef = (ref: NameRef) => (typeof ref === 'string' ? ref : `#${ref.existing}`);

/** Runs `operation`; returns its value, or the StoreError code it failed with (anything else fails the run). */
export async function attempt<T>(operation: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: StoreErrorCode; error: StoreError }> {
  try {
    return { ok: true, value: await operation() };
  } catch (error) {
    if (!isStoreError(error)) throw error;
    return { ok: false, code: error.code, error };
  }
}

export function expectFailure(outcome: { ok: boolean; code?: StoreErrorCode }, code: StoreErrorCode, what: string): void {
  assert.is(outcome.ok ? 'success' : outcome.code, code, what);
}

export function expectObject(outcome: { ok: true; value: KubeObject } | { ok: false; code: StoreErrorCode }, want: ModelObject, what: string): void {
  assert.ok(outcome.ok, `${what}: failed with ${outcome.ok ? '' : outcome.code}`);
  if (outcome.ok) assert.equal(observed(outcome.value), expected(want), what);
}
