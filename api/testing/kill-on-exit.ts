// Child processes a test starts must not outlive the test run: each is killed when this process
// exits, unless it exited first. One 'exit' listener serves every child, so a test may run many
// at once without Node's too-many-listeners warning.
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
let listening = false;

/** Kills `child` (SIGKILL) if it is still running when this process exits. */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (listening) return;
  listening = true;
  process.once('exit', () => {
    for (const c of running) c.kill('SIGKILL');
  });
}
