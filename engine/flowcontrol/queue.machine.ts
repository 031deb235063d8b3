// One actor per queue of a priority level. A queue's requests live in the level's QueueSet (the
// dispatch rule needs all queues at once); the actor owns the queue's lifecycle: `serving`, then
// `retiring` once the level has more queues than its configuration wants (it will be removed as
// soon as it empties), back to `serving` if the level grows again, and `removed` at the end.
// Per-request traffic never goes through this actor, so it costs nothing on the hot path.

import { setup } from 'xstate';

export interface QueueActorInput {
  queueId: number;
}

export type QueueEvent = { type: 'RETIRE' } | { type: 'KEEP' } | { type: 'REMOVED' };

export const queueMachine = setup({
  types: {
    context: {} as { queueId: number },
    input: {} as QueueActorInput,
    events: {} as QueueEvent,
  },
}).createMachine({
  id: 'queue',
  context: ({ input }) => ({ queueId: input.queueId }),
  initial: 'serving',
  states: {
    serving: {
      on: { RETIRE: 'retiring', REMOVED: 'removed' },
    },
    retiring: {
      on: { KEEP: 'serving', REMOVED: 'removed' },
    },
    removed: { type: 'final' },
  },
});
