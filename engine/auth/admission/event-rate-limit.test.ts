import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Clock } from '../../clock.ts';
import type { AdmissionAttributes } from './admission.ts';
import { createEventRateLimit, validateEventRateLimitConfiguration, type Limit } from './event-rate-limit.ts';
import { decodeEventRateLimit } from './build-admission.ts';
import { formatFieldErrors } from '../../resources/field-errors.ts';

function manualClock(): Clock & { advance(ms: number): void } {
  let nowMs = 1_000_000;
  return { now: () => nowMs, after: () => () => undefined, advance: (ms) => (nowMs += ms) };
}

const write = (user: string, overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  user: { name: user, groups: [] },
  resource: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas' },
  subresource: '',
  kind: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema' },
  namespace: '',
  name: 'fs-1',
  object: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'fs-1' } },
  dryRun: false,
  ...overrides,
});

const plugin = (limits: Limit[], clock: Clock) =>
  createEventRateLimit({ limits }, { clock, appliesTo: (a) => a.resource.group === 'flowcontrol.apiserver.k8s.io' });
const rejection = (result: ReturnType<ReturnType<typeof plugin>['validate']>) => (result.allowed ? undefined : result.rejection);

test('a burst is admitted, the next write is refused, and tokens come back at qps', () => {
  const clock = manualClock();
  const limiter = plugin([{ type: 'User', qps: 2, burst: 3, cacheSize: 0 }], clock);
  for (let i = 0; i < 3; i++) assert.ok(limiter.validate(write('alice')).allowed, `write ${i + 1} within the burst`);
  assert.equal(rejection(limiter.validate(write('alice'))), { kind: 'rate-limited', message: 'Too many requests: limit reached on type User for key alice' });
  assert.ok(limiter.validate(write('bob')).allowed, 'another user has its own bucket');
  clock.advance(499);
  assert.not.ok(limiter.validate(write('alice')).allowed, 'not yet a whole token');
  clock.advance(1);
  assert.ok(limiter.validate(write('alice')).allowed, 'one token after 500ms at 2 qps');
});

test('every limit is consulted; several refusals are aggregated; the Server key is empty', () => {
  const clock = manualClock();
  const limiter = plugin(
    [
      { type: 'Server', qps: 1, burst: 1, cacheSize: 0 },
      { type: 'User', qps: 1, burst: 1, cacheSize: 0 },
    ],
    clock,
  );
  assert.ok(limiter.validate(write('alice')).allowed);
  assert.equal(rejection(limiter.validate(write('alice'))), {
    kind: 'rate-limited',
    message: '[Too many requests: limit reached on type Server for key , Too many requests: limit reached on type User for key alice]',
  });
});

test('reads, dry runs and other groups pass untouched', () => {
  const clock = manualClock();
  const limiter = plugin([{ type: 'Server', qps: 1, burst: 1, cacheSize: 0 }], clock);
  assert.ok(limiter.validate(write('a')).allowed);
  assert.ok(limiter.validate(write('a', { dryRun: true })).allowed);
  assert.ok(limiter.validate(write('a', { operation: 'CONNECT' })).allowed);
  assert.ok(limiter.validate(write('a', { resource: { group: 'other.example.com', version: 'v1', resource: 'things' } })).allowed);
  assert.not.ok(limiter.validate(write('a', { operation: 'DELETE' })).allowed, 'deletes are writes');
});

test('an LRU of cacheSize buckets: an evicted key comes back full', () => {
  const clock = manualClock();
  const limiter = plugin([{ type: 'SourceAndObject', qps: 1, burst: 1, cacheSize: 2 }], clock);
  const on = (name: string) =>
    write('u', { name, object: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name, uid: `uid-${name}` } } });
  assert.ok(limiter.validate(on('a')).allowed);
  assert.equal(rejection(limiter.validate(on('a'))), {
    kind: 'rate-limited',
    message: 'Too many requests: limit reached on type SourceAndObject for key FlowSchemaauid-aflowcontrol.apiserver.k8s.io/v1',
  });
  assert.ok(limiter.validate(on('b')).allowed);
  assert.ok(limiter.validate(on('c')).allowed, 'evicts a');
  assert.ok(limiter.validate(on('a')).allowed, 'a starts over with a full bucket');
});

test('configuration validation uses Kubernetes texts', () => {
  assert.is(formatFieldErrors(validateEventRateLimitConfiguration({})), 'limits: Invalid value: <nil>: must not be empty');
  assert.is(
    formatFieldErrors(validateEventRateLimitConfiguration({ limits: [{ type: 'Cluster', qps: 0, burst: -1, cacheSize: -5 }] })),
    '[limits[0].type: Unsupported value: "Cluster": supported values: "Namespace", "Server", "SourceAndObject", "User", limits[0].qps: Invalid ' +
      'value: 0: must be positive, limits[0].burst: Invalid value: -1: must be positive, limits[0].cacheSize: Invalid value: -5: must not be negative]',
  );
  const decoded = decodeEventRateLimit({
    apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1',
    kind: 'Configuration',
    limits: [{ type: 'User', qps: '10', burst: 5 }],
  });
  assert.ok('errors' in decoded && decoded.errors[0]!.field === 'limits[0].qps');
});

test.run();
