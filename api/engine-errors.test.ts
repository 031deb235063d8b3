// The store's errors as the API edge sends them: each one the store compliance suites see a backend
// produce (engine/store/testing/suite-*.ts), made here by the same builders, becomes the Status
// kube-apiserver sends for it (reason, HTTP code, details, the fresh continue token).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Status } from '../engine/resources/types.ts';
import { required } from '../engine/resources/field-errors.ts';
import {
  conflictError,
  continueExpiredError,
  CONTINUE_EXPIRED_MESSAGE,
  CONTINUE_INCONSISTENT_MESSAGE,
  internalError,
  invalidListOptionsError,
  invalidResourceVersionError,
  notFoundError,
  tooLargeResourceVersionError,
  tooOldResourceVersionError,
  watchTooSlowError,
  writesUnavailableError,
} from '../engine/store/store-errors.ts';
import { errorStatus, storeErrorStatus } from './engine-errors.ts';

const PLC = { group: 'flowcontrol.apiserver.k8s.io', resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration' };
const QR = 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io';
const failure = (rest: Partial<Status>): Status => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...rest });

test('NotFound and Conflict name the object: 404 and 409 with its name, group and plural', () => {
  const details = { name: 'alpha', group: PLC.group, kind: PLC.resource };
  assert.equal(storeErrorStatus(notFoundError(PLC, 'alpha')), failure({ message: `${QR} "alpha" not found`, reason: 'NotFound', details, code: 404 }));
  const conflict = storeErrorStatus(conflictError(PLC, 'alpha'));
  assert.equal([conflict.reason, conflict.code, conflict.details], ['Conflict', 409, details]);
});

test('an expired continue token is a 410 Expired carrying the fresh token in metadata.continue, when there is one', () => {
  assert.equal(
    storeErrorStatus(continueExpiredError('fresh-token')),
    failure({ metadata: { continue: 'fresh-token' }, message: CONTINUE_INCONSISTENT_MESSAGE, reason: 'Expired', code: 410 }),
  );
  assert.equal(storeErrorStatus(continueExpiredError(undefined)), failure({ message: CONTINUE_EXPIRED_MESSAGE, reason: 'Expired', code: 410 }));
});

test('a watch from before the window is a 410 Expired, the Status of its ERROR event', () => {
  assert.equal(storeErrorStatus(tooOldResourceVersionError(5, 7)), failure({ message: 'too old resource version: 5 (7)', reason: 'Expired', code: 410 }));
});

test('a resourceVersion the cache has not reached in time is a 504 Timeout saying when to retry', () => {
  assert.equal(
    storeErrorStatus(tooLargeResourceVersionError(12, 2)),
    failure({ message: 'Timeout: Too large resource version: 12, current: 2', reason: 'Timeout', details: { retryAfterSeconds: 1 }, code: 504 }),
  );
});

test('bad list options are a 422 Invalid whose causes name the fields', () => {
  const status = storeErrorStatus(invalidListOptionsError([required('resourceVersion')]));
  assert.equal([status.reason, status.code], ['Invalid', 422]);
  assert.equal(status.details, {
    name: '',
    group: 'meta.k8s.io',
    kind: 'ListOptions',
    causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'resourceVersion' }],
  });
});

test("an unparseable resourceVersion is kube-apiserver's bare 500 from the store, and a 400 from a request", () => {
  const bad = invalidResourceVersionError('abc', false);
  assert.equal(storeErrorStatus(bad), failure({ message: bad.message, code: 500 }));
  assert.equal([errorStatus(bad).reason, errorStatus(bad).code], ['BadRequest', 400]);
});

test('a slow watcher is cut off with a 504 Timeout', () => {
  const status = storeErrorStatus(watchTooSlowError(3));
  assert.equal([status.reason, status.code], ['Timeout', 504]);
  assert.match(status.message ?? '', /fell 3 events behind/);
});

test('writes refused while the store recovers are a 503 with the failed write as cause and a retry hint', () => {
  const cause = internalError('FW_ERR_STORE_WRITE_FAILED', 'writing to /x failed: ENOSPC');
  const status = storeErrorStatus(writesUnavailableError(cause));
  assert.equal([status.reason, status.code], ['ServiceUnavailable', 503]);
  assert.equal(status.details, { causes: [{ message: 'writing to /x failed: ENOSPC' }], retryAfterSeconds: 1 });
});

test.run();
