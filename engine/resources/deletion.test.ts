import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deletionFinalizers, markAsDeleting } from './deletion.ts';

test('the options choose the garbage collector finalizer; other finalizers stay in place', () => {
  assert.equal(deletionFinalizers([], { propagationPolicy: 'Foreground' }), { changed: true, finalizers: ['foregroundDeletion'] });
  assert.equal(deletionFinalizers([], { propagationPolicy: 'Orphan' }), { changed: true, finalizers: ['orphan'] });
  assert.equal(deletionFinalizers([], { orphanDependents: true }), { changed: true, finalizers: ['orphan'] });
  assert.equal(deletionFinalizers([], { orphanDependents: false }), { changed: false, finalizers: [] });
  assert.equal(deletionFinalizers([], { propagationPolicy: 'Background' }), { changed: false, finalizers: [] });
  assert.equal(deletionFinalizers([], {}), { changed: false, finalizers: [] });
  assert.equal(deletionFinalizers(['x', 'orphan'], { propagationPolicy: 'Foreground' }), { changed: true, finalizers: ['x', 'foregroundDeletion'] });
  assert.equal(deletionFinalizers(['orphan', 'x'], { propagationPolicy: 'Background' }), { changed: true, finalizers: ['x'] });
});

test('without options, the finalizer already there decides (the first of the two)', () => {
  assert.equal(deletionFinalizers(['foregroundDeletion', 'x'], {}), { changed: false, finalizers: ['foregroundDeletion', 'x'] });
  assert.equal(deletionFinalizers(['orphan', 'foregroundDeletion'], {}), { changed: true, finalizers: ['orphan'] });
});

test('marking for deletion: timestamp set once, zero grace period, generation bumped at the start only', () => {
  const object = { kind: 'FlowSchema', metadata: { name: 'a', generation: 3 } };
  const marked = markAsDeleting(object, Date.parse('2024-05-01T10:00:00Z'));
  assert.equal(marked.metadata, { name: 'a', generation: 4, deletionTimestamp: '2024-05-01T10:00:00Z', deletionGracePeriodSeconds: 0 });
  const again = markAsDeleting(marked, Date.parse('2024-05-01T11:00:00Z'));
  assert.equal(again.metadata, marked.metadata);
  assert.equal(object.metadata, { name: 'a', generation: 3 });
});

test.run();
