import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isHealthPath } from './health.ts';

test('health paths: each endpoint and its checks, nothing that merely starts with the name', () => {
  for (const path of ['/healthz', '/livez', '/readyz', '/healthz/ping', '/readyz/etcd', '/livez/']) assert.ok(isHealthPath(path), path);
  for (const path of ['/healthzx', '/readyzz/etcd', '/metrics', '/', '', '/api/healthz', 'healthz']) assert.not.ok(isHealthPath(path), path);
});

test.run();
