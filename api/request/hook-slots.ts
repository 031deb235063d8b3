// Hooks kept in the fields of the object they belong to: a response's close hooks
// (http1-connection.ts) and a request's end hooks (request-path.ts). Every request has one or two
// (APF's seats, the request metrics, the server's own), so the first two live in fields and only
// further ones in an array: no listener array or hook list per request. Each hook is one function
// shared by all requests, told which request by its argument, never by a property added to Node's
// objects (a shape change per request).

/** One hook: the object it is kept on, and the argument it was added with. */
export type Hook<T, A = unknown> = (target: T, arg: A) => void;

/** The fields an object keeps its hooks in. */
export interface HookSlots<T> {
  hook1: Hook<T> | undefined;
  hook2: Hook<T> | undefined;
  hookArg1: unknown;
  hookArg2: unknown;
  moreHooks: [Hook<T>, unknown][] | undefined;
}

/** Slots of an object that keeps no others (a hand-built test context). */
export function emptyHookSlots<T>(): HookSlots<T> {
  return { hook1: undefined, hook2: undefined, hookArg1: undefined, hookArg2: undefined, moreHooks: undefined };
}

export function addHook<T, A>(slots: HookSlots<T>, hook: Hook<T, A>, arg: A): void {
  const any = hook as Hook<T>;
  if (slots.hook1 === undefined) {
    slots.hook1 = any;
    slots.hookArg1 = arg;
  } else if (slots.hook2 === undefined) {
    slots.hook2 = any;
    slots.hookArg2 = arg;
  }
  // Exactly as long as needed (`concat`): a pushed-to array reserves 17 slots, kept as long as the
  // object is (an open watch).
  else slots.moreHooks = (slots.moreHooks ?? []).concat([[any, arg]]);
}

/** Runs the hooks, each once, in the order added or (`lastFirst`) the reverse. */
export function runHooks<T>(slots: HookSlots<T>, target: T, lastFirst: boolean): void {
  const first = slots.hook1;
  const second = slots.hook2;
  const firstArg = slots.hookArg1;
  const secondArg = slots.hookArg2;
  const more = slots.moreHooks;
  slots.hook1 = slots.hook2 = slots.hookArg1 = slots.hookArg2 = slots.moreHooks = undefined;
  if (lastFirst) {
    if (more !== undefined) for (let i = more.length - 1; i >= 0; i--) more[i]![0](target, more[i]![1]);
    second?.(target, secondArg);
    first?.(target, firstArg);
  } else {
    first?.(target, firstArg);
    second?.(target, secondArg);
    if (more !== undefined) for (const [hook, arg] of more) hook(target, arg);
  }
}
