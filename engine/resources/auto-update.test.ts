import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSchema, PriorityLevelConfiguration } from './types.ts';
import { parseGoBool, planBootstrapUpdate, shouldRemoveUnwanted, specEqualish } from './auto-update.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from './bootstrap.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from './defaults.ts';

const KEY = 'apf.kubernetes.io/autoupdate-spec';
const PLC = 'PriorityLevelConfiguration';
const FS = 'FlowSchema';

const byName = <T extends { metadata?: { name?: string } }>(list: T[], name: string): T => list.find((o) => o.metadata?.name === name)!;

/** A stored copy of a bootstrap level: defaulted, with server metadata and the given annotation/generation. */
function storedLevel(bootstrap: PriorityLevelConfiguration, annotation: string | undefined, generation: number): PriorityLevelConfiguration {
  const stored = defaultPriorityLevelConfiguration(bootstrap);
  const annotations: Record<string, string> = { owner: 'ops' };
  if (annotation !== undefined) annotations[KEY] = annotation;
  stored.metadata = { name: bootstrap.metadata!.name!, uid: 'uid-1', resourceVersion: '42', generation, annotations };
  stored.status = { conditions: [] };
  return stored;
}

test('mandatory: a changed spec is always put back, whatever the annotation says', () => {
  const bootstrap = byName(mandatoryPriorityLevels(), 'catch-all');
  const current = storedLevel(bootstrap, 'false', 7);
  current.spec!.limited!.nominalConcurrencyShares = 50;
  const plan = planBootstrapUpdate(PLC, current, bootstrap, { mandatory: true });
  assert.is(plan.action, 'update');
  if (plan.action !== 'update') return;
  assert.equal(plan.object.spec, bootstrap.spec);
  assert.is(plan.object.metadata!.annotations![KEY], 'true');
  assert.is(plan.object.metadata!.annotations!.owner, 'ops', 'other annotations kept');
  assert.is(plan.object.metadata!.uid, 'uid-1');
  assert.is(plan.object.metadata!.resourceVersion, '42');
  assert.equal(plan.object.status, { conditions: [] });
  assert.is(current.spec!.limited!.nominalConcurrencyShares, 50, 'input untouched');
  assert.is(current.metadata!.annotations![KEY], 'false', 'input untouched');
});

test('mandatory: an unchanged spec with annotation "true" needs nothing', () => {
  const bootstrap = byName(mandatoryFlowSchemas(), 'exempt');
  const current: FlowSchema = { ...defaultFlowSchema(bootstrap), metadata: { name: 'exempt', generation: 4, annotations: { [KEY]: 'true' } } };
  assert.equal(planBootstrapUpdate(FS, current, bootstrap, { mandatory: true }), { action: 'none' });
});

test('mandatory: an unchanged spec without the annotation gets only the annotation', () => {
  const bootstrap = byName(mandatoryFlowSchemas(), 'catch-all');
  const current: FlowSchema = { ...defaultFlowSchema(bootstrap), metadata: { name: 'catch-all', generation: 3 } };
  const plan = planBootstrapUpdate(FS, current, bootstrap, { mandatory: true });
  assert.equal(plan, { action: 'update', object: { ...current, metadata: { name: 'catch-all', generation: 3, annotations: { [KEY]: 'true' } } } });
});

test('suggested with annotation "false" is left alone, changed or not', () => {
  const bootstrap = byName(suggestedPriorityLevels(), 'workload-low');
  const changed = storedLevel(bootstrap, 'false', 9);
  changed.spec!.limited!.nominalConcurrencyShares = 1;
  assert.equal(planBootstrapUpdate(PLC, changed, bootstrap, { mandatory: false }), { action: 'none' });
  assert.equal(planBootstrapUpdate(PLC, storedLevel(bootstrap, 'False', 1), bootstrap, { mandatory: false }), { action: 'none' });
});

test('suggested with annotation "true" (any Go spelling) gets its spec back; the annotation text is kept', () => {
  const bootstrap = byName(suggestedPriorityLevels(), 'system');
  const current = storedLevel(bootstrap, '1', 5);
  current.spec!.limited!.lendablePercent = 99;
  const plan = planBootstrapUpdate(PLC, current, bootstrap, { mandatory: false });
  assert.is(plan.action, 'update');
  if (plan.action !== 'update') return;
  assert.is(plan.object.spec!.limited!.lendablePercent, 33);
  assert.is(plan.object.metadata!.annotations![KEY], '1');
});

test("suggested without the annotation at generation 1 is still the server's: spec and annotation updated", () => {
  const bootstrap = byName(suggestedFlowSchemas(), 'service-accounts');
  const current = defaultFlowSchema(bootstrap);
  current.metadata = { name: 'service-accounts', generation: 1 };
  current.spec!.matchingPrecedence = 8000;
  const plan = planBootstrapUpdate(FS, current, bootstrap, { mandatory: false });
  assert.is(plan.action, 'update');
  if (plan.action !== 'update') return;
  assert.is(plan.object.spec!.matchingPrecedence, 9000);
  assert.is(plan.object.metadata!.annotations![KEY], 'true');
});

test('suggested without the annotation after an operator edit (generation > 1): spec kept, annotation set to "false"', () => {
  const bootstrap = byName(suggestedFlowSchemas(), 'service-accounts');
  const current = defaultFlowSchema(bootstrap);
  current.metadata = { name: 'service-accounts', generation: 2 };
  current.spec!.matchingPrecedence = 8000;
  const plan = planBootstrapUpdate(FS, current, bootstrap, { mandatory: false });
  assert.is(plan.action, 'update');
  if (plan.action !== 'update') return;
  assert.is(plan.object.spec!.matchingPrecedence, 8000);
  assert.is(plan.object.metadata!.annotations![KEY], 'false');
});

