// The execution plane's error registry. Every rejection an Executor produces is an ExecutorError
// with a stable code (`FW_ERR_EXECUTOR_*`), so callers match on `code` (undici's rule: a brand via
// Symbol.for survives two copies of the module, `instanceof` does not). What a client is sent for
// one is the API edge's decision (api/engine-errors.ts): the execution plane knows nothing of HTTP.
//
// Codes are never reused or renamed: docs/errors.md and docs/execution-plane.md list them. Add new
// codes at the end; a retired code moves to RETIRED_ERROR_CODES (engine/status/errors.ts).

export const EXECUTOR_ERROR_CODES = [
  'FW_ERR_EXECUTOR_UNKNOWN_STAGE',
  'FW_ERR_EXECUTOR_BAD_WORK',
  'FW_ERR_EXECUTOR_STAGE_FAILED',
  'FW_ERR_EXECUTOR_WORKER_FAILED',
  'FW_ERR_EXECUTOR_CLOSED',
] as const;

export type ExecutorErrorCode = (typeof EXECUTOR_ERROR_CODES)[number];

const BRAND = Symbol.for('fairway.ExecutorError');

export class ExecutorError extends Error {
  readonly [BRAND] = true;
  readonly code: ExecutorErrorCode;
  /** The stage the failed work named ('' when the work had no usable stage name). */
  readonly stage: string;

  constructor(code: ExecutorErrorCode, stage: string, message: string, extra: { cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'ExecutorError';
    this.code = code;
    this.stage = stage;
  }
}

export function isExecutorError(error: unknown): error is ExecutorError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

export function isExecutorErrorCode(error: unknown, code: ExecutorErrorCode): error is ExecutorError {
  return isExecutorError(error) && error.code === code;
}

export function closedError(stage: string): ExecutorError {
  return new ExecutorError('FW_ERR_EXECUTOR_CLOSED', stage, `executor is closed: cannot run stage "${stage}"`);
}

/** Wraps whatever a stage threw, naming the stage; the original error stays as `cause`. */
export function stageFailedError(stage: string, cause: unknown): ExecutorError {
  return new ExecutorError('FW_ERR_EXECUTOR_STAGE_FAILED', stage, `stage "${stage}" failed: ${errorText(cause)}`, {
    cause,
  });
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return String(error);
}
