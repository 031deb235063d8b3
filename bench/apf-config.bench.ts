// APF configuration churn: creating thousands of PriorityLevelConfigurations and FlowSchemas
// through the API against `fairway serve` (a child process, LevelDB by default), loaded by wrk.
//
//   node --import tsx bench/apf-config.bench.ts [--objects=N] [--connections=C] [--backend=leveldb|memory] [--profile=DIR]
//
// Measured: N PriorityLevelConfigurations, then N FlowSchemas (each naming one of those levels),
// on a server with APF on: every create is a configuration change the controller must digest,
// and every new FlowSchema gets its Dangling condition written.
// Baseline: N objects that APF ignores. Fairway stores no kind that APF does not digest, so the
// baseline is the same creates (N/2 levels, then N/2 schemas) on a server started with
// --enable-priority-and-fairness=false, which, like kube-apiserver, runs no configuration consumer:
// same handlers, same store, same bytes, no digests and no status writes.
// Reported: objects/s and server CPU per object for both, their ratio (goal >= 0.5x), the
// digests per second during the measured burst (from fairway_flowcontrol_config_digests_total),
// and the server CPU in the seconds after the client stopped (the work left over).
// The figures are noisy on a shared machine; the JSON line at the end holds every figure.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from '../api/commands/testing/server-process.ts';
import { processCpuSeconds as cpuSeconds, table } from './fixtures.ts';
import { spawnWrk } from './wrk.ts';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const QUICK = process.env.BENCH_QUICK === '1';
const OBJECTS = Number(arg('objects', QUICK ? '500' : '5000'));
const CONNECTIONS = Number(arg('connections', '16'));
const BACKEND = arg('backend', 'leveldb') as 'leveldb' | 'memory';
const PROFILE = arg('profile', '');
const TAIL_MS = 5_000;
const GROUP = '/apis/flowcontrol.apiserver.k8s.io/v1';

// wrk creates objects named <kind>-<n> and exits as soon as the last response is in (a wrk run
// otherwise lasts its whole -d duration), printing how many failed; the bench times the process.
// One wrk thread drives all connections: it is C and event-driven, far faster than the server.
// The level a schema names is the one created with the same counter in the levels phase.
const WRK_SCRIPT =
  `
function init(args)
  kind = args[1]
  total = tonumber(args[2])
  counter = 0
  responses = 0
  failed = 0
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
local function level(n)
  return string.format('{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"bench-pl-%d"},` +
  `"spec":{"type":"Limited",` +
  `"limited":{"nominalConcurrencyShares":30,"lendablePercent":20,` +
  `"limitResponse":{"type":"Queue","queuing":{"queues":64,"handSize":6,"queueLengthLimit":50}}}}}', n)
end
local function schema(n)
  return string.format('{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"bench-fs-%d"},` +
  `"spec":{"priorityLevelConfiguration":{"name":"bench-pl-%d"},"matchingPrecedence":%d,"distinguisherMethod":{"type":"ByUser"},` +
  `"rules":[{"subjects":[{"kind":"User","user":{"name":"bench-%d"}}],` +
  `"resourceRules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"],"namespaces":["*"]}]}]}}', n, n, 1000 + n % 8000, n)
end
function request()
  counter = counter + 1
  local body
  if kind == "levels" then body = level(counter) else body = schema(counter) end
  return wrk.format(nil, nil, nil, body)
end
function response(status, headers, body)
  responses = responses + 1
  if status ~= 201 then failed = failed + 1 end
  if responses >= total then
    io.write(string.format("WRK %d %d\\n", responses, failed))
    io.flush()
    os.exit(0)
  end
end
`;

interface Phase {
  objects: number;
  seconds: number;
  failures: number;
  cpuUsPerObject: number;
}

