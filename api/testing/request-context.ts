// The parts of a RequestContext that only the server's own requests use (detaching a watch from the
// chain, end hooks, abort listeners), as no-ops for contexts that tests build by hand: such a
// request is never detached, so filters never register end hooks on it.
import type { RequestContext } from '../server/http-context.ts';

export const UNDETACHED: Pick<RequestContext, 'onEnd' | 'setAbortListener' | 'detach' | 'detached' | 'end'> = {
  onEnd: () => undefined,
  setAbortListener: () => undefined,
  detach: () => undefined,
  detached: false,
  end: () => undefined,
};
