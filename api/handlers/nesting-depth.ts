// Request bodies nested deeper than the decoders may recurse are the client's mistake: a 400
// before anything parses them (engine/nesting-depth.ts says why and how the depth is measured).
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../../engine/nesting-depth.ts';
import { yamlNestingDepthBound } from '../../engine/yaml-cost.ts';
import { ApiError, nestingTooDeep } from '../errors.ts';

export const MAX_BODY_NESTING_DEPTH = MAX_NESTING_DEPTH;

/** Throws the 400 for a body nested deeper than MAX_BODY_NESTING_DEPTH. */
export function checkNestingDepth(text: string, syntax: 'json' | 'yaml'): void {
  const depth = syntax === 'json' ? jsonNestingDepth(text) : yamlNestingDepthBound(text);
  if (depth > MAX_BODY_NESTING_DEPTH) throw new ApiError(nestingTooDeep(MAX_BODY_NESTING_DEPTH));
}
