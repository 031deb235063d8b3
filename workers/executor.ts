// The execution plane's one seam. Everything that runs a CPU-heavy stage of admitted work — the
// Piscina pool, the main thread, the tests' virtual executor, routers and wrappers — is an
// `Executor`, so the API layer holds an Executor and never knows which one it has (undici's
// Dispatcher: one tiny interface, implementations and decorators behind it).
//
// Call rules (every implementation keeps them; tests check them):
//  1. `execute` never throws synchronously. Every failure is a rejected promise whose reason is an
//     `ExecutorError` (workers/executor-errors.ts) — identify it by `code`, not `instanceof`:
//       FW_ERR_EXECUTOR_UNKNOWN_STAGE  `work.stage` is not in the registry (workers/stages.ts);
//       FW_ERR_EXECUTOR_BAD_WORK       `work` is not a Work value;
//       FW_ERR_EXECUTOR_STAGE_FAILED   the stage threw (bad payload included); message and
//                                      `stage` name it, `cause` carries the original text;
//       FW_ERR_EXECUTOR_WORKER_FAILED  the thread running it died or could not start;
//       FW_ERR_EXECUTOR_CLOSED         `execute` was called after `close`.
//  2. Each call settles exactly once. Results are the stage's value; byte results are always a
//     Node `Buffer`, whichever thread produced them.
//  3. `work.payload` must be structured-cloneable (a pool copies it into the worker), unless its
//     stage packs it (Stage.pack: stored objects cross as their codec bytes, moved). Stages are
//     pure and never mutate their payload, so running inline (no copy) gives the same result.
//  4. Ownership of every ArrayBuffer in `work.transferList` passes to the executor at the call: the
//     caller must not read or write it afterwards (on the pool it is detached — moved, not copied).
//     Only list buffers the payload owns whole; see `ownedBytes`.
//  5. `close()` stops accepting work at once (later calls reject with FW_ERR_EXECUTOR_CLOSED), lets
//     every accepted call settle, then releases threads. It is idempotent: every call returns the
//     same promise. Closing a wrapper closes what it wraps.
//  6. A settled promise means the work is over and its thread is free. A thread cannot be
//     interrupted mid-stage, so nothing settles early: when a request's deadline passes, the server
//     answers 504 while the handler still awaits its stage and keeps its APF seats until it returns,
//     as kube-apiserver's timeout filter does.

import type { TransferListItem } from 'node:worker_threads';

/** A unit of CPU work: a registered stage name and its (cloneable) input. */
export interface Work {
  /** Name of a stage in workers/stages.ts (`encode-json`, `sleep-cpu`, ...). */
  readonly stage: string;
  readonly payload: unknown;
  /** ArrayBuffers (or ports) to move into the worker instead of copying them. Rule 4 applies. */
  readonly transferList?: readonly TransferListItem[];
}

export interface Executor {
  execute<R>(work: Work): Promise<R>;
  close(): Promise<void>;
}

/**
 * Bytes in a form that can be listed in `transferList`: a view that owns its whole ArrayBuffer.
 * Small Buffers often share Node's 8 KiB allocation pool; transferring that pool would detach
 * unrelated Buffers, so such views are copied once into their own ArrayBuffer.
 */
export function ownedBytes(bytes: Uint8Array): { bytes: Buffer; transferList: ArrayBuffer[] } {
  const owned =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
      ? Buffer.from(bytes.buffer, 0, bytes.byteLength)
      : Buffer.from(copyToOwnBuffer(bytes));
  return { bytes: owned, transferList: [owned.buffer as ArrayBuffer] };
}

function copyToOwnBuffer(bytes: Uint8Array): ArrayBuffer {
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}
