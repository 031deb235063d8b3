// The commands of the store model run (fc.commands), weighted: writes (store-writes.ts) dominate,
// and every kind of read, informer sync and reopen (store-reads.ts) recurs. Each command performs
// an operation on the real store, computes from the model what the result must be (the object,
// its resourceVersion, or the StoreError code), checks it, and only then updates the model.

import fc from 'fast-check';
import { BAD_NAMES, NAMES, type Command, type NameRef } from './store-command-kit.ts';
import { KINDS, SELECTORS, type Labels } from './store-model.ts';
import { ContinuePaging, Get, ListAll, ListExact, Reopen, StartInformer, StartPaging, SyncInformers, WatchFrom } from './store-reads.ts';
import type { InformerMode } from './store-real.ts';
import { Create, Delete, GuaranteedUpdate, Update, type PreconditionMode, type RvMode } from './store-writes.ts';

const kind = fc.constantFrom(...KINDS);
const name = fc.oneof({ arbitrary: fc.constantFrom(...NAMES), weight: 12 }, { arbitrary: fc.constantFrom(...BAD_NAMES), weight: 1 });
const existing = fc.nat({ max: 7 }).map((k): NameRef => ({ existing: k }));
/** Mostly an existing object, sometimes any name (usually a NotFound). */
const target = fc.oneof({ arbitrary: existing, weight: 3 }, { arbitrary: fc.constantFrom<NameRef>(...NAMES), weight: 1 });
const labels = fc.constantFrom<Labels | undefined>(undefined, { tier: 'a' }, { tier: 'b' }, { tier: 'c' }, { tier: 'a', x: '1' });
const value = fc.integer({ min: 0, max: 3 });
const precondition = fc.constantFrom<PreconditionMode>('none', 'none', 'uid-ok', 'uid-wrong', 'rv-ok', 'rv-wrong');
const selector = fc.integer({ min: 0, max: SELECTORS.length - 1 });
/** For paged lists: often everything, so that pages are many (a narrow selector rarely needs a second page). */
const pagedSelector = fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: selector, weight: 1 });
/** Small page sizes make many pages; 0 (no limit) still occurs. */
const pageLimit = fc.constantFrom(0, 1, 1, 2, 2, 3);
const fraction = fc.noBias(fc.integer({ min: 0, max: 1000 })).map((n) => n / 1000);

/** Every command, weighted so that writes dominate and each kind of read recurs. */
export function storeCommands(maxCommands: number): fc.Arbitrary<Iterable<Command>> {
  const create = fc.tuple(kind, name, labels, value).map(([k, n, l, v]) => new Create(k, n, l, v));
  const update = fc
    .tuple(kind, target, labels, value, fc.constantFrom<RvMode>('unset', 'current', 'current', 'stale', 'garbage'), fc.boolean())
    .map(([k, n, l, v, rv, u]) => new Update(k, n, l, v, rv, u));
  const guaranteedUpdate = fc.tuple(kind, target, labels, value, precondition).map(([k, n, l, v, p]) => new GuaranteedUpdate(k, n, l, v, p));
  const remove = fc
    .tuple(kind, fc.oneof({ arbitrary: target, weight: 10 }, { arbitrary: fc.constantFrom<NameRef>(...BAD_NAMES), weight: 1 }), precondition)
    .map(([k, n, p]) => new Delete(k, n, p));
  const writes = [create, create, create, update, update, guaranteedUpdate, guaranteedUpdate, remove];
  const reads = [
    fc.tuple(kind, name, fc.constantFrom<'' | '0' | 'N'>('', '0', 'N'), fraction).map(([k, n, rv, at]) => new Get(k, n, rv, at)),
    fc.tuple(kind, pagedSelector, pageLimit).map(([k, s, l]) => new ListAll(k, s, l)),
    fc.tuple(kind, pagedSelector, fc.integer({ min: 1, max: 2 })).map(([k, s, l]) => new StartPaging(k, s, l)),
    fc.constant(new ContinuePaging()),
    fc.constant(new ContinuePaging()),
    fc.tuple(kind, selector, fraction).map(([k, s, at]) => new ListExact(k, s, at)),
    fc.tuple(kind, selector, fraction).map(([k, s, at]) => new WatchFrom(k, s, at)),
    fc.tuple(kind, selector, fc.constantFrom<InformerMode>('list-watch', 'watch-list')).map(([k, s, mode]) => new StartInformer(k, s, mode)),
    fc.constant(new SyncInformers()),
  ];
  return fc.commands([...writes, ...writes, ...reads, fc.constant(new Reopen())], { maxCommands, size: 'max' });
}
