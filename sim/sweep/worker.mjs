// Entry file of every sweep thread. Node 20 cannot load TypeScript by itself, so the thread
// registers tsx under its own namespace, then imports the task module; each task is one whole
// simulation (scenario + seed + variant), run exactly as `fairway sim run` runs it.
import { register } from 'tsx/esm/api';

const tsx = register({ namespace: 'fairway-sim-sweep' });
const { runSweepTask } = await tsx.import('./task.ts', import.meta.url);

export default runSweepTask;
