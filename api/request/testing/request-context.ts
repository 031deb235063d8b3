// The parts of a RequestContext that only the server's own requests use (detaching a watch from the
// chain, end hooks, abort listeners), as no-ops for contexts that tests build by hand (with no
// priority level yet: APF's filter sets one when a test runs it), and
// `withEndHooks` for a hand-built context whose filters register end hooks (APF's seats, the request
// metrics): the test ends the request where the server would, once the chain has settled.
import type { EndHook, RequestContext } from '../http-context.ts';
import { addHook, emptyHookSlots, runHooks } from '../hook-slots.ts';

export const UNDETACHED: Pick<RequestContext, 'onEnd' | 'setAbortListener' | 'detach' | 'detached' | 'end' | 'priorityLevelUid'> = {
  onEnd: () => undefined,
  setAbortListener: () => undefined,
  detach: () => undefined,
  detached: false,
  end: () => undefined,
  priorityLevelUid: '',
};

/** `context` collecting its end hooks; `runEndHooks()` runs them as the server does (last registered first, once). */
export function withEndHooks<C extends RequestContext>(context: C): C & { runEndHooks(): void } {
  const hooks = emptyHookSlots<RequestContext>();
  return Object.assign(context, {
    onEnd: <A>(hook: EndHook<A>, arg?: A) => addHook(hooks, hook, arg as A),
    runEndHooks: () => runHooks(hooks, context, true),
  });
}
