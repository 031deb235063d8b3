import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  estimateListWork,
  estimateMutatingWork,
  estimateWork,
  groupResourceKey,
  maxSeatsOf,
  parseGoInt64,
  parseListOptions,
  shouldListFromStorage,
  type EstimatorRequestInfo,
  type ObjectCountResult,
  type WorkEstimate,
  type WorkEstimatorDeps,
} from './work-estimate.ts';
import { DEFAULT_WORK_ESTIMATOR_CONFIG, decodeWorkEstimatorConfig } from './work-estimator-config.ts';
import { longestBigIntText } from '../testing/longest-bigint-text.ts';

function info(verb: string, extra: Partial<EstimatorRequestInfo> = {}): EstimatorRequestInfo {
  return {
    isResourceRequest: true,
    verb,
    apiGroup: 'foo.bar',
    resource: 'events',
    subresource: '',
    namespace: 'ns',
    name: '',
    path: '/apis/foo.bar/v1/namespaces/ns/events',
    ...extra,
  };
}

function deps(count: ObjectCountResult | undefined, watches = 0, extra: Partial<WorkEstimatorDeps> = {}) {
  const keys: string[] = [];
  const d: WorkEstimatorDeps = {
    objectCount: (key) => {
      keys.push(key);
      if (count === undefined) throw new Error('object count must not be consulted');
      return count;
    },
    watchCount: () => watches,
    ...extra,
  };
  return { d, keys };
}

const est = (initialSeats: number, finalSeats = 0, additionalLatencyMs = 0): WorkEstimate => ({ initialSeats, finalSeats, additionalLatencyMs });

function list(query: string, count: ObjectCountResult | undefined, maxSeats?: number, verb = 'list'): WorkEstimate {
  return estimateWork({ requestInfo: info(verb), query: new URLSearchParams(query) }, deps(count).d, maxSeats);
}

test('11.7: no RequestInfo, and verbs that are neither reads of many objects nor writes', () => {
  assert.equal(estimateWork({ query: {} }, deps(undefined).d), est(10));
  assert.equal(estimateWork({ query: {} }, deps(undefined).d, 3), est(10)); // the hard limit, not the level's
  assert.equal(estimateWork({ requestInfo: info('get'), query: {} }, deps(undefined).d), est(1));
  assert.equal(estimateWork({ requestInfo: info('deletecollection'), query: {} }, deps(undefined).d), est(1));
  const healthz = { ...info('get'), isResourceRequest: false, apiGroup: '', resource: '', namespace: '', path: '/healthz' };
  assert.equal(estimateWork({ requestInfo: healthz, query: {} }, deps(undefined).d), est(1));
});

test('11.7: list rows', () => {
  const n = (count: number): ObjectCountResult => ({ count });
  assert.equal(list('limit=invalid', undefined), est(10));
  assert.equal(list('limit=399&resourceVersion=1', n(699)), est(8));
  assert.equal(list('resourceVersion=1', n(699)), est(7));
  assert.equal(list('limit=399', n(699)), est(8));
  assert.equal(list('', n(399)), est(8));
  assert.equal(list('', 'not-found'), est(1));
  assert.equal(list('continue=token&limit=399', n(699)), est(8));
  assert.equal(list('limit=299&resourceVersion=0', n(399)), est(4));
  assert.equal(list('resourceVersion=0', n(799)), est(8));
  assert.equal(list('resourceVersion=foo&resourceVersionMatch=Exact&limit=399', n(699)), est(8));
  assert.equal(list('resourceVersion=foo&resourceVersionMatch=NotOlderThan', n(799)), est(8));
  assert.equal(list('resourceVersion=foo', n(1999)), est(10));
  assert.equal(list('resourceVersion=foo', n(1999), 5), est(5));
  assert.equal(list('resourceVersion=0&limit=799', 'not-found'), est(1));
  assert.equal(list('limit=499', 'stale'), est(10));
  assert.equal(list('', 'error'), est(10));
  const byName = estimateWork(
    { requestInfo: info('list', { name: 'test' }), query: new URLSearchParams('fieldSelector=metadata.name%3Dtest') },
    deps(undefined).d,
  );
  assert.equal(byName, est(1));
});

test('11.7: watch rows (priced like a list only with sendInitialEvents=true)', () => {
  assert.equal(list('', undefined, undefined, 'watch'), est(1));
  assert.equal(list('sendInitialEvents=false', undefined, undefined, 'watch'), est(1));
  assert.equal(list('sendInitialEvents=true', { count: 799 }, undefined, 'watch'), est(8));
  const gateOff = estimateWork(
    { requestInfo: info('watch'), query: new URLSearchParams('sendInitialEvents=true') },
    deps(undefined, 0, { watchListEnabled: false }).d,
  );
  assert.equal(gateOff, est(1));
});

