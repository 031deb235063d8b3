import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownedBytes } from './executor.ts';
import { EXECUTOR_ERROR_CODES, ExecutorError, isExecutorError, isExecutorErrorCode } from './executor-errors.ts';

test('ownedBytes copies views into shared memory and passes whole-buffer views through', () => {
  const pooled = Buffer.from('small'); // small Buffers live in Node's shared 8 KiB pool
  assert.ok(pooled.buffer.byteLength > pooled.byteLength, 'test setup: expected a pooled Buffer');
  const copied = ownedBytes(pooled);
  assert.is.not(copied.bytes.buffer, pooled.buffer);
  assert.is(copied.bytes.toString(), 'small');
  assert.equal(copied.transferList, [copied.bytes.buffer]);
  assert.is(copied.bytes.byteLength, copied.bytes.buffer.byteLength);

  const whole = new Uint8Array(new ArrayBuffer(16));
  const passed = ownedBytes(whole);
  assert.is(passed.bytes.buffer, whole.buffer, 'no copy when the view owns its buffer');
});

test('executor errors are branded, coded, and carry the stage and an HTTP code', () => {
  const error = new ExecutorError('FW_ERR_EXECUTOR_WORKER_FAILED', 'encode-json', 'late');
  assert.ok(isExecutorError(error));
  assert.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_WORKER_FAILED'));
  assert.not.ok(isExecutorErrorCode(error, 'FW_ERR_EXECUTOR_CLOSED'));
  assert.not.ok(isExecutorError(new Error('late')));
  // A copy of the class from another module instance is still recognised by its brand.
  const foreign = Object.assign(new Error('x'), { [Symbol.for('fairway.ExecutorError')]: true, code: 'FW_ERR_EXECUTOR_CLOSED' });
  assert.ok(isExecutorErrorCode(foreign, 'FW_ERR_EXECUTOR_CLOSED'));
  for (const code of EXECUTOR_ERROR_CODES) assert.match(code, /^FW_ERR_EXECUTOR_[A-Z_]+$/);
});

test.run();
