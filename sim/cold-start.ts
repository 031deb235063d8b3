// The start of a run in which the levels' limits know no demand yet: the report's notes and the
// explanations both leave it out of what they blame on the configuration.
import { BORROWING_ADJUSTMENT_PERIOD_MS } from '../engine/flowcontrol/seat-demand.ts';

/** Two borrowing adjustments: before the second, CurrentCL comes from a start without demand history. */
export const COLD_START_MS = 2 * BORROWING_ADJUSTMENT_PERIOD_MS;
