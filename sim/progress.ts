// A progress bar on stderr for long runs: only when stderr is a terminal, and only once a run has
// taken more than a second of wall time, so short runs and logs stay clean. Wall time is read
// here, in the CLI, never inside the simulation.

export interface Progress {
  update(fraction: number, label: string): void;
  done(): void;
}

const SHOW_AFTER_MS = 1000;
const REDRAW_EVERY_MS = 100;

export function createProgress(stream: NodeJS.WriteStream = process.stderr, enabled = stream.isTTY === true): Progress {
  const startMs = performance.now();
  let lastDrawMs = 0;
  let drawn = false;
  return {
    update(fraction, label) {
      if (!enabled) return;
      const nowMs = performance.now();
      if (nowMs - startMs < SHOW_AFTER_MS || nowMs - lastDrawMs < REDRAW_EVERY_MS) return;
      lastDrawMs = nowMs;
      drawn = true;
      const width = 30;
      const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
      stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${label}\u001b[K`);
    },
    done() {
      if (drawn) stream.write('\r\u001b[K');
    },
  };
}
