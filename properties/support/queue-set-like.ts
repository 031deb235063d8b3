// The part of QueueSet's interface that the fairness scenarios drive, so that the same scenario
// and the same check can run against the real queue set and against the no-restraint control.

import type { Admission, Decide, QueueSetRequest, QueuingConfig } from '../../engine/flowcontrol/queue-set.ts';

export interface QueueSetLike<D = unknown> {
  setConfig(config: QueuingConfig, concurrencyLimit: number): void;
  startRequest(request: QueueSetRequest<D>, decide: Decide<D>): Admission;
}
