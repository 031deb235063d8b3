// In a real `fairway serve` an uncaught exception or unhandled rejection ends the process; with
// the server in the test's process it would end the test file without a seed or path. The trap
// collects them instead, and the run that caused one fails with it.

export interface CrashTrap {
  /** Throws the first crash since the last call (after letting timer-reported errors fire). */
  assertNone(): Promise<void>;
  release(): void;
}

export function trapCrashes(): CrashTrap {
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => void crashes.push(error);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  return {
    async assertNone() {
      // Engine code reports some errors through a setTimeout(0); let those fire first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await new Promise((resolve) => setImmediate(resolve));
      const caught = crashes.splice(0);
      if (caught.length > 0) {
        const first = caught[0] instanceof Error ? (caught[0].stack ?? caught[0].message) : String(caught[0]);
        throw new Error(`the server would have crashed: uncaught ${first.split('\n').slice(0, 4).join(' | ')}`);
      }
    },
    release() {
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
    },
  };
}