test('an annotation that is not a Go bool is rewritten', () => {
  const bootstrap = byName(suggestedPriorityLevels(), 'leader-election');
  const fresh = planBootstrapUpdate(PLC, storedLevel(bootstrap, 'yes', 1), bootstrap, { mandatory: false });
  assert.is(fresh.action === 'update' && fresh.object.metadata!.annotations![KEY], 'true');
  const edited = planBootstrapUpdate(PLC, storedLevel(bootstrap, 'yes', 3), bootstrap, { mandatory: false });
  assert.is(edited.action === 'update' && edited.object.metadata!.annotations![KEY], 'false');
  const mandatory = planBootstrapUpdate(PLC, storedLevel(byName(mandatoryPriorityLevels(), 'exempt'), '', 3), byName(mandatoryPriorityLevels(), 'exempt'), {
    mandatory: true,
  });
  assert.is(mandatory.action === 'update' && mandatory.object.metadata!.annotations![KEY], 'true');
});

test('the exempt level keeps tuned nominalConcurrencyShares and lendablePercent', () => {
  const bootstrap = byName(mandatoryPriorityLevels(), 'exempt');
  const tuned = storedLevel(bootstrap, 'true', 6);
  tuned.spec!.exempt = { nominalConcurrencyShares: 40, lendablePercent: 20 };
  assert.equal(planBootstrapUpdate(PLC, tuned, bootstrap, { mandatory: true }), { action: 'none' });
  assert.ok(specEqualish(PLC, bootstrap, tuned));
});

test('the exempt level without spec.exempt, or with another type, is repaired (resetting the exempt fields)', () => {
  const bootstrap = byName(mandatoryPriorityLevels(), 'exempt');
  const missing = storedLevel(bootstrap, 'true', 2);
  delete missing.spec!.exempt;
  const repaired = planBootstrapUpdate(PLC, missing, bootstrap, { mandatory: true });
  assert.is(repaired.action === 'update' && JSON.stringify(repaired.object.spec), JSON.stringify(bootstrap.spec));
  const retyped = storedLevel(bootstrap, 'true', 2);
  retyped.spec = { type: 'Limited', exempt: { nominalConcurrencyShares: 40, lendablePercent: 20 } };
  const reset = planBootstrapUpdate(PLC, retyped, bootstrap, { mandatory: true });
  assert.equal(reset.action === 'update' && reset.object.spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
});

test('specEqualish defaults the bootstrap copy; an explicit 0 is not nil', () => {
  const sparse: PriorityLevelConfiguration = { metadata: { name: 'x' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } };
  const stored = defaultPriorityLevelConfiguration(sparse);
  assert.ok(specEqualish(PLC, sparse, stored));
  assert.not.ok(specEqualish(PLC, sparse, sparse), 'the stored side is not defaulted');
  const zeroBorrow = structuredClone(stored);
  zeroBorrow.spec!.limited!.borrowingLimitPercent = 0;
  assert.not.ok(specEqualish(PLC, sparse, zeroBorrow));
  const nullBorrow = structuredClone(stored);
  nullBorrow.spec!.limited!.borrowingLimitPercent = null;
  assert.ok(specEqualish(PLC, sparse, nullBorrow), 'null and missing are both nil');
  for (const fs of [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]) assert.ok(specEqualish(FS, fs, defaultFlowSchema(fs)), fs.metadata!.name);
});

test('shouldRemoveUnwanted: only server-owned objects whose name is no longer wanted for their kind', () => {
  const plc = (name: string, annotation?: string): PriorityLevelConfiguration => ({
    kind: PLC,
    metadata: { name, ...(annotation === undefined ? {} : { annotations: { [KEY]: annotation } }) },
    spec: { type: 'Limited' },
  });
  assert.ok(shouldRemoveUnwanted(plc('retired-level', 'true')));
  assert.ok(shouldRemoveUnwanted(plc('retired-level', 'T')));
  for (const kept of [plc('retired-level'), plc('retired-level', 'false'), plc('retired-level', 'maybe'), plc('exempt', 'true'), plc('workload-low', 'true')]) {
    assert.not.ok(shouldRemoveUnwanted(kept), JSON.stringify(kept.metadata));
  }
  const schemaNamedLikeALevel: FlowSchema = { kind: FS, metadata: { name: 'system', annotations: { [KEY]: 'true' } }, spec: {} };
  assert.ok(shouldRemoveUnwanted(schemaNamedLikeALevel));
  assert.not.ok(shouldRemoveUnwanted(schemaNamedLikeALevel, PLC), 'an explicit kind wins');
  const shapeOnly: FlowSchema = { metadata: { name: 'probes', annotations: { [KEY]: 'true' } }, spec: { matchingPrecedence: 2 } };
  assert.not.ok(shouldRemoveUnwanted(shapeOnly));
  assert.ok(shouldRemoveUnwanted({ ...shapeOnly, metadata: { name: 'old-probes', annotations: { [KEY]: 'true' } } }));
});

test("parseGoBool accepts exactly strconv.ParseBool's spellings", () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.is(parseGoBool(t), true, t);
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.is(parseGoBool(f), false, f);
  for (const bad of [undefined, '', 'yes', 'tRUE', ' true', 'no', true]) assert.is(parseGoBool(bad), undefined, String(bad));
});

test.run();
