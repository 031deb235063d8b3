import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Status } from '../../engine/resources/types.ts';
import { errorCodeOf, isApiError } from '../../engine/status/errors.ts';
import { WatchLimiter } from './watch-limit.ts';

function refusal(limiter: WatchLimiter, user: string): Status {
  try {
    limiter.acquire(user);
  } catch (error) {
    if (isApiError(error)) return error.status;
    throw error;
  }
  throw new Error('expected a 429');
}

test('up to the limit per user; one more is a 429 Status with Retry-After details', () => {
  const limiter = new WatchLimiter(2);
  limiter.acquire('bob');
  limiter.acquire('bob');
  const status = refusal(limiter, 'bob');
  assert.is(errorCodeOf(status), 'FW_ERR_WATCH_TOO_MANY');
  assert.equal([status.code, status.reason], [429, 'TooManyRequests']);
  assert.is(status.message, 'Too many requests: user "bob" already has 2 open watches, the most --max-watches-per-user allows');
  assert.equal(status.details, { retryAfterSeconds: 1 });
  assert.is(limiter.count('bob'), 2, 'a refused watch is not counted');
  limiter.acquire('alice');
  assert.is(limiter.count('alice'), 1, 'other users have their own count');
});

test('releasing frees a slot; a count never goes below zero', () => {
  const limiter = new WatchLimiter(1);
  limiter.acquire('bob');
  limiter.release('bob');
  limiter.release('bob');
  assert.is(limiter.count('bob'), 0);
  limiter.acquire('bob');
  refusal(limiter, 'bob');
  limiter.release('bob');
  limiter.acquire('bob');
  assert.is(limiter.count('bob'), 1);
});

test('0 means no limit', () => {
  const limiter = new WatchLimiter(0);
  for (let i = 0; i < 10_000; i++) limiter.acquire('bob');
  assert.is(limiter.count('bob'), 10_000);
});

test.run();
