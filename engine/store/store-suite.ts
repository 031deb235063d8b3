// The compliance suite every backend runs (Level's rule: one suite, gated by the backend's
// capabilities manifest). A backend's test file builds a harness and calls `storeSuite` with a uvu
// suite, then runs it:
//
//   const test = suite('memory backend');
//   storeSuite(test, memoryHarness);
//   test.run();
//
// Everything runs on a SimClock, so time-dependent behaviour (event-window age, bookmarks, watch
// timeouts, waits for future resource versions) is deterministic.

import type { Test } from 'uvu';
import { crudTests } from './testing/suite-crud.ts';
import { lifecycleTests } from './testing/suite-lifecycle.ts';
import { listTests } from './testing/suite-list.ts';
import { watchTests } from './testing/suite-watch.ts';
import type { SuiteHarness } from './testing/suite-kit.ts';

export type { SuiteHarness, SuiteLocation } from './testing/suite-kit.ts';

export async function storeSuite(test: Test, harness: SuiteHarness): Promise<void> {
  const probe = await harness.location();
  const manifest = probe.backend().manifest;
  await probe.cleanup();
  crudTests(test, harness);
  listTests(test, harness);
  watchTests(test, harness);
  lifecycleTests(test, harness, manifest);
}
