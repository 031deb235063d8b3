// PriorityLevelConfiguration (flowcontrol.apiserver/v1), field by field in Go's order.
import { PRIORITY_LEVEL_KIND, PRIORITY_LEVEL_LIST_KIND } from '../types.ts';
import type { KindTable } from './field-table.ts';
import { enumOf, field, int32, struct, structOf } from './field-table.ts';
import { FLOWCONTROL_PREFIX, statusStruct } from './flowcontrol-v1.ts';
import { topLevelStruct } from './meta-v1.ts';

const name = (type: string) => `${FLOWCONTROL_PREFIX}${type}`;

export const QUEUING_CONFIGURATION = struct(name('QueuingConfiguration'), 'Queue parameters of a priority level.', [
  field(
    'queues',
    int32,
    'The number of queues at this priority level; each API server has its own. Must be positive; 1 turns off shuffle sharding. Defaults to 64.',
    {
      omitempty: false,
      default: 64,
    },
  ),
  field(
    'handSize',
    int32,
    "How many queues a request's flow is dealt: the flow identifier is hashed to deal this many queues and the request joins the shortest. Must not " +
      'exceed queues. Defaults to 8.',
    { omitempty: false, default: 8 },
  ),
  field(
    'queueLengthLimit',
    int32,
    'The most requests that may wait in one queue of this level; further requests are rejected. Must be positive. Defaults to 50.',
    {
      omitempty: false,
      default: 50,
    },
  ),
] as const);

export const LIMIT_RESPONSE = struct(
  name('LimitResponse'),
  'What to do with a request that cannot run as soon as it arrives.',
  [
    field('type', enumOf('Queue', 'Reject'), '`Queue` (wait in a queue, up to the limits) or `Reject` (fail at once). Required.', {
      omitempty: false,
      required: true,
    }),
    field('queuing', structOf(QUEUING_CONFIGURATION), 'Queue parameters; may be set only when type is `Queue`.', { pointer: true }),
  ] as const,
  { union: { discriminator: 'type', members: { queuing: 'Queuing' } } },
);

export const LIMITED_PRIORITY_LEVEL_CONFIGURATION = struct(
  name('LimitedPriorityLevelConfiguration'),
  'Settings of a `Limited` priority level: its share of the concurrency limit, lending and borrowing, and what happens to requests that cannot run at once.',
  [
    field(
      'nominalConcurrencyShares',
      int32,
      "This level's share (NCS) of the server's concurrency limit. NominalCL = ceil(ServerCL * NCS / sum of all NCS). Bigger values give this level " +
        "more seats at the others' expense. Defaults to 30 when unset; 0 is allowed.",
      { pointer: true, omitempty: false, default: 30 },
    ),
    field('limitResponse', structOf(LIMIT_RESPONSE), 'How requests that cannot run immediately are handled.'),
    field('lendablePercent', int32, "The share, 0 to 100, of this level's NominalCL that other levels may borrow. Defaults to 0.", {
      pointer: true,
      default: 0,
    }),
    field(
      'borrowingLimitPercent',
      int32,
      'If set, the most seats this level may borrow from others, as a percentage of its NominalCL: BorrowingCL = round(NominalCL * ' +
        'borrowingLimitPercent / 100). May exceed 100. Unset means no limit.',
      { pointer: true },
    ),
  ] as const,
);

export const EXEMPT_PRIORITY_LEVEL_CONFIGURATION = struct(
  name('ExemptPriorityLevelConfiguration'),
  'Settings of an `Exempt` priority level. Exempt requests are never limited, but these values shape how other levels borrow.',
  [
    field(
      'nominalConcurrencyShares',
      int32,
      'Seats nominally reserved for this level (NCS). They do not limit exempt requests; they only change the NominalCL of the other levels. Defaults to 0.',
      { pointer: true, default: 0 },
    ),
    field(
      'lendablePercent',
      int32,
      "The share, 0 to 100, of this level's NominalCL that other levels may borrow. LendableCL = round(NominalCL * lendablePercent / 100). Defaults to 0.",
      {
        pointer: true,
        default: 0,
      },
    ),
  ] as const,
);

export const PRIORITY_LEVEL_CONFIGURATION_SPEC = struct(
  name('PriorityLevelConfigurationSpec'),
  'The behaviour of a priority level. Exactly one of `exempt` and `limited` applies, chosen by `type`.',
  [
    field(
      'type',
      enumOf('Exempt', 'Limited'),
      'Whether requests at this level are subject to concurrency limits: `Exempt` (never limited, never queued) or `Limited` (limited and possibly ' +
        'queued). Required.',
      { omitempty: false, required: true },
    ),
    field('limited', structOf(LIMITED_PRIORITY_LEVEL_CONFIGURATION), 'Settings for a `Limited` level; must be set exactly when type is `Limited`.', {
      pointer: true,
    }),
    field(
      'exempt',
      structOf(EXEMPT_PRIORITY_LEVEL_CONFIGURATION),
      'Settings for an `Exempt` level; must be unset when type is `Limited`. Defaults apply when unset.',
      { pointer: true },
    ),
  ] as const,
  { union: { discriminator: 'type', members: { exempt: 'Exempt', limited: 'Limited' } } },
);

export const PRIORITY_LEVEL_CONFIGURATION_STATUS = statusStruct(
  'PriorityLevelConfiguration',
  'The observed state of a priority level.',
  'One condition of a priority level.',
  'The current conditions of the priority level, one per type.',
);

export const PRIORITY_LEVEL_CONFIGURATION = topLevelStruct(
  name('PriorityLevelConfiguration'),
  "Configures one priority level: whether its requests are exempt from concurrency limits, and if not, their share of the server's capacity and how " +
    'waiting requests are queued.',
  { struct: PRIORITY_LEVEL_CONFIGURATION_SPEC, description: 'The desired behaviour of the priority level.' },
  { struct: PRIORITY_LEVEL_CONFIGURATION_STATUS, description: 'The current state of the priority level, written by the server.' },
);

export const PRIORITY_LEVEL_TABLE: KindTable<typeof PRIORITY_LEVEL_CONFIGURATION> = {
  kind: PRIORITY_LEVEL_KIND,
  listKind: PRIORITY_LEVEL_LIST_KIND,
  listDescription: 'A list of PriorityLevelConfiguration objects.',
  struct: PRIORITY_LEVEL_CONFIGURATION,
};
