// Compliance suite, part 1: get, create, update (optimistic concurrency, preconditions, no-ops),
// guaranteedUpdate and delete, with kube-apiserver's error texts.

import * as assert from 'uvu/assert';
import type { Test } from 'uvu';
import type { KubeObject } from '../../resources/types.ts';
import { errorFacts, plc, rejects, rvOf, settle, withStore, type SuiteHarness } from './suite-kit.ts';

const failureOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => assert.unreachable('expected a rejection'),
    (error: unknown) => error,
  );

const QR = 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io';

export function crudTests(test: Test, harness: SuiteHarness): void {
  test('create stores the object and sets a resourceVersion; get returns the same', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      const input = { ...plc('alpha', { tier: 'gold' }), extraTopLevel: { kept: [1, 'two', null] } } as KubeObject;
      const created = await plcs.create(input);
      assert.ok(rvOf(created) > 0);
      assert.is(rvOf(created), store.revision());
      assert.equal(created.metadata?.uid, 'uid-alpha');
      assert.equal(created.metadata?.creationTimestamp, '2026-11-21T05:00:00Z');
      assert.equal(created.metadata?.generation, 1);
      assert.equal((created as Record<string, unknown>).extraTopLevel, { kept: [1, 'two', null] });
      assert.equal(await plcs.get('alpha'), created);
      assert.ok(Object.isFrozen(input), 'the store took the written object over');
      const second = await plcs.create(plc('beta'));
      assert.is(rvOf(second), rvOf(created) + 1);
    }));

  test('returned objects are frozen; the written object is taken over and cannot change the store', () =>
    withStore(harness, {}, async ({ plcs }) => {
      const input = plc('alpha', { a: '1' });
      const created = await plcs.create(input);
      for (const change of [
        () => ((input.metadata!.labels as Record<string, string>).a = 'changed'),
        () => (input.metadata!.name = 'renamed'),
        () => ((input as Record<string, unknown>).spec = { type: 'Exempt' }),
      ]) {
        assert.throws(change, 'a written object cannot be changed afterwards');
      }
      assert.equal((await plcs.get('alpha')).metadata?.labels, { a: '1' });
      assert.equal((await plcs.get('alpha')).spec, { type: 'Limited' });
      // Building the next version from the cached one works (its frozen parts are copied, not changed).
      const next = await plcs.update({ ...created, metadata: { ...created.metadata, labels: { a: '2' } } });
      assert.equal(next.metadata?.labels, { a: '2' });
      assert.equal(created.metadata?.labels, { a: '1' });
      const spread = await plcs.update({ ...next, spec: { type: 'Exempt' } });
      assert.is(spread.metadata?.resourceVersion, String(rvOf(next) + 1));
      assert.is(next.metadata?.resourceVersion, String(rvOf(next)), 'the shared metadata was copied, not changed');
      assert.ok(Object.isFrozen(created));
      assert.ok(Object.isFrozen(created.metadata));
      assert.ok(Object.isFrozen(created.metadata?.labels));
      assert.ok(Object.isFrozen(created.spec));
      assert.throws(() => {
        (created.metadata as Record<string, unknown>).name = 'x';
      });
    }));

  test('create of an existing name is AlreadyExists; get of a missing one is NotFound', () =>
    withStore(harness, {}, async ({ plcs }) => {
      await plcs.create(plc('alpha'));
      const exists = await rejects(plcs.create(plc('alpha')), 'FW_ERR_STORE_ALREADY_EXISTS', `${QR} "alpha" already exists`);
      assert.equal(errorFacts(exists), {
        code: 'FW_ERR_STORE_ALREADY_EXISTS',
        message: `${QR} "alpha" already exists`,
        details: { name: 'alpha', group: 'flowcontrol.apiserver.k8s.io', kind: 'prioritylevelconfigurations' },
        continueToken: undefined,
      });
      const missing = await rejects(plcs.get('nosuch'), 'FW_ERR_STORE_NOT_FOUND', `${QR} "nosuch" not found`);
      assert.equal(missing.details, { name: 'nosuch', group: 'flowcontrol.apiserver.k8s.io', kind: 'prioritylevelconfigurations' });
    }));

  test('getNow answers as get without a promise, or undefined when the read must wait first', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      const created = await plcs.create(plc('alpha'));
      // "0" and a reached resourceVersion: any backend answers from the cache at once.
      assert.equal(plcs.getNow('alpha', '0'), created);
      assert.equal(plcs.getNow('alpha', String(rvOf(created))), created);
      // A consistent read waits unless the backend knows its revision without being asked.
      const consistent = plcs.getNow('alpha');
      if (consistent !== undefined) assert.equal(consistent, created);
      assert.is(plcs.getNow('alpha', String(store.revision() + 1)), undefined, 'a resourceVersion the cache has not reached');
      // What get would reject with, thrown.
      const thrown = async (read: () => unknown): Promise<unknown> => read();
      const missing = await rejects(
        thrown(() => plcs.getNow('nosuch', '0')),
        'FW_ERR_STORE_NOT_FOUND',
        `${QR} "nosuch" not found`,
      );
      assert.equal(errorFacts(missing), errorFacts(await rejects(plcs.get('nosuch'), 'FW_ERR_STORE_NOT_FOUND')));
      const badName = await rejects(plcs.get('a/b'), 'FW_ERR_STORE_BAD_NAME');
      await rejects(
        thrown(() => plcs.getNow('a/b', '0')),
        'FW_ERR_STORE_BAD_NAME',
        badName.message,
      );
    }));

  test('create refuses a resourceVersion and bad names', () =>
    withStore(harness, {}, async ({ plcs }) => {
      const withRv = plc('alpha');
      withRv.metadata!.resourceVersion = '7';
      await rejects(plcs.create(withRv), 'FW_ERR_STORE_RESOURCE_VERSION_ON_CREATE', /resourceVersion should not be set on objects to be created/);
      await rejects(plcs.create(plc('')), 'FW_ERR_STORE_BAD_NAME', 'Name parameter required.');
      await rejects(plcs.create(plc('a/b')), 'FW_ERR_STORE_BAD_NAME', `Name parameter invalid: "a/b": may not contain '/'`);
      await rejects(plcs.get('..'), 'FW_ERR_STORE_BAD_NAME', `Name parameter invalid: "..": may not be '..'`);
      await rejects(plcs.get('50%/x'), 'FW_ERR_STORE_BAD_NAME', `Name parameter invalid: "50%/x": may not contain '/';may not contain '%'`);
    }));

  test('update with the current resourceVersion writes; a stale one is a Conflict; none is unconditional', () =>
    withStore(harness, {}, async ({ plcs }) => {
      const v1 = await plcs.create(plc('alpha'));
      const v2 = await plcs.update({ ...v1, spec: { type: 'Exempt' } });
      assert.is(rvOf(v2), rvOf(v1) + 1);
      assert.equal(v2.spec, { type: 'Exempt' });
      const stale = await rejects(
        plcs.update({ ...v1, spec: { type: 'Limited', note: 'stale' } }),
        'FW_ERR_STORE_CONFLICT',
        `Operation cannot be fulfilled on ${QR} "alpha": the object has been modified; please apply your changes to the latest version and try again`,
      );
      assert.equal(stale.details, { name: 'alpha', group: 'flowcontrol.apiserver.k8s.io', kind: 'prioritylevelconfigurations' });
      const { resourceVersion: _rv, ...metaWithout } = v2.metadata!;
      const v3 = await plcs.update({ ...v2, metadata: metaWithout, spec: { type: 'Limited' } });
      assert.is(rvOf(v3), rvOf(v2) + 1);
      await rejects(plcs.update(plc('nosuch')), 'FW_ERR_STORE_NOT_FOUND', `${QR} "nosuch" not found`);
      await rejects(plcs.update({ ...v3, metadata: { ...v3.metadata, resourceVersion: 'abc' } }), 'FW_ERR_STORE_INVALID_RESOURCE_VERSION');
    }));

  test('an update that changes nothing keeps the resourceVersion', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      const v1 = await plcs.create(plc('alpha'));
      const before = store.revision();
      const same = await plcs.update(v1);
      assert.is(rvOf(same), rvOf(v1));
      assert.is(store.revision(), before);
    }));

  test('preconditions on uid and resourceVersion fail as Conflict with the storage error text', () =>
    withStore(harness, {}, async ({ plcs }) => {
      const v1 = await plcs.create(plc('alpha'));
      const key = '/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/alpha';
      await rejects(
        plcs.update({ ...v1, spec: { type: 'Exempt' } }, { preconditions: { uid: 'other' } }),
        'FW_ERR_STORE_PRECONDITION_FAILED',
        `Operation cannot be fulfilled on ${QR} "alpha": StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ` +
          'Precondition failed: UID in precondition: other, UID in object meta: uid-alpha',
      );
      await rejects(
        plcs.delete('alpha', { preconditions: { resourceVersion: '1234' } }),
        'FW_ERR_STORE_PRECONDITION_FAILED',
        /Precondition failed: ResourceVersion in precondition: 1234, ResourceVersion in object meta: \d+$/,
      );
      const ok = await plcs.update(
        { ...v1, spec: { type: 'Exempt' } },
        { preconditions: { uid: 'uid-alpha', resourceVersion: v1.metadata!.resourceVersion! } },
      );
      assert.is(rvOf(ok), rvOf(v1) + 1);
    }));

  test('concurrent guaranteedUpdates of one object take turns: no update is lost and each is computed once', () =>
    withStore(harness, {}, async ({ plcs }) => {
      await plcs.create(plc('counter', undefined, { count: 0 }));
      let computed = 0;
      const bump = () =>
        plcs.guaranteedUpdate('counter', (current) => {
          computed++;
          return { ...current, spec: { count: (current.spec as { count: number }).count + 1 } };
        });
      await Promise.all(Array.from({ length: 12 }, bump));
      assert.equal((await plcs.get('counter')).spec, { count: 12 });
      // Racing optimistically, the 12 would compute 78 updates (12 + 11 + ... + 1) between them.
      assert.is(computed, 12);
      await rejects(
        plcs.guaranteedUpdate('nosuch', (c) => c),
        'FW_ERR_STORE_NOT_FOUND',
      );
      await rejects(
        plcs.guaranteedUpdate('counter', (c) => ({ ...c, metadata: { ...c.metadata, name: 'other' } })),
        'FW_ERR_STORE_BAD_NAME',
        'the name of the object (other) does not match the name on the URL (counter)',
      );
    }));

  test('a write over the request limit is refused as etcd refuses it, and nothing is written', () =>
    withStore(harness, { maxRequestBytes: 4096 }, async ({ plcs, store }) => {
      const big = 'x'.repeat(4096);
      await rejects(plcs.create(plc('large', { big })), 'FW_ERR_STORE_REQUEST_TOO_LARGE', 'etcdserver: request is too large');
      await rejects(plcs.get('large'), 'FW_ERR_STORE_NOT_FOUND');
      const small = await plcs.create(plc('small'));
      const revision = store.revision();
      await rejects(
        plcs.guaranteedUpdate('small', (current) => ({ ...current, metadata: { ...current.metadata, labels: { big } } })),
        'FW_ERR_STORE_REQUEST_TOO_LARGE',
      );
      assert.equal(await plcs.get('small'), small);
      assert.is(store.revision(), revision);
    }));

  test('an update whose signal has aborted is not written, nor is one waiting its turn', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      const v1 = await plcs.create(plc('alpha'));
      const aborted = AbortSignal.abort();
      assert.is(await failureOf(plcs.guaranteedUpdate('alpha', (c) => ({ ...c, spec: { type: 'Exempt' } }), { signal: aborted })), aborted.reason);
      let release!: () => void;
      const holding = plcs.guaranteedUpdate('alpha', async (c) => {
        await new Promise<void>((resolve) => (release = resolve));
        return c;
      });
      const controller = new AbortController();
      const waiting = plcs.guaranteedUpdate('alpha', (c) => ({ ...c, spec: { type: 'Exempt' } }), { signal: controller.signal });
      await settle();
      controller.abort();
      assert.is(await failureOf(waiting), controller.signal.reason);
      release();
      await holding;
      assert.equal(await plcs.get('alpha'), v1);
      assert.is(store.revision(), rvOf(v1));
    }));

  test('delete returns the last state at the deletion resourceVersion; then the object is gone', () =>
    withStore(harness, {}, async ({ plcs, store }) => {
      const v1 = await plcs.create(plc('alpha', { tier: 'gold' }));
      const deleted = await plcs.delete('alpha', { preconditions: { uid: 'uid-alpha' } });
      assert.is(rvOf(deleted), rvOf(v1) + 1);
      assert.is(rvOf(deleted), store.revision());
      assert.equal(deleted.metadata?.labels, { tier: 'gold' });
      await rejects(plcs.get('alpha'), 'FW_ERR_STORE_NOT_FOUND');
      await rejects(plcs.delete('alpha'), 'FW_ERR_STORE_NOT_FOUND', `${QR} "alpha" not found`);
      const again = await plcs.create(plc('alpha'));
      assert.is(rvOf(again), rvOf(deleted) + 1);
    }));

  test('resources are separate, and share one revision sequence', () =>
    withStore(harness, {}, async ({ plcs, flowschemas }) => {
      const a = await plcs.create(plc('same'));
      const b = await flowschemas.create({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'same' } });
      assert.is(rvOf(b), rvOf(a) + 1);
      assert.is((await plcs.get('same')).kind, 'PriorityLevelConfiguration');
      assert.is((await flowschemas.get('same')).kind, 'FlowSchema');
      await flowschemas.delete('same');
      assert.is((await plcs.get('same')).metadata?.name, 'same');
    }));
}