test('list details: selector pricing, empty counts, consistent reads from cache, the object-count key', () => {
  assert.equal(list('labelSelector=a%3Db&limit=100', { count: 1000 }), est(10)); // 1000 + 100 objects
  assert.equal(list('labelSelector=a%3Db&limit=100', { count: 300 }), est(4)); // 300 + 100
  assert.equal(list('', { count: 0 }), est(1)); // never fewer than one seat
  const { d, keys } = deps({ count: 699 }, 0, { consistentListFromCache: true });
  assert.equal(estimateListWork({ requestInfo: info('list'), query: { limit: '399' } }, d), est(7));
  assert.equal(keys, ['events.foo.bar']);
  assert.is(groupResourceKey('', 'pods'), 'pods');
  assert.equal(estimateListWork({ query: {} }, deps(undefined).d, 4), est(4));
});

test('11.7: mutating rows', () => {
  const mutate = (verb: string, watches: number, maxSeats?: number, extra: Partial<EstimatorRequestInfo> = {}) =>
    estimateWork({ requestInfo: info(verb, extra), query: {} }, deps(undefined, watches).d, maxSeats);
  for (const verb of ['create', 'update', 'patch', 'delete']) {
    assert.equal(mutate(verb, 0), est(1, 0, 0), verb);
    assert.equal(mutate(verb, 5), est(1, 0, 0), verb);
    assert.equal(mutate(verb, 29), est(1, 3, 5), verb);
  }
  assert.equal(mutate('create', 199), est(1, 10, 10));
  assert.equal(mutate('patch', 100, 5), est(1, 5, 10));
  assert.equal(mutate('create', 5777, undefined, { resource: 'serviceaccounts', subresource: 'token' }), est(1, 0, 0));
  assert.equal(mutate('create', 1000, undefined, { resource: 'serviceaccounts' }), est(1, 10, 50));
  assert.equal(mutate('create', 10), est(1, 1, 5));
  assert.equal(mutate('create', 110), est(1, 10, 5.5)); // 11 seats × 5 ms reshaped to 10 seats
});

test('mutating estimator: disabled, and without RequestInfo', () => {
  const off = estimateMutatingWork(
    { requestInfo: info('create'), query: {} },
    deps(undefined, 500, { config: { ...DEFAULT_WORK_ESTIMATOR_CONFIG, mutatingEnabled: false } }).d,
  );
  assert.equal(off, est(1));
  assert.equal(estimateMutatingWork({ query: {} }, deps(undefined).d, 4), est(1, 4, 5));
  assert.is(maxSeatsOf(est(1, 10, 50)), 10);
});

test('ListOptions parsing follows apimachinery: int64 strictness, lenient booleans, first value wins', () => {
  assert.ok('error' in parseListOptions({ limit: '1.5' }));
  assert.ok('error' in parseListOptions({ limit: '' }));
  assert.ok('error' in parseListOptions({ timeoutSeconds: 'x' }));
  assert.ok('error' in parseListOptions({ limit: '9223372036854775808' }));
  const ok = parseListOptions({ limit: ['+5', 'x'], sendInitialEvents: 'FALSE' });
  assert.ok(!('error' in ok) && ok.limit === 5 && ok.sendInitialEvents === false);
  const yes = parseListOptions(new URLSearchParams('sendInitialEvents='));
  assert.ok(!('error' in yes) && yes.sendInitialEvents === true);
  assert.is(parseGoInt64('-9223372036854775808'), -(1n << 63n));
  assert.is(parseGoInt64('1_000'), undefined);
});

test('shouldListFromStorage: the four storage triggers', () => {
  const opts = (q: string) => {
    const o = parseListOptions(new URLSearchParams(q));
    if ('error' in o) throw new Error(o.error);
    return o;
  };
  assert.ok(shouldListFromStorage(opts(''), false));
  assert.not.ok(shouldListFromStorage(opts(''), true));
  assert.ok(shouldListFromStorage(opts('resourceVersion=0&continue=x'), true));
  assert.ok(shouldListFromStorage(opts('resourceVersion=5&resourceVersionMatch=Exact'), true));
  assert.ok(shouldListFromStorage(opts('resourceVersion=5&limit=10'), true));
  assert.not.ok(shouldListFromStorage(opts('resourceVersion=0&limit=10'), true));
  assert.not.ok(shouldListFromStorage(opts('resourceVersion=5&limit=10&resourceVersionMatch=NotOlderThan'), true));
  assert.not.ok(shouldListFromStorage(opts('limit=10'), true));
});

