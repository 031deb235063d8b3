import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PriorityLevelConfiguration, PriorityLevelConfigurationSpec, QueuingConfiguration } from './types.ts';
import type { FieldError } from './field-errors.ts';
import { formatFieldError } from './field-errors.ts';
import { requiredEntropyBits } from '../shuffle-sharding.ts';
import {
  validatePriorityLevelConfiguration,
  validatePriorityLevelConfigurationStatusUpdate,
  validatePriorityLevelConfigurationUpdate,
} from './priority-level-validation.ts';
import { defaultPriorityLevelConfiguration } from './defaults.ts';
import { mandatoryPriorityLevels } from './bootstrap.ts';

const level = (spec: PriorityLevelConfigurationSpec, name = 'system-foo'): PriorityLevelConfiguration => ({ metadata: { name }, spec });
const limited = (fields: Record<string, unknown> = {}, name = 'system-foo'): PriorityLevelConfiguration =>
  level(
    {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 100,
        lendablePercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 512, handSize: 4, queueLengthLimit: 100 } },
        ...fields,
      },
    },
    name,
  );
const queuing = (q: QueuingConfiguration): PriorityLevelConfiguration => limited({ limitResponse: { type: 'Queue', queuing: q } });

const lines = (errors: FieldError[]): string[] => errors.map(formatFieldError);
const check = (plc: PriorityLevelConfiguration): string[] => lines(validatePriorityLevelConfiguration(plc));
const triples = (errors: FieldError[]): [string, string, string][] => errors.map((e) => [e.field, e.type, e.detail]);
const Q = 'spec.limited.limitResponse.queuing';

test('a well-formed limited level passes, also after defaulting', () => {
  assert.equal(check(limited()), []);
  assert.equal(check(limited({ limitResponse: { type: 'Reject' } })), []);
  assert.equal(check(defaultPriorityLevelConfiguration(level({ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }))), []);
});

test('P0: the v1beta3 preserve-zero annotation is forbidden', () => {
  const plc = limited();
  plc.metadata!.annotations = { 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares': '' };
  assert.equal(check(plc), ["metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden"]);
  plc.metadata!.annotations = { 'apf.kubernetes.io/autoupdate-spec': 'false' };
  assert.equal(check(plc), []);
});

test('P1: type Exempt if and only if the name is exempt', () => {
  assert.equal(check(level({ type: 'Exempt' }, 'not-exempt')), ["spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]);
  const badSpec = { type: 'Limited', limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } };
  assert.equal(triples(validatePriorityLevelConfiguration(level(badSpec, 'exempt'))), [
    ['spec.type', 'FieldValueInvalid', "type must be 'Exempt' if and only if name is 'exempt'"],
    ['spec', 'FieldValueInvalid', "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"],
  ]);
});

test('P2: an Exempt level has no limited section', () => {
  const spec = { type: 'Exempt', exempt: {}, limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } };
  assert.equal(triples(validatePriorityLevelConfiguration(level(spec, 'exempt'))), [
    ['spec.limited', 'FieldValueForbidden', 'must be nil if the type is not Limited'],
    ['spec', 'FieldValueInvalid', "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"],
  ]);
});

test('P3–P4: the exempt section of the exempt level, which operators may tune', () => {
  assert.equal(check(level({ type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 10 } }, 'exempt')), []);
  assert.equal(check(level({ type: 'Exempt', exempt: { nominalConcurrencyShares: -1, lendablePercent: 101 } }, 'exempt')), [
    'spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
    'spec.exempt.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
  ]);
  assert.equal(check(level({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: -1 } }, 'exempt')), [
    'spec.exempt.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive',
  ]);
  // Without spec.exempt there is nothing to check, and the fixed part still matches.
  assert.equal(check(level({ type: 'Exempt' }, 'exempt')), []);
});

test('P5–P6: a Limited level has a limited section and no exempt one', () => {
  assert.equal(check(level({ type: 'Limited', exempt: {} }, 'broken-limited')), [
    'spec.exempt: Forbidden: must be nil if the type is Limited',
    'spec.limited: Required value: must not be empty when type is Limited',
  ]);
  assert.equal(check(level({ type: 'Limited' }, 'broken-limited')), ['spec.limited: Required value: must not be empty when type is Limited']);
});

test('P7: an unknown type', () => {
  assert.equal(check(level({ type: 'Unlimited' })), ['spec.type: Unsupported value: "Unlimited": supported values: "Exempt", "Limited"']);
  assert.equal(check(level({})), ['spec.type: Unsupported value: "": supported values: "Exempt", "Limited"']);
});

