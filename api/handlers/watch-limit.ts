// --max-watches-per-user: how many watches one user may hold open at once. kube-apiserver has no
// such limit; a watch costs it one goroutine and a buffer. Here every open watch costs a socket,
// a cache watcher and its buffer in one process, and a client that leaks watches (a loop that
// re-watches without closing) would otherwise take the whole server's memory and file
// descriptors. Counted per user name, for every user alike (system:masters too): APF bounds how
// fast watches start, not how many stay open.
import { ApiError, tooManyWatches } from '../../engine/status/errors.ts';

/** Default of --max-watches-per-user: far above what one informer-based client opens. */
export const DEFAULT_MAX_WATCHES_PER_USER = 1000;
/** What the 429 tells the client to wait: a closing watch frees its slot at once. */
const RETRY_AFTER_SECONDS = 1;

export class WatchLimiter {
  private readonly open = new Map<string, number>();

  /** `maxPerUser` 0 means no limit. */
  constructor(readonly maxPerUser: number) {}

  /** Counts a new watch for `user`, or throws the 429; `release(user)` once when it ends. */
  acquire(user: string): void {
    const count = this.open.get(user) ?? 0;
    if (this.maxPerUser > 0 && count >= this.maxPerUser) throw new ApiError(tooManyWatches(user, count, RETRY_AFTER_SECONDS));
    this.open.set(user, count + 1);
  }

  /** One watch of `user` ended. */
  release(user: string): void {
    const left = (this.open.get(user) ?? 1) - 1;
    if (left <= 0) this.open.delete(user);
    else this.open.set(user, left);
  }

  /** Open watches of `user`. */
  count(user: string): number {
    return this.open.get(user) ?? 0;
  }
}
