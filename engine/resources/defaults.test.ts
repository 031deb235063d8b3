import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSchema, PriorityLevelConfiguration } from './types.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from './defaults.ts';

const limitedLevel = (limited: object): PriorityLevelConfiguration => ({ metadata: { name: 'x' }, spec: { type: 'Limited', limited } });

test('FlowSchema: matchingPrecedence 0 or absent becomes 1000; any other value is kept', () => {
  const spec = (precedence: number): FlowSchema => ({ spec: { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: precedence } });
  assert.is(defaultFlowSchema(spec(0)).spec?.matchingPrecedence, 1000);
  assert.is(defaultFlowSchema({ spec: { priorityLevelConfiguration: { name: 'p' } } }).spec?.matchingPrecedence, 1000);
  assert.is(defaultFlowSchema({ metadata: { name: 'no-spec' } }).spec?.matchingPrecedence, 1000);
  assert.is(defaultFlowSchema(spec(1)).spec?.matchingPrecedence, 1);
  assert.is(defaultFlowSchema(spec(-5)).spec?.matchingPrecedence, -5);
  assert.is(defaultFlowSchema(spec(10001)).spec?.matchingPrecedence, 10001);
});

test('FlowSchema: nothing else is defaulted (no distinguisher method is invented)', () => {
  const input: FlowSchema = { spec: { matchingPrecedence: 7, priorityLevelConfiguration: { name: 'p' }, rules: [] } };
  assert.equal(defaultFlowSchema(input), input);
});

test('limited nominalConcurrencyShares: nil becomes 30, an explicit 0 is kept', () => {
  assert.is(defaultPriorityLevelConfiguration(limitedLevel({ limitResponse: { type: 'Reject' } })).spec?.limited?.nominalConcurrencyShares, 30);
  assert.is(
    defaultPriorityLevelConfiguration(limitedLevel({ nominalConcurrencyShares: null, limitResponse: { type: 'Reject' } })).spec?.limited
      ?.nominalConcurrencyShares,
    30,
  );
  assert.is(
    defaultPriorityLevelConfiguration(limitedLevel({ nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } })).spec?.limited?.nominalConcurrencyShares,
    0,
  );
  assert.is(
    defaultPriorityLevelConfiguration(limitedLevel({ nominalConcurrencyShares: 7, limitResponse: { type: 'Reject' } })).spec?.limited?.nominalConcurrencyShares,
    7,
  );
});

test('limited lendablePercent: nil becomes 0; borrowingLimitPercent stays nil', () => {
  const out = defaultPriorityLevelConfiguration(limitedLevel({ limitResponse: { type: 'Reject' } })).spec?.limited;
  assert.is(out?.lendablePercent, 0);
  assert.is(out?.borrowingLimitPercent, undefined);
  const kept = defaultPriorityLevelConfiguration(limitedLevel({ lendablePercent: 40, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } })).spec
    ?.limited;
  assert.is(kept?.lendablePercent, 40);
  assert.is(kept?.borrowingLimitPercent, 0);
});

test('queuing zeros become 64 queues, hand size 8, queue length limit 50 — only when queuing is set', () => {
  const zeros = defaultPriorityLevelConfiguration(limitedLevel({ limitResponse: { type: 'Queue', queuing: { queues: 0 } } }));
  assert.equal(zeros.spec?.limited?.limitResponse?.queuing, { queues: 64, handSize: 8, queueLengthLimit: 50 });
  const partial = defaultPriorityLevelConfiguration(
    limitedLevel({ limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 0, queueLengthLimit: 5 } } }),
  );
  assert.equal(partial.spec?.limited?.limitResponse?.queuing, { queues: 16, handSize: 8, queueLengthLimit: 5 });
  const none = defaultPriorityLevelConfiguration(limitedLevel({ limitResponse: { type: 'Queue' } }));
  assert.is(none.spec?.limited?.limitResponse?.queuing, undefined);
  const nulled = defaultPriorityLevelConfiguration(limitedLevel({ limitResponse: { type: 'Queue', queuing: null } }));
  assert.is(nulled.spec?.limited?.limitResponse?.queuing, null);
});

test('exempt: nil fields become 0 when spec.exempt is set; a missing spec.exempt stays missing', () => {
  const set = defaultPriorityLevelConfiguration({ metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: {} } });
  assert.equal(set.spec?.exempt, { nominalConcurrencyShares: 0, lendablePercent: 0 });
  const tuned = defaultPriorityLevelConfiguration({ metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { lendablePercent: 20 } } });
  assert.equal(tuned.spec?.exempt, { nominalConcurrencyShares: 0, lendablePercent: 20 });
  const missing = defaultPriorityLevelConfiguration({ metadata: { name: 'exempt' }, spec: { type: 'Exempt' } });
  assert.equal(missing.spec, { type: 'Exempt' });
});

test('spec.type and limitResponse.type are not defaulted', () => {
  const out = defaultPriorityLevelConfiguration({ metadata: { name: 'x' }, spec: { limited: { limitResponse: {} } } });
  assert.is(out.spec?.type, undefined);
  assert.is(out.spec?.limited?.limitResponse?.type, undefined);
});

test('the input is never mutated: a deep copy comes back', () => {
  const input = limitedLevel({ limitResponse: { type: 'Queue', queuing: {} } });
  const snapshot = structuredClone(input);
  const out = defaultPriorityLevelConfiguration(input);
  assert.equal(input, snapshot);
  assert.is.not(out.spec, input.spec);
  const fs: FlowSchema = { spec: { priorityLevelConfiguration: { name: 'p' } } };
  const fsOut = defaultFlowSchema(fs);
  assert.equal(fs, { spec: { priorityLevelConfiguration: { name: 'p' } } });
  assert.is.not(fsOut.spec, fs.spec);
});

test('defaulting is idempotent', () => {
  const once = defaultPriorityLevelConfiguration(limitedLevel({ limitResponse: { type: 'Queue', queuing: {} } }));
  assert.equal(defaultPriorityLevelConfiguration(once), once);
});

test.run();