test('L1: limited nominalConcurrencyShares may be zero (v1.30+) but not negative', () => {
  assert.equal(check(limited({ nominalConcurrencyShares: 0 })), []);
  assert.equal(check(limited({ nominalConcurrencyShares: -1 })), ['spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer']);
});

test('L2: limited lendablePercent within [0, 100]', () => {
  for (const ok of [0, 100, null]) assert.equal(check(limited({ lendablePercent: ok })), [], String(ok));
  assert.equal(check(limited({ lendablePercent: 101 })), ['spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive']);
  assert.equal(check(limited({ lendablePercent: -1 })), ['spec.limited.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive']);
});

test('L3: borrowingLimitPercent is any non-negative value, 0 and above 100 included', () => {
  for (const ok of [0, 100, 500, null]) assert.equal(check(limited({ borrowingLimitPercent: ok })), [], String(ok));
  assert.equal(check(limited({ borrowingLimitPercent: -1 })), [
    'spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer',
  ]);
});

test("LR1–LR3: the limit response union, with Kubernetes' own wording", () => {
  assert.equal(check(limited({ limitResponse: { type: 'Reject', queuing: { queues: 512, handSize: 4, queueLengthLimit: 100 } } })), [
    `${Q}: Forbidden: must be nil if limited.limitResponse.type is not Limited`,
  ]);
  assert.equal(check(limited({ limitResponse: { type: 'Queue' } })), [`${Q}: Required value: must not be empty if limited.limitResponse.type is Limited`]);
  assert.equal(check(limited({ limitResponse: { type: 'Drop' } })), [
    'spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"',
  ]);
});

test('Q1: queueLengthLimit must be positive', () => {
  assert.equal(check(queuing({ queues: 64, handSize: 8, queueLengthLimit: 1 })), []);
  assert.equal(check(queuing({ queues: 64, handSize: 8, queueLengthLimit: -1 })), [`${Q}.queueLengthLimit: Invalid value: -1: must be positive`]);
  assert.equal(check(queuing({ queues: 64, handSize: 8, queueLengthLimit: 0 })), [`${Q}.queueLengthLimit: Invalid value: 0: must be positive`]);
});

test('Q2–Q3: queues in [1, 10^7]', () => {
  assert.equal(check(queuing({ queues: 1, handSize: 1, queueLengthLimit: 50 })), []);
  assert.equal(check(queuing({ queues: -1, handSize: 1, queueLengthLimit: 50 })), [
    `${Q}.queues: Invalid value: -1: must be positive`,
    `${Q}.handSize: Invalid value: 1: should not be greater than queues (-1)`,
  ]);
  assert.equal(check(queuing({ queues: 10000001, handSize: 1, queueLengthLimit: 50 })), [
    `${Q}.queues: Invalid value: 10000001: must not be greater than 10000000`,
  ]);
});

test('Q4–Q6: handSize positive, at most queues, at most 60 bits of entropy', () => {
  assert.equal(check(queuing({ queues: 64, handSize: -1, queueLengthLimit: 50 })), [`${Q}.handSize: Invalid value: -1: must be positive`]);
  assert.equal(check(queuing({ queues: 64, handSize: 0, queueLengthLimit: 50 })), [`${Q}.handSize: Invalid value: 0: must be positive`]);
  assert.equal(check(queuing({ queues: 7, handSize: 8, queueLengthLimit: 50 })), [`${Q}.handSize: Invalid value: 8: should not be greater than queues (7)`]);
  assert.equal(check(queuing({ queues: 512, handSize: 8, queueLengthLimit: 50 })), [
    `${Q}.handSize: Invalid value: 8: required entropy bits of deckSize 512 and handSize 8 should not be greater than 60`,
  ]);
});

