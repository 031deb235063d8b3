import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exactFieldMatch, InterestedWatches, type WatchTarget } from './interested-watches.ts';
import { estimateWork } from './work-estimate.ts';

const t = (verb: string, resource: string, namespace = '', name = '', apiGroup = ''): WatchTarget => ({
  verb,
  apiGroup,
  resource,
  namespace,
  name,
});

test('a write counts watches on the resource, its namespace and the object itself', () => {
  const w = new InterestedWatches();
  w.register(t('watch', 'configmaps')); // all namespaces
  w.register(t('watch', 'configmaps', 'a')); // namespace a
  w.register(t('watch', 'configmaps', 'a'));
  w.register(t('watch', 'configmaps', 'a', 'cm1')); // one object
  w.register(t('watch', 'configmaps', 'b')); // another namespace
  w.register(t('watch', 'configmaps', '', '', 'other.group')); // same resource name, other group
  assert.is(w.countInterested(t('update', 'configmaps', 'a', 'cm1')), 4);
  assert.is(w.countInterested(t('update', 'configmaps', 'a', 'cm2')), 3);
  assert.is(w.countInterested(t('create', 'configmaps', 'b')), 2);
  assert.is(w.countInterested(t('delete', 'secrets', 'a')), 0);
  assert.is(w.size, 6);
});

test('cluster-scoped objects: a watch on one name is matched without a namespace', () => {
  const w = new InterestedWatches();
  w.register(t('watch', 'nodes', '', 'n1'));
  w.register(t('watch', 'nodes'));
  assert.is(w.countInterested(t('patch', 'nodes', '', 'n1')), 2);
  assert.is(w.countInterested(t('patch', 'nodes', '', 'n2')), 1);
});

test('read-only verbs are interested in nothing, and only watches are registered', () => {
  const w = new InterestedWatches();
  w.register(t('watch', 'pods', 'a'));
  w.register(t('list', 'pods', 'a'));
  for (const verb of ['get', 'list', 'watch', 'proxy']) assert.is(w.countInterested(t(verb, 'pods', 'a')), 0, verb);
  assert.is(w.countInterested(t('create', 'pods', 'a')), 1);
});

test('forget and unregister undo a registration exactly once', () => {
  const w = new InterestedWatches();
  const forget = w.register(t('watch', 'pods', 'a'));
  w.register(t('watch', 'pods', 'a'));
  forget();
  forget();
  assert.is(w.countInterested(t('create', 'pods', 'a')), 1);
  w.unregister(t('watch', 'pods', 'a'));
  w.unregister(t('watch', 'pods', 'a'));
  assert.is(w.countInterested(t('create', 'pods', 'a')), 0);
  assert.is(w.size, 0);
});

test('pods watches pinned to one node are not counted (the spec.nodeName index)', () => {
  const w = new InterestedWatches();
  const forget = w.register(t('watch', 'pods'), 'spec.nodeName=node-1');
  w.register(t('watch', 'pods'), 'spec.nodeName==node-2,status.phase=Running');
  w.register(t('watch', 'pods'), 'spec.nodeName!=node-3'); // not an exact match: counted
  w.register(t('watch', 'pods'), 'spec.nodeName='); // empty value: counted
  w.register(t('watch', 'widgets', '', '', 'example.com'), 'spec.nodeName=node-1'); // not pods: counted
  forget();
  assert.is(w.countInterested(t('create', 'pods', 'a')), 2);
  assert.is(w.countInterested(t('create', 'widgets', 'a', '', 'example.com')), 1);
});

test('field selector exact-match parsing honours escapes and rejects malformed selectors', () => {
  assert.is(exactFieldMatch('spec.nodeName=a', 'spec.nodeName'), 'a');
  assert.is(exactFieldMatch('x=1,spec.nodeName==b', 'spec.nodeName'), 'b');
  assert.is(exactFieldMatch('spec.nodeName=a\\,b', 'spec.nodeName'), 'a,b');
  assert.is(exactFieldMatch('spec.nodeName=a=b', 'spec.nodeName'), undefined);
  assert.is(exactFieldMatch('spec.nodeName=a\\x', 'spec.nodeName'), undefined);
  assert.is(exactFieldMatch('nonsense', 'spec.nodeName'), undefined);
  assert.is(exactFieldMatch('', 'spec.nodeName'), undefined);
});

test('with the estimator: 29 interested watches give 3 final seats for 5 ms', () => {
  const w = new InterestedWatches();
  for (let i = 0; i < 29; i++) w.register(t('watch', 'configmaps', 'a'));
  const target = { ...t('update', 'configmaps', 'a', 'cm'), isResourceRequest: true, subresource: '', path: '' };
  const estimate = estimateWork({ requestInfo: target, query: {} }, { objectCount: () => 'error', watchCount: (i) => w.countInterested(i) });
  assert.equal(estimate, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 });
});

// util/flowcontrol/watch_tracker.go getBuiltinIndexes: the index map is keyed by
// RequestInfo.Resource alone, so a `pods` resource of any group (an aggregated or custom one) has it.
test('the pods spec.nodeName index applies to a resource named pods in any group', () => {
  const w = new InterestedWatches();
  w.register(t('watch', 'pods', 'a', '', 'metrics.k8s.io'), 'spec.nodeName=node-1');
  w.register(t('watch', 'pods', 'a', '', 'example.com'), 'spec.nodeName=node-2');
  w.register(t('watch', 'pods', 'a', '', 'example.com'), 'metadata.namespace=a');
  assert.is(w.countInterested(t('update', 'pods', 'a', 'p', 'metrics.k8s.io')), 0);
  assert.is(w.countInterested(t('update', 'pods', 'a', 'p', 'example.com')), 1);
  w.register(t('watch', 'nodes', '', '', 'example.com'), 'spec.nodeName=node-1');
  assert.is(w.countInterested(t('update', 'nodes', '', 'n', 'example.com')), 1, 'other resources have no index');
});

test.run();
