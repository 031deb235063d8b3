// The negative control for the fairness properties (Kubernetes keeps one in its fair-queuing
// testing package): a "queue set" that executes every request the moment it arrives, whatever
// the limit. A fairness check that this implementation passes cannot tell fair queuing from no
// queuing at all, so every fairness suite runs it and expects the check to fail.

import type { Admission, Decide, QueueSetRequest, QueuingConfig } from '../../engine/flowcontrol/queue-set.ts';
import type { QueueSetLike } from './queue-set-like.ts';

export class NoRestraintQueueSet<D = unknown> implements QueueSetLike<D> {
  executing = 0;

  setConfig(_config: QueuingConfig, _concurrencyLimit: number): void {
    // Limits are exactly what this control ignores.
  }

  startRequest(request: QueueSetRequest<D>, decide: Decide<D>): Admission {
    this.executing++;
    let finished = false;
    decide({ kind: 'execute' }, request);
    return {
      finish: () => {
        if (finished) throw new Error('NoRestraintQueueSet: finish() called twice');
        finished = true;
        this.executing--;
      },
      cancel: () => {
        // Already executing: nothing to withdraw.
      },
    };
  }
}
