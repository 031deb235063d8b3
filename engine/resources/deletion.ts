// How kube-apiserver's generic registry marks an object for deletion (registry/generic/registry
// store.go): the delete options decide the garbage collector's finalizers (`orphan` for Orphan and
// orphanDependents=true, `foregroundDeletion` for Foreground), and an object left with any finalizer
// is not removed but marked: deletionTimestamp, a zero grace period, and the generation bumped the
// first time. The garbage collector then takes its finalizer off (garbage-collector.ts).

import type { KubeObject } from './types.ts';
import { formatRfc3339 } from '../clock.ts';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** The finalizers only the garbage collector removes. */
export const GC_FINALIZERS: ReadonlySet<string> = new Set([ORPHAN_FINALIZER, FOREGROUND_FINALIZER]);

export interface PropagationOptions {
  orphanDependents?: boolean;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' | string;
}

/**
 * Kubernetes' deletionFinalizersForGarbageCollection for a kind whose default policy is to delete
 * dependents (PLC and FS declare none): the explicit option wins, else the finalizer already there.
 */
export function deletionFinalizers(finalizers: readonly string[], options: PropagationOptions): { changed: boolean; finalizers: string[] } {
  const policy = options.propagationPolicy;
  let orphan: boolean;
  let foreground: boolean;
  if (options.orphanDependents !== undefined) {
    orphan = options.orphanDependents;
    foreground = false;
  } else if (policy === 'Orphan' || policy === 'Background' || policy === 'Foreground') {
    orphan = policy === 'Orphan';
    foreground = policy === 'Foreground';
  } else {
    // The first of the two finalizers present decides, as Go walks the list.
    const first = finalizers.find((f) => GC_FINALIZERS.has(f));
    orphan = first === ORPHAN_FINALIZER;
    foreground = first === FOREGROUND_FINALIZER;
  }
  const next = finalizers.filter((f) => !GC_FINALIZERS.has(f));
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const before = new Set(finalizers);
  const after = new Set(next);
  const changed = before.size !== after.size || [...after].some((f) => !before.has(f));
  return { changed, finalizers: changed ? next : [...finalizers] };
}

/**
 * Kubernetes' markAsDeleting: a copy with deletionTimestamp (kept when already set and not in the
 * future), a zero grace period, and the generation bumped when deletion starts.
 */
export function markAsDeleting(object: KubeObject, nowMs: number): KubeObject {
  const metadata = { ...(object.metadata ?? {}) };
  const now = formatRfc3339(nowMs);
  if (metadata.deletionTimestamp === undefined && (metadata.generation ?? 0) > 0) metadata.generation = (metadata.generation ?? 0) + 1;
  if (metadata.deletionTimestamp === undefined || Date.parse(metadata.deletionTimestamp) > Date.parse(now)) metadata.deletionTimestamp = now;
  metadata.deletionGracePeriodSeconds = 0;
  return { ...object, metadata };
}
