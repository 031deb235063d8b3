// Watches as RxJS streams, for engine code that composes streams (the flow-control config stream).
// The store's watcher is pull-based so that a slow consumer is detected and cut off at a bounded
// buffer; this adapter pulls as fast as the subscriber's `next` returns, so an Observable consumer
// is never the slow one: if it needs back-pressure it must buffer (or use the watcher directly).
// Unsubscribing stops the watch; the watch ending completes the stream.

import { Observable } from 'rxjs';
import type { Watcher } from './store-types.ts';
import type { WatchEvent } from './watch-event.ts';

export function watchObservable(watcher: Watcher): Observable<WatchEvent> {
  return new Observable<WatchEvent>((subscriber) => {
    let active = true;
    void (async () => {
      try {
        for (;;) {
          const result = await watcher.next();
          if (!active) return;
          if (result.done === true) break;
          subscriber.next(result.value);
        }
        subscriber.complete();
      } catch (error) {
        subscriber.error(error);
      }
    })();
    return () => {
      active = false;
      watcher.stop();
    };
  });
}
