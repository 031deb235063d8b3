import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileMatchConditions } from './cel-match-conditions.ts';
import { re2Matches } from './cel-environment.ts';

const resourceSpec = {
  resourceAttributes: { namespace: 'kube-system', verb: 'get', group: '', version: 'v1', resource: 'pods', name: 'p' },
  user: 'alice',
  groups: ['system:masters', 'dev'],
};
const nonResourceSpec = { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'bob' };

test('expressions see request with Kubernetes types and defaults', () => {
  const { conditions, problems } = compileMatchConditions([
    "request.user == 'alice' && 'dev' in request.groups",
    "has(request.resourceAttributes) && request.resourceAttributes.namespace.startsWith('kube-')",
    'size(request.extra) == 0 && request.uid == ""',
    "request.groups.exists(g, g.matches('^system:'))",
  ]);
  assert.equal(problems, []);
  assert.equal(conditions.evaluate(resourceSpec), { matches: true });
  assert.equal(conditions.evaluate({ ...resourceSpec, user: 'carol' }), { matches: false });
});

test('the first false wins over an earlier error; errors alone give an aggregated error', () => {
  const { conditions } = compileMatchConditions(["request.resourceAttributes.verb == 'get'", 'request.user == "nobody"']);
  assert.equal(conditions.evaluate(nonResourceSpec), { matches: false });
  const onlyErrors = compileMatchConditions(["request.resourceAttributes.verb == 'get'", "request.resourceAttributes.name == 'x'"]).conditions;
  const outcome = onlyErrors.evaluate(nonResourceSpec);
  assert.ok('error' in outcome);
  if ('error' in outcome) {
    assert.ok(
      outcome.error.startsWith(
        "[cel evaluation error: expression 'request.resourceAttributes.verb == 'get'' resulted in error: no such key: resourceAttributes, ",
      ),
    );
  }
});

test('compile problems are worded as kube-apiserver words them', () => {
  const { problems } = compileMatchConditions(['test', 'request.usr == "a"', 'request.user', "request.user.matches('(?=a)')", 'request.groups ==']);
  assert.equal(
    problems.map((p) => p.index),
    [0, 1, 2, 3, 4],
  );
  assert.is(problems[0]!.detail, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'test' (in container '')\n | test\n | ^");
  assert.is(problems[1]!.detail, 'compilation failed: ERROR: <input>:1:9: undefined field \'usr\'\n | request.usr == "a"\n | ........^');
  assert.is(problems[2]!.detail, 'must evaluate to bool but got string');
  assert.match(problems[3]!.detail, /^compilation failed: ERROR: <input>:1:22: error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`/);
  assert.match(problems[4]!.detail, /^compilation failed: ERROR: <input>:1:/);
});

test('matches runs on RE2: linear on a catastrophic pattern, RE2 dialect', () => {
  // With JavaScript's backtracking RegExp this input takes exponential time.
  const evil = `${'a'.repeat(5000)}!`;
  assert.is(re2Matches(evil, '^(a+)+$'), false);
  const { conditions } = compileMatchConditions(["request.user.matches('^(a+)+$')"]);
  assert.equal(conditions.evaluate({ user: evil }), { matches: false });
  assert.equal(conditions.evaluate({ user: 'aaaa' }), { matches: true });
  // A pattern only known at run time that RE2 refuses is an evaluation error, not a crash.
  const dynamic = compileMatchConditions(['request.user.matches(request.groups[0])']).conditions;
  const outcome = dynamic.evaluate({ user: 'aa', groups: ['(a)\\1'] });
  assert.ok('error' in outcome && outcome.error.includes('invalid escape sequence'));
});

test('selectors are only filled in when an expression reads them', () => {
  const spec = {
    ...resourceSpec,
    resourceAttributes: { ...resourceSpec.resourceAttributes, labelSelector: { requirements: [{ key: 'app', operator: 'In' as const, values: ['web'] }] } },
  };
  const reading = compileMatchConditions(["request.resourceAttributes.labelSelector.requirements.exists(r, r.key == 'app')"]).conditions;
  assert.ok(reading.usesSelectors);
  assert.equal(reading.evaluate(spec), { matches: true });
  const notReading = compileMatchConditions(["request.user == 'alice'"]).conditions;
  assert.not.ok(notReading.usesSelectors);
});

test.run();
