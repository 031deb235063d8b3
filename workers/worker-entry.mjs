// Entry file of every Piscina thread. Node 20 cannot load TypeScript by itself, so the thread
// registers tsx under its own namespace (independent of whatever loader the main thread used, so the
// pool works under `node --import tsx`, the `fairway` launcher and plain `node` alike), then imports
// the task runner. Startup cost is measured in bench/executor.bench.ts (docs/execution-plane.md).
import { register } from 'tsx/esm/api';

const tsx = register({ namespace: 'fairway-worker' });
const { runStageTask } = await tsx.import('./worker-task.ts', import.meta.url);

export default runStageTask;
