// Compliance suite, part 2: list — resourceVersion semantics, paging over one snapshot, continue
// token expiry, selectors, option validation.

import * as assert from 'uvu/assert';
import type { Test } from 'uvu';
import { objectJsonBytes } from '../cached-object.ts';
import { encodeContinueToken } from '../continue-token.ts';
import { CONTINUE_INCONSISTENT_MESSAGE } from '../store-errors.ts';
import { namesOf, plc, probe, rejects, rvOf, settle, summary, withStore, type SuiteHarness } from './suite-kit.ts';

export function listTests(test: Test, harness: SuiteHarness): void {
  test('list returns items in key order at a resourceVersion that is the latest revision', () =>
    withStore(harness, {}, async ({ plcs, flowschemas, store }) => {
      for (const name of ['delta', 'alpha', 'charlie', 'bravo']) await plcs.create(plc(name));
      await flowschemas.create({ kind: 'FlowSchema', metadata: { name: 'zulu' } });
      const list = await plcs.list();
      assert.equal(namesOf(list.items), ['alpha', 'bravo', 'charlie', 'delta']);
      assert.is(list.resourceVersion, String(store.revision()));
      assert.is(list.continue, undefined);
      assert.is(list.remainingItemCount, undefined);
      assert.equal(
        list.forms.map((f) => f.object),
        list.items,
      );
      assert.equal(
        list.forms.map((f) => objectJsonBytes(f).toString()),
        list.items.map((o) => JSON.stringify(o)),
      );
      assert.equal(namesOf((await plcs.list({ resourceVersion: '0' })).items), ['alpha', 'bravo', 'charlie', 'delta']);
    }));

  test('pages keep serving the snapshot of the first page, with remainingItemCount', () =>
    withStore(harness, {}, async ({ plcs }) => {
      for (const name of ['a', 'b', 'c', 'd', 'e']) await plcs.create(plc(name));
      const first = await plcs.list({ limit: 2 });
      assert.equal(namesOf(first.items), ['a', 'b']);
      assert.is(first.remainingItemCount, 3);
      assert.ok(first.continue);
      const decoded = JSON.parse(Buffer.from(first.continue!, 'base64url').toString('utf8'));
      assert.equal(decoded, { v: 'meta.k8s.io/v1', rv: Number(first.resourceVersion), start: 'b\u0000' });
      // Changes after the first page are not visible in later pages.
      await plcs.delete('c');
      await plcs.create(plc('bb'));
      await plcs.update({ ...(await plcs.get('d')), spec: { type: 'Exempt' } });
      const second = await plcs.list({ limit: 2, continue: first.continue! });
      assert.equal(namesOf(second.items), ['c', 'd']);
      assert.equal(second.items[1]!.spec, { type: 'Limited' });
      assert.is(second.resourceVersion, first.resourceVersion);
      assert.is(second.remainingItemCount, 1);
      const third = await plcs.list({ limit: 2, continue: second.continue! });
      assert.equal(namesOf(third.items), ['e']);
      assert.is(third.continue, undefined);
      assert.is(third.remainingItemCount, undefined);
      // A fresh list sees the changes.
      assert.equal(namesOf((await plcs.list()).items), ['a', 'b', 'bb', 'd', 'e']);
    }));

  test('a continue token expires (410) once its snapshot leaves the window by count or by age', () =>
    withStore(harness, { windowCapacity: 3, windowMaxAgeMs: 60_000 }, async ({ plcs, clock }) => {
      for (const name of ['a', 'b', 'c']) await plcs.create(plc(name));
      const first = await plcs.list({ limit: 1 });
      for (const name of ['d', 'e', 'f', 'g']) await plcs.create(plc(name)); // pushes the window past the snapshot
      const expired = await rejects(plcs.list({ limit: 1, continue: first.continue! }), 'FW_ERR_STORE_CONTINUE_EXPIRED', CONTINUE_INCONSISTENT_MESSAGE);
      assert.is(expired.details, undefined);
      const fresh = expired.continueToken!;
      assert.equal(JSON.parse(Buffer.from(fresh, 'base64url').toString('utf8')), { v: 'meta.k8s.io/v1', rv: -1, start: 'a\u0000' });
      // The fresh token continues at the latest state, after the same name.
      const rest = await plcs.list({ continue: fresh });
      assert.equal(namesOf(rest.items), ['b', 'c', 'd', 'e', 'f', 'g']);

      // By age: a token stays valid while its snapshot is in the window, then expires.
      const page = await plcs.list({ limit: 1 });
      await plcs.create(plc('h'));
      clock.advance(30_000);
      assert.equal(namesOf((await plcs.list({ limit: 1, continue: page.continue! })).items), ['b']);
      clock.advance(30_001);
      await rejects(plcs.list({ limit: 1, continue: page.continue! }), 'FW_ERR_STORE_CONTINUE_EXPIRED');
    }));

  test('malformed continue tokens and continue with a resourceVersion are BadRequest', () =>
    withStore(harness, {}, async ({ plcs }) => {
      await rejects(
        plcs.list({ continue: '!!!' }),
        'FW_ERR_STORE_BAD_CONTINUE',
        /^invalid continue token: continue key is not valid: illegal base64 data at input byte 0$/,
      );
      await rejects(
        plcs.list({ continue: encodeContinueToken('a\u0000', 0) }),
        'FW_ERR_STORE_BAD_CONTINUE',
        'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      );
      await rejects(
        plcs.list({ continue: encodeContinueToken('../x', 5) }),
        'FW_ERR_STORE_BAD_CONTINUE',
        'invalid continue token: continue key is not valid: ../x',
      );
      await rejects(
        plcs.list({ continue: encodeContinueToken('a', 5), resourceVersion: '5' }),
        'FW_ERR_STORE_BAD_CONTINUE',
        'specifying resource version is not allowed when using continue',
      );
    }));

  test('resourceVersion N waits until the store reaches N, and times out as Too large resource version', () =>
    withStore(harness, {}, async ({ plcs, store, clock }) => {
      await plcs.create(plc('a'));
      const target = store.revision() + 1;
      let served: string | undefined;
      const waiting = plcs.list({ resourceVersion: String(target) }).then((l) => (served = l.resourceVersion));
      await settle();
      assert.is(served, undefined);
      await plcs.create(plc('b'));
      await waiting;
      assert.is(served, String(target));
      const tooLarge = plcs.get('a', { resourceVersion: String(target + 10) });
      await settle();
      clock.advance(3_000);
      const error = await rejects(
        tooLarge,
        'FW_ERR_STORE_TOO_LARGE_RESOURCE_VERSION',
        `Timeout: Too large resource version: ${target + 10}, current: ${target}`,
      );
      assert.equal(error.details, { retryAfterSeconds: 1 });
    }));

  test('an Exact list serves an older state; one older than the window is Expired', () =>
    withStore(harness, { windowCapacity: 3 }, async ({ plcs }) => {
      const a = await plcs.create(plc('a'));
      await plcs.create(plc('b'));
      await plcs.update({ ...a, spec: { type: 'Exempt' } });
      const exact = await plcs.list({ resourceVersion: a.metadata!.resourceVersion!, resourceVersionMatch: 'Exact' });
      assert.equal(namesOf(exact.items), ['a']);
      assert.equal(exact.items[0]!.spec, { type: 'Limited' });
      assert.is(exact.resourceVersion, a.metadata!.resourceVersion);
      for (const name of ['c', 'd', 'e']) await plcs.create(plc(name));
      await rejects(
        plcs.list({ resourceVersion: a.metadata!.resourceVersion!, resourceVersionMatch: 'Exact' }),
        'FW_ERR_STORE_EXPIRED',
        'The resourceVersion for the provided list is too old.',
      );
      const notOlder = await plcs.list({ resourceVersion: a.metadata!.resourceVersion!, resourceVersionMatch: 'NotOlderThan' });
      assert.equal(namesOf(notOlder.items), ['a', 'b', 'c', 'd', 'e']);
    }));

  test('list options are validated with the ListOptions messages; bad resourceVersions fail', () =>
    withStore(harness, {}, async ({ plcs }) => {
      const invalid = await rejects(
        plcs.list({ resourceVersionMatch: 'Exact' }),
        'FW_ERR_STORE_INVALID_LIST_OPTIONS',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      );
      assert.equal(invalid.details, {
        name: '',
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        causes: [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
            field: 'resourceVersionMatch',
          },
        ],
      });
      await rejects(
        plcs.list({ resourceVersion: '0', resourceVersionMatch: 'Exact' }),
        'FW_ERR_STORE_INVALID_LIST_OPTIONS',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      );
      await rejects(
        plcs.list({ resourceVersion: '1', resourceVersionMatch: 'Sometimes' }),
        'FW_ERR_STORE_INVALID_LIST_OPTIONS',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""',
      );
      await rejects(
        plcs.list({ sendInitialEvents: true }),
        'FW_ERR_STORE_INVALID_LIST_OPTIONS',
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
      );
      const bad = await rejects(
        plcs.list({ resourceVersion: 'abc' }),
        'FW_ERR_STORE_INVALID_RESOURCE_VERSION',
        'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
      );
      assert.is(bad.details, undefined);
      await rejects(plcs.get('a', { resourceVersion: '-1' }), 'FW_ERR_STORE_INVALID_RESOURCE_VERSION');
    }));

  test('label selectors support =, ==, !=, in, notin, exists, !key and integer comparisons', () =>
    withStore(harness, {}, async ({ plcs }) => {
      await plcs.create(plc('a', { tier: 'gold', n: '5' }));
      await plcs.create(plc('b', { tier: 'silver' }));
      await plcs.create(plc('c', { tier: 'bronze', x: 'y' }));
      await plcs.create(plc('d'));
      const names = async (labelSelector: string) => namesOf((await plcs.list({ labelSelector })).items);
      assert.equal(await names('tier=gold'), ['a']);
      assert.equal(await names('tier==silver'), ['b']);
      assert.equal(await names('tier!=gold'), ['b', 'c', 'd']);
      assert.equal(await names('tier in (gold,silver)'), ['a', 'b']);
      assert.equal(await names('tier notin (gold,silver)'), ['c', 'd']);
      assert.equal(await names('tier'), ['a', 'b', 'c']);
      assert.equal(await names('!tier'), ['d']);
      assert.equal(await names('tier,!x'), ['a', 'b']);
      assert.equal(await names('n>4'), ['a']);
      assert.equal(await names('n<5'), []);
      const paged = await plcs.list({ labelSelector: 'tier', limit: 1 });
      assert.equal(namesOf(paged.items), ['a']);
      assert.ok(paged.continue);
      assert.is(paged.remainingItemCount, undefined, 'no remainingItemCount for a filtered list');
      await rejects(plcs.list({ labelSelector: 'tier in gold' }), 'FW_ERR_STORE_BAD_LABEL_SELECTOR', "unable to parse requirement: found 'gold' expected: '('");
    }));

  test('field selectors on metadata.name and metadata.namespace; other fields are BadRequest', () =>
    withStore(harness, {}, async ({ plcs }) => {
      for (const name of ['a', 'b', 'c']) await plcs.create(plc(name));
      assert.equal(namesOf((await plcs.list({ fieldSelector: 'metadata.name=b' })).items), ['b']);
      assert.equal(namesOf((await plcs.list({ fieldSelector: 'metadata.name!=b' })).items), ['a', 'c']);
      assert.equal(namesOf((await plcs.list({ fieldSelector: 'metadata.namespace=' })).items), ['a', 'b', 'c']);
      assert.equal(namesOf((await plcs.list({ fieldSelector: 'metadata.namespace=default' })).items), []);
      await rejects(
        plcs.list({ fieldSelector: 'spec.type=Limited' }),
        'FW_ERR_STORE_BAD_FIELD_SELECTOR',
        '"spec.type" is not a known field selector: only "metadata.name", "metadata.namespace"',
      );
    }));

  test('the resourceVersion of a list can always be watched from, even after the window moves on', () =>
    withStore(harness, { windowCapacity: 2, windowMaxAgeMs: 1_000 }, async ({ plcs, flowschemas, clock, store }) => {
      const base = store.revision(); // 0 on a fresh location; a shared etcd is further on
      for (const name of ['a', 'b', 'c', 'd']) await plcs.create(plc(name));
      await flowschemas.create({ kind: 'FlowSchema', metadata: { name: 'f' } });
      clock.advance(10_000);
      const list = await plcs.list();
      assert.is(rvOf({ metadata: { resourceVersion: list.resourceVersion } }), base + 5);
      const watcher = probe(await plcs.watch({ resourceVersion: list.resourceVersion }));
      await watcher.quiet(); // open and waiting, not an ERROR
      await plcs.create(plc('e'));
      assert.equal((await watcher.take(1)).map(summary), [`ADDED e@${base + 6}`]);
      watcher.watcher.stop();
    }));
}