async function wrkPhase(server: ServerProcess, scriptPath: string, kind: 'levels' | 'schemas', count: number): Promise<Phase> {
  const path = `${GROUP}/${kind === 'levels' ? 'prioritylevelconfigurations' : 'flowschemas'}`;
  const cpuBefore = cpuSeconds(server.pid);
  const started = process.hrtime.bigint();
  const run = await spawnWrk([
    '-t',
    '1',
    '-c',
    String(CONNECTIONS),
    '-d',
    '600s',
    '--timeout',
    '30s',
    '-s',
    scriptPath,
    '-H',
    `Authorization: Bearer ${server.token}`,
    `${server.url}${path}`,
    '--',
    kind,
    String(count),
  ]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = cpuSeconds(server.pid) - cpuBefore;
  const line = /WRK (\d+) (\d+)/.exec(run.stdout);
  if (run.status !== 0 || line === null) throw new Error(`wrk failed (${run.status}): ${run.stdout}\n${run.stderr}`);
  const objects = Number(line[1]) - Number(line[2]);
  return { objects, seconds, failures: Number(line[2]), cpuUsPerObject: (cpu * 1e6) / objects };
}

async function digests(server: ServerProcess): Promise<number> {
  const text = (await server.client.get('/metrics')).text;
  return Number(/^fairway_flowcontrol_config_digests_total (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

async function measure(label: string, apf: boolean, perKind: number, scriptPath: string) {
  const server = await startServerProcess({
    storageBackend: BACKEND,
    args: apf ? [] : ['--enable-priority-and-fairness=false'],
    ...(PROFILE !== '' ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${PROFILE}/${label}`] } : {}),
  });
  try {
    const digestsBefore = apf ? await digests(server) : 0;
    const levels = await wrkPhase(server, scriptPath, 'levels', perKind);
    const schemas = await wrkPhase(server, scriptPath, 'schemas', perKind);
    const digestsDuring = apf ? (await digests(server)) - digestsBefore : 0;
    const tailBefore = cpuSeconds(server.pid);
    await new Promise((resolve) => setTimeout(resolve, TAIL_MS));
    const tailCpuShare = (cpuSeconds(server.pid) - tailBefore) / (TAIL_MS / 1000);
    const objects = levels.objects + schemas.objects;
    const seconds = levels.seconds + schemas.seconds;
    return {
      label,
      levels,
      schemas,
      objectsPerSecond: objects / seconds,
      cpuUsPerObject: (levels.cpuUsPerObject * levels.objects + schemas.cpuUsPerObject * schemas.objects) / objects,
      digestsPerSecond: digestsDuring / seconds,
      tailCpuShare,
      failures: levels.failures + schemas.failures,
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-apf-config-bench-'));
  const scriptPath = join(dir, 'create.lua');
  await writeFile(scriptPath, WRK_SCRIPT);
  try {
    const baseline = await measure('baseline', false, OBJECTS / 2, scriptPath);
    const measured = await measure('apf', true, OBJECTS, scriptPath);
    const ratio = measured.objectsPerSecond / baseline.objectsPerSecond;
    const row = (m: typeof measured) =>
      `${m.objectsPerSecond.toFixed(0).padStart(6)} objects/s  cpu ${m.cpuUsPerObject.toFixed(0).padStart(5)} µs/object  levels ${m.levels.objects} ` +
      `in ${m.levels.seconds.toFixed(1)} s, schemas ${m.schemas.objects} in ${m.schemas.seconds.toFixed(1)} s, failed ${m.failures}`;
    table(`APF configuration churn (${BACKEND}, wrk, ${CONNECTIONS} connections)`, [
      [`baseline: ${OBJECTS} creates, APF off`, row(baseline)],
      [`measured: ${OBJECTS} levels + ${OBJECTS} schemas, APF on`, row(measured)],
      ['ratio (goal >= 0.5x)', `${ratio.toFixed(2)}x objects/s, ${(baseline.cpuUsPerObject / measured.cpuUsPerObject).toFixed(2)}x CPU per object`],
      ['digests during the burst', `${measured.digestsPerSecond.toFixed(1)} per second`],
      [
        `server CPU in the ${TAIL_MS / 1000} s after the client stopped`,
        `${(measured.tailCpuShare * 100).toFixed(0)}% of a core (baseline ${(baseline.tailCpuShare * 100).toFixed(0)}%)`,
      ],
    ]);
    console.log(JSON.stringify({ bench: 'apf-config', backend: BACKEND, objects: OBJECTS, connections: CONNECTIONS, baseline, measured, ratio }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
