// What the controller needs from one (defaulted, non-broken) PriorityLevelConfiguration: the
// queue set's queuing config and the inputs of the concurrency-limit formulas. Pure.

import type { PriorityLevelConfiguration } from '../resources/types.ts';
import type { LevelLimitsInput } from './concurrency-limits.ts';
import type { QueuingConfig } from './queue-set.ts';

export interface LevelConfig {
  name: string;
  exempt: boolean;
  queuing: QueuingConfig;
  limitsInput: LevelLimitsInput;
}

export function levelConfigOf(plc: PriorityLevelConfiguration): LevelConfig {
  const name = plc.metadata?.name ?? '';
  const spec = plc.spec ?? {};
  if (spec.type === 'Exempt') {
    return {
      name,
      exempt: true,
      queuing: { desiredNumQueues: -1, queueLengthLimit: 0, handSize: 0 },
      limitsInput: {
        name,
        exempt: true,
        ncs: spec.exempt?.nominalConcurrencyShares ?? 0,
        lendablePercent: spec.exempt?.lendablePercent ?? 0,
        borrowingLimitPercent: undefined,
      },
    };
  }
  const limited = spec.limited ?? {};
  const queuing = limited.limitResponse?.type === 'Queue' ? limited.limitResponse.queuing : undefined;
  return {
    name,
    exempt: false,
    queuing:
      queuing != null
        ? { desiredNumQueues: queuing.queues ?? 64, queueLengthLimit: queuing.queueLengthLimit ?? 50, handSize: queuing.handSize ?? 8 }
        : { desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 },
    limitsInput: {
      name,
      exempt: false,
      // nil is defaulted to 30 before storage; a stray nil here is treated the same way.
      ncs: limited.nominalConcurrencyShares ?? 30,
      lendablePercent: limited.lendablePercent ?? 0,
      borrowingLimitPercent: limited.borrowingLimitPercent,
    },
  };
}
