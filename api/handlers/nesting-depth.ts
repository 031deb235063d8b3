// JSON request bodies nested deeper than the decoders may recurse are the client's mistake: a 400
// before anything parses them (engine/nesting-depth.ts says why and how the depth is measured).
// YAML bodies are measured where they are composed, with the rest of their cost (engine/yaml-cost.ts),
// and refused with the same 400.
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../../engine/nesting-depth.ts';
import { ApiError, nestingTooDeep } from '../../engine/status/errors.ts';

export const MAX_BODY_NESTING_DEPTH = MAX_NESTING_DEPTH;

/** Throws the 400 for a JSON body nested deeper than MAX_BODY_NESTING_DEPTH. */
export function checkNestingDepth(text: string): void {
  if (jsonNestingDepth(text) > MAX_BODY_NESTING_DEPTH) throw new ApiError(nestingTooDeep(MAX_BODY_NESTING_DEPTH));
}
