// DeleteOptions (meta/v1) as the registry reads them: dry run, the garbage collector's propagation
// choice, and the preconditions the stored object must meet; and the decoding shape a DELETE's
// body (or its query parameters) goes through, as every other body goes through its kind's shape
// (engine/resources/schema-decoder.ts), with Go's type names for the fields whose JSON type is not theirs.
import { arrayOf, boolean, int64, named, string, struct, type Shape } from '../resources/schema-decoder.ts';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  dryRun: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** metav1.DeleteOptions in Go's field order. kube-apiserver decodes it without strictness: unknown fields are dropped. */
export const DELETE_OPTIONS_SHAPE: Shape = struct(
  {
    kind: string,
    apiVersion: string,
    gracePeriodSeconds: int64,
    preconditions: named(struct({ uid: string, resourceVersion: string }), 'v1.Preconditions'),
    orphanDependents: named(boolean, 'bool'),
    propagationPolicy: named(string, 'v1.DeletionPropagation'),
    dryRun: named(arrayOf(string), '[]string'),
  },
  true,
);