test('fact sheet 11.1: the upstream (queues, handSize) vectors', () => {
  const vectors: [number, number, string[]][] = [
    [512, 8, [`${Q}.handSize: Invalid value: 8: required entropy bits of deckSize 512 and handSize 8 should not be greater than 60`]],
    [128, 10, [`${Q}.handSize: Invalid value: 10: required entropy bits of deckSize 128 and handSize 10 should not be greater than 60`]],
    [
      2147483647,
      3,
      [
        `${Q}.queues: Invalid value: 2147483647: must not be greater than 10000000`,
        `${Q}.handSize: Invalid value: 3: required entropy bits of deckSize 2147483647 and handSize 3 should not be greater than 60`,
      ],
    ],
    [10000000, 2, []],
    [7, 8, [`${Q}.handSize: Invalid value: 8: should not be greater than queues (7)`]],
    [512, 4, []],
    [1024, 6, []],
    [16, 15, []],
    [16, 16, [`${Q}.handSize: Invalid value: 16: required entropy bits of deckSize 16 and handSize 16 should not be greater than 60`]],
    [1, 1, []],
  ];
  for (const [queues, handSize, expected] of vectors) {
    assert.equal(check(queuing({ queues, handSize, queueLengthLimit: 50 })), expected, `(${queues}, ${handSize})`);
  }
});

test('required entropy bits', () => {
  const bits: [number, number, number][] = [
    [1024, 6, 60],
    [512, 8, 72],
    [64, 6, 36],
    [128, 6, 42],
    [16, 4, 16],
    [64, 8, 48],
    [10000000, 2, 47],
    [16, 15, 60],
    [16, 16, 64],
    [1, 1, 0],
  ];
  for (const [deck, hand, expected] of bits) assert.is(requiredEntropyBits(deck, hand), expected, `(${deck}, ${hand})`);
});

test('M2: the exempt level may only differ in spec.exempt', () => {
  const exempt = defaultPriorityLevelConfiguration(mandatoryPriorityLevels()[1]!);
  assert.equal(check(exempt), []);
  exempt.spec!.exempt = { nominalConcurrencyShares: 50, lendablePercent: 25 };
  assert.equal(check(exempt), []);
});

test('M3: the catch-all level must keep its fixed spec', () => {
  const catchAll = defaultPriorityLevelConfiguration(mandatoryPriorityLevels()[0]!);
  assert.equal(check(catchAll), []);
  catchAll.spec!.limited!.nominalConcurrencyShares = 6;
  assert.equal(triples(validatePriorityLevelConfiguration(catchAll)), [['spec', 'FieldValueInvalid', "spec of 'catch-all' must equal the fixed value"]]);
  const borrowing = defaultPriorityLevelConfiguration(mandatoryPriorityLevels()[0]!);
  borrowing.spec!.limited!.borrowingLimitPercent = 0; // an explicit 0 is not the fixed nil
  assert.equal(triples(validatePriorityLevelConfiguration(borrowing)), [['spec', 'FieldValueInvalid', "spec of 'catch-all' must equal the fixed value"]]);
});

test('ST: status conditions need distinct, non-empty types', () => {
  const plc = { ...limited(), status: { conditions: [{ type: 'A' }, { type: '' }, { type: 'A' }] } };
  assert.equal(check(plc), ['status.conditions[1].type: Required value: must not be empty', 'status.conditions[2].type: Duplicate value: "A"']);
});

test('metadata is validated first: name, cluster scope', () => {
  const plc = limited({ nominalConcurrencyShares: -2 }, 'Bad');
  plc.metadata!.namespace = 'default';
  assert.equal(
    validatePriorityLevelConfiguration(plc).map((e) => e.field),
    ['metadata.name', 'metadata.namespace', 'spec.limited.nominalConcurrencyShares'],
  );
});

test('update: zero shares allowed; full validation plus ObjectMeta update rules', () => {
  const old = limited();
  old.metadata!.uid = 'u1';
  const next = limited({ nominalConcurrencyShares: 0 });
  next.metadata!.uid = 'u1';
  assert.equal(validatePriorityLevelConfigurationUpdate(next, old), []);
  const bad = limited({ lendablePercent: 101 });
  bad.metadata!.uid = 'u2';
  assert.equal(lines(validatePriorityLevelConfigurationUpdate(bad, old)), [
    'metadata.uid: Invalid value: "u2": field is immutable',
    'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
  ]);
});

test('status update ignores the spec', () => {
  const old = limited();
  const next = { ...limited({ nominalConcurrencyShares: -5 }), status: { conditions: [{ type: 'ConcurrencyShared', status: 'True' as const }] } };
  assert.equal(validatePriorityLevelConfigurationStatusUpdate(next, old), []);
  const dup = { ...limited(), status: { conditions: [{ type: 'X' }, { type: 'X' }] } };
  assert.equal(lines(validatePriorityLevelConfigurationStatusUpdate(dup, old)), ['status.conditions[1].type: Duplicate value: "X"']);
});

test.run();
