// What a pool thread runs for each task: look the stage up, run it, and hand the result back in the
// cheapest form: the stage's `packResult` first, when it has one; then byte results that own their
// ArrayBuffer are moved (zero copy), and everything else is structured-cloned by postMessage.
//
// A stage failure is *returned* as a StageFailure record rather than thrown: errors crossing a thread
// lose their own properties, and the pool executor must tell "the stage threw" (the caller's bad
// payload) from "the thread died" (our fault) — Piscina rejects only for the latter.

import { move } from 'piscina';
import { findStage } from './stages.ts';

export const STAGE_FAILURE_KEY = 'fairway:stage-failure';

export interface StageFailure {
  readonly [STAGE_FAILURE_KEY]: { readonly name: string; readonly message: string; readonly stack: string | undefined };
}

export interface StageTask {
  readonly stage: string;
  readonly payload: unknown;
}

export function runStageTask(task: StageTask): unknown {
  const stage = findStage(task.stage);
  if (stage === undefined) return failure(new Error(`unknown stage "${task.stage}"`));
  let result: unknown;
  try {
    result = stage.run(task.payload);
    if (stage.packResult !== undefined) result = stage.packResult(result);
  } catch (error) {
    return failure(error);
  }
  return ownsWholeBuffer(result) ? move(result) : result;
}

export function isStageFailure(value: unknown): value is StageFailure {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, STAGE_FAILURE_KEY);
}

function failure(error: unknown): StageFailure {
  const e = error instanceof Error ? error : new Error(String(error));
  return { [STAGE_FAILURE_KEY]: { name: e.name, message: e.message, stack: e.stack } };
}

// A view into a shared allocation (Node's Buffer pool) must be copied: moving it would detach the
// other views on this thread.
function ownsWholeBuffer(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.buffer instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength;
}