// request/config.go: WorkEstimatorConfig's fields drive list_work_estimator.go and
// mutating_work_estimator.go; the defaults are DefaultWorkEstimatorConfig().
test('the estimator follows its WorkEstimatorConfig: seat limits, objects per seat, watches per seat, event duration', () => {
  const list = (count: number, config = DEFAULT_WORK_ESTIMATOR_CONFIG, levelMaxSeats?: number) =>
    estimateListWork({ requestInfo: info('list'), query: { resourceVersion: '0' } }, { ...deps({ count }).d, config }, levelMaxSeats).initialSeats;
  assert.is(list(699), 7, 'defaults: 100 objects per seat');
  const { config, errors } = decodeWorkEstimatorConfig({
    minimumSeats: 2,
    maximumSeatsLimit: 20,
    listWorkEstimatorConfig: { objectsPerSeat: 50 },
    mutatingWorkEstimatorConfig: { watchesPerSeat: 5, eventAdditionalDurationMs: '10ms' },
  });
  assert.equal(errors, []);
  assert.is(list(699, config), 14, '50 objects per seat');
  assert.is(list(5000, config), 20, 'capped by maximumSeatsLimit, not 10');
  assert.is(list(5000, config, 12), 12, 'a level maxSeats below the limit still applies');
  assert.is(list(10, config), 2, 'at least minimumSeats');
  assert.is(list(0, config, 0), 2);
  const write = estimateMutatingWork({ requestInfo: info('create'), query: {} }, { ...deps(undefined, 29).d, config });
  assert.equal(write, { initialSeats: 1, finalSeats: 6, additionalLatencyMs: 10 }, 'ceil(29/5) seats, 10 ms per event');
  assert.is(estimateWork({ requestInfo: info('get'), query: {} }, { ...deps(undefined).d, config }).initialSeats, 2, 'other verbs take minimumSeats');
  assert.is(estimateWork({ query: {} }, { ...deps(undefined).d, config }).initialSeats, 20, 'no RequestInfo: maximumSeatsLimit');
});

test('a WorkEstimatorConfig with bad values is refused field by field; left-out fields keep the defaults', () => {
  assert.equal(decodeWorkEstimatorConfig({}).config, DEFAULT_WORK_ESTIMATOR_CONFIG);
  assert.equal(decodeWorkEstimatorConfig({ listWorkEstimatorConfig: { objectsPerSeat: 25 } }).config, { ...DEFAULT_WORK_ESTIMATOR_CONFIG, objectsPerSeat: 25 });
  const { errors } = decodeWorkEstimatorConfig(
    {
      minimumSeats: 0,
      maximumSeatsLimit: 1.5,
      listWorkEstimatorConfig: { objectsPerSeat: -1 },
      mutatingWorkEstimatorConfig: { enable: 'yes', eventAdditionalDurationMs: 5, watchesPerSeat: 0 },
      extra: 1,
    },
    'workEstimator',
  );
  assert.equal(
    errors.map((e) => `${e.field} ${e.type}`),
    [
      'workEstimator.extra FieldValueForbidden',
      'workEstimator.minimumSeats FieldValueInvalid',
      'workEstimator.maximumSeatsLimit FieldValueInvalid',
      'workEstimator.listWorkEstimatorConfig.objectsPerSeat FieldValueInvalid',
      'workEstimator.mutatingWorkEstimatorConfig.enable FieldValueTypeInvalid',
      'workEstimator.mutatingWorkEstimatorConfig.eventAdditionalDurationMs FieldValueTypeInvalid',
      'workEstimator.mutatingWorkEstimatorConfig.watchesPerSeat FieldValueInvalid',
    ],
  );
  assert.equal(
    decodeWorkEstimatorConfig({ minimumSeats: 4, maximumSeatsLimit: 3 }).errors.map((e) => e.detail),
    ['must not be less than minimumSeats (4)'],
  );
  assert.equal(
    decodeWorkEstimatorConfig([]).errors.map((e) => e.type),
    ['FieldValueTypeInvalid'],
  );
});

test("a client's megabyte of digits in limit is out of range without a BigInt of it", () => {
  const huge = '9'.repeat(1 << 20);
  const longest = longestBigIntText(() => {
    assert.is(parseGoInt64(huge), undefined);
    assert.ok('error' in parseListOptions({ limit: huge }));
  });
  assert.ok(longest <= 21, `a BigInt was made of ${longest} characters`);
});

test.run();
