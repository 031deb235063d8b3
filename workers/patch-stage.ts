// PATCH as work for the execution plane. Applying a patch (server-side apply above all, and
// strategic merge) costs far more than reading or writing the object (docs/execution-plane.md), so
// on a large object it runs on a worker: the stored object crosses as its codec bytes (moved), the
// patched object comes back as JSON bytes (`packPatchResult`), parsed here. Small patches run on the
// main thread through the very same function (engine/patch/patch-applier.ts) and hand back the
// object itself. A refusal crosses as data (the Status, or the store error's fields) and is thrown
// again here.
import type { KubeObject, Status, StatusDetails } from '../engine/resources/types.ts';
import { newStoredForm, storedFormOf } from '../engine/store/cached-object.ts';
import { isStoreError, StoreError, type StoreErrorCode } from '../engine/store/store-errors.ts';
import { ApiError, isApiError } from '../engine/status/errors.ts';
import { patchApplier, type PatchApplier, type PatchRequest, type PatchResult } from '../engine/patch/patch-applier.ts';
import type { Executor, Work } from './executor.ts';
import { objectsOf } from './stored-objects.ts';

/**
 * Stage names by cost class: server-side apply and strategic merge walk the kind's schema and the
 * managed fields (milliseconds even for a small object); merge and JSON patches only the document.
 */
export const APPLY_PATCH_STAGE = 'apply-patch';
export const MERGE_PATCH_STAGE = 'merge-patch';

function patchStage(contentType: PatchRequest['contentType']): string {
  return contentType === 'application/apply-patch+yaml' || contentType === 'application/strategic-merge-patch+json' ? APPLY_PATCH_STAGE : MERGE_PATCH_STAGE;
}

export interface PatchPayload {
  /** The stored object (none when server-side apply creates), as stage payloads carry objects. */
  readonly objects: readonly unknown[] | object;
  readonly request: Omit<PatchRequest, 'current'>;
  /** The API group (for error messages). */
  readonly group: string;
}

export type PatchStageResult =
  /** On the calling thread: the patched object itself. */
  | PatchResult
  /** From a worker: the patched object's JSON, bytes rather than an object graph to clone. */
  | { readonly json: Uint8Array; readonly warnings: string[] }
  | { readonly status: Status }
  | { readonly storeError: { code: StoreErrorCode; message: string; details: StatusDetails | undefined } };

/** The stage: the patch applied by the one applier, the outcome as cloneable data. */
export function runPatchStage(payload: unknown): PatchStageResult {
  const { request, group } = payload as PatchPayload;
  const current = objectsOf(payload)[0];
  try {
    return patchApplier(group)({ ...request, current });
  } catch (error) {
    if (isApiError(error)) return { status: error.status };
    if (isStoreError(error)) return { storeError: { code: error.code, message: error.message, details: error.details } };
    throw error;
  }
}

/** The stage's result as it crosses back from a worker (workers/worker-task.ts): the object as JSON bytes. */
export function packPatchResult(result: unknown): unknown {
  const outcome = result as PatchStageResult;
  if (!('object' in outcome)) return outcome;
  return { json: Buffer.from(JSON.stringify(outcome.object), 'utf8'), warnings: outcome.warnings };
}

/** The patch's size for routing: the stored object's codec bytes and the patch body. */
export function patchWorkSize(payload: unknown): number {
  const objects = (payload as Partial<PatchPayload> | null)?.objects;
  let bytes = 0;
  if (Array.isArray(objects)) for (const form of objects as { codecBytes?: Uint8Array }[]) bytes += form?.codecBytes?.byteLength ?? 0;
  else bytes += (objects as { values?: Uint8Array } | undefined)?.values?.byteLength ?? 0;
  const body = (payload as Partial<PatchPayload> | null)?.request?.body;
  return bytes + (typeof body === 'string' ? body.length : 0);
}

function patchWork(request: PatchRequest, group: string): Work {
  const { current, ...rest } = request;
  const forms = current === undefined ? [] : [storedFormOf(current) ?? newStoredForm(current, 0)];
  return { stage: patchStage(request.contentType), payload: { objects: forms, request: rest, group } satisfies PatchPayload };
}

/** The REST handler's PatchApplier, running each patch through the execution plane. */
export function executorPatchApplier(executor: Executor, group: string): PatchApplier {
  return async (request) => {
    const outcome = await executor.execute<PatchStageResult>(patchWork(request, group));
    if ('status' in outcome) throw new ApiError(outcome.status);
    if ('storeError' in outcome) {
      const { code, message, details } = outcome.storeError;
      throw new StoreError(code, message, { details });
    }
    if ('object' in outcome) return outcome;
    const object = JSON.parse(Buffer.from(outcome.json.buffer, outcome.json.byteOffset, outcome.json.byteLength).toString('utf8')) as KubeObject;
    return { object, warnings: outcome.warnings };
  };
}
