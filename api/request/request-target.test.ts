import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRequestInfo } from './request-info.ts';
import { RequestTargets, type TargetMemo } from './request-target.ts';

const GET_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/p1';

/** Whether two readings of one target are one shared object. */
function kept(targets: RequestTargets, method: string, target: string): boolean {
  const first = targets.parse(method, target);
  const second = targets.parse(method, target);
  return first === second;
}

test('a target without a query read twice for one method is the same frozen RequestInfo, equal to a fresh reading', () => {
  const targets = new RequestTargets();
  const first = targets.parse('GET', GET_PATH)!;
  assert.ok(kept(targets, 'GET', GET_PATH));
  assert.ok(targets.parse('GET', GET_PATH) === first);
  assert.ok(Object.isFrozen(first.requestInfo));
  assert.equal(first.requestInfo, parseRequestInfo('GET', GET_PATH, new URLSearchParams()));
  assert.is(first.query.size, 0);
  assert.throws(() => {
    (first.requestInfo as { verb: string }).verb = 'delete';
  });
  const deleted = targets.parse('DELETE', GET_PATH)!;
  assert.is(deleted.requestInfo.verb, 'delete', 'kept per method');
  assert.is(targets.parse('GET', GET_PATH)!.requestInfo.verb, 'get');
});

test('targets with a query, long targets, unknown methods and targets the URL parser reads are read each time', () => {
  const targets = new RequestTargets();
  const list = '/api/v1/namespaces/default/pods?limit=500';
  const a = targets.parse('GET', list)!;
  assert.not.ok(kept(targets, 'GET', list), 'a query is read each time');
  assert.is(a.query.get('limit'), '500');
  assert.is(a.requestInfo.verb, 'list');
  const long = `/api/v1/namespaces/default/pods/${'x'.repeat(600)}`;
  assert.not.ok(kept(targets, 'GET', long));
  assert.not.ok(kept(targets, 'MKCOL', '/api/v1/pods'));
  const dotted = '/api/v1/namespaces/default/pods/../secrets';
  assert.not.ok(kept(targets, 'GET', dotted));
  const parsed = targets.parse('GET', dotted)!;
  assert.is(parsed.url?.pathname, '/api/v1/namespaces/default/secrets');
  assert.is(parsed.requestInfo.resource, 'secrets');
});

test('percent-escapes are decoded; an invalid target is undefined', () => {
  const targets = new RequestTargets();
  assert.is(targets.parse('GET', '/api/v1/namespaces/default/pods/a%2Fb')!.requestInfo.path, '/api/v1/namespaces/default/pods/a/b');
  assert.is(targets.parse('GET', 'http://[::1/x'), undefined);
});

test('a client making up paths fills a bounded table: it starts over when full', () => {
  const targets = new RequestTargets();
  const first = targets.parse('GET', '/api/v1/pods/p0')!;
  for (let i = 1; i < 4_096; i++) targets.parse('GET', `/api/v1/pods/p${i}`);
  assert.ok(targets.parse('GET', '/api/v1/pods/p0') === first, 'still kept at 4,096 targets');
  targets.parse('GET', '/api/v1/pods/p4096');
  assert.ok(targets.parse('GET', '/api/v1/pods/p0') !== first, 'the table started over');
});

test("a connection's last kept reading answers its next request for the same method and target, and only that", () => {
  const targets = new RequestTargets();
  const other = new RequestTargets();
  const memo: TargetMemo = { lastTarget: undefined };
  const list = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations?limit=1';
  const sequence: [RequestTargets, string, string][] = [
    [targets, 'GET', GET_PATH],
    [targets, 'GET', GET_PATH],
    [targets, 'DELETE', GET_PATH],
    [targets, 'GET', list],
    [targets, 'GET', GET_PATH],
    [targets, 'MKCOL', GET_PATH],
    [other, 'GET', GET_PATH],
    [targets, 'GET', `${GET_PATH}x`],
    [targets, 'GET', GET_PATH],
  ];
  for (const [owner, method, target] of sequence) {
    const read = owner.parse(method, target, memo)!;
    assert.equal(read.requestInfo, parseRequestInfo(method, target.split('?')[0]!, new URLSearchParams(target.split('?')[1] ?? '')), `${method} ${target}`);
    assert.equal([...read.query], [...new URLSearchParams(target.split('?')[1] ?? '')]);
    if (method === 'GET' && !target.includes('?')) {
      assert.ok(read === owner.parse(method, target), 'the kept reading itself');
      assert.ok(memo.lastTarget?.parsed === read && memo.lastTarget.targets === owner);
    }
  }
  assert.is(memo.lastTarget?.target, GET_PATH);
  // A target with a query is never kept, so it leaves the last kept reading in place.
  targets.parse('GET', list, memo);
  assert.is(memo.lastTarget?.target, GET_PATH);
  assert.is(targets.parse('GET', '/api/v1/%zz', memo)?.requestInfo.path, '/api/v1/%zz');
});

test.run();
