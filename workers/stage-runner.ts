// Checks shared by every executor: is this a Work value naming a registered stage? And running a
// stage on the current thread with its failure turned into the coded error the protocol promises.

import { ExecutorError, stageFailedError } from './executor-errors.ts';
import type { Work } from './executor.ts';
import { findStage, stageNames, type Stage } from './stages.ts';

/** The stage `work` names, or the ExecutorError explaining why it names none. */
export function checkWork(work: unknown): Stage | ExecutorError {
  if (typeof work !== 'object' || work === null) {
    return new ExecutorError('FW_ERR_EXECUTOR_BAD_WORK', '', `work must be an object {stage, payload}, got ${kindOf(work)}`);
  }
  const { stage: name, transferList } = work as Partial<Work>;
  if (typeof name !== 'string' || name === '') {
    return new ExecutorError('FW_ERR_EXECUTOR_BAD_WORK', '', `work.stage must be a non-empty string, got ${kindOf(name)}`);
  }
  if (transferList !== undefined && !Array.isArray(transferList)) {
    return new ExecutorError('FW_ERR_EXECUTOR_BAD_WORK', name, `work.transferList must be an array, got ${kindOf(transferList)}`);
  }
  const stage = findStage(name);
  if (stage === undefined) {
    return new ExecutorError('FW_ERR_EXECUTOR_UNKNOWN_STAGE', name, `unknown stage "${name}"; registered stages: ${stageNames().join(', ')}`);
  }
  return stage;
}

/** Runs the stage on this thread; throws FW_ERR_EXECUTOR_STAGE_FAILED if it throws. */
export function runStageHere(stage: Stage, payload: unknown): unknown {
  try {
    return stage.run(payload);
  } catch (error) {
    throw stageFailedError(stage.name, error);
  }
}

/** The stage name of `work` for error messages, whatever `work` is. */
export function stageNameOf(work: unknown): string {
  const name = (work as { stage?: unknown } | null)?.stage;
  return typeof name === 'string' ? name : '';
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `a ${typeof value}`;
}
