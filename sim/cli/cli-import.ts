// `fairway sim import [--kubeconfig FILE] [--context NAME] [--traffic DURATION] (--out SCENARIO | --merge SCENARIO)`:
// a scenario from a running API server's APF configuration, concurrency limits and object counts,
// with flows that reproduce the load its /metrics showed over a window (--traffic), written anew or
// merged into an operator's scenario (--merge keeps its flows and everything else).

import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag } from '../../cli/flag-table.ts';
import { withExecCredential } from '../../cli/exec-credential.ts';
import { KUBECONFIG_DEFAULT_TEXT, kubeconfigPath } from '../../cli/kubeconfig-path.ts';
import { loadWebhookKubeconfig } from '../../engine/auth/webhook-kubeconfig.ts';
import { realClock } from '../../engine/clock.ts';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../../engine/nesting-depth.ts';
import { apiGet, DEFAULT_REQUEST_TIMEOUT_MS, MAX_RESPONSE_BYTES, type ApiGetOptions } from '../import/api-reader.ts';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import { importedObjects, MAX_IMPORTED_OBJECTS } from '../import/imported-objects.ts';
import { importScenario, mergeScenario } from '../import/import-scenario.ts';
import { IDENTITY_LEASES_PATH, replicasFromLeases } from '../import/apiserver-replicas.ts';
import { observedTraffic, type ObservedTraffic } from '../import/observed-traffic.ts';
import { readConfigFile } from '../../engine/config/config-file.ts';
import { DEFAULT_WORK_ESTIMATOR_CONFIG } from '../../engine/flowcontrol/work-estimator-config.ts';
import { makeDirectories } from '../../engine/make-directories.ts';
import { loadScenarioText } from '../scenario-load.ts';
import { append } from '../../engine/append.ts';

const SIM_IMPORT_FLAGS = {
  kubeconfig: flag('string', 'kubeconfig', '', 'the kubeconfig to reach the server with', { valueName: 'FILE', defaultText: KUBECONFIG_DEFAULT_TEXT }),
  context: flag('string', 'context', '', 'the context to use', { valueName: 'NAME', defaultText: "the file's current-context" }),
  out: flag('string', 'out', '', 'the scenario file to write', { valueName: 'SCENARIO', defaultText: 'the --merge file' }),
  merge: flag(
    'string',
    'merge',
    '',
    "an existing scenario to refresh: its configuration, limits and object counts are replaced by the server's, " +
      'its flows (but earlier observed-* ones, with --traffic) and everything else are kept',
    { valueName: 'SCENARIO' },
  ),
  traffic: flag(
    'duration',
    'traffic',
    0,
    'also scrape /metrics again this long after the first scrape and write flows (observed-<flowschema>) that reproduce ' +
      "each FlowSchema's request rate, execution time and seats over that window; 0: no flows",
    { valueName: 'DURATION', validate: (value, name) => (value < 0 ? `${name} can not be negative` : undefined) },
  ),
  requestTimeoutMs: flag(
    'duration',
    'request-timeout',
    DEFAULT_REQUEST_TIMEOUT_MS,
    'the longest one request to the server may take, from connecting to its last byte; 0 waits forever',
    { validate: (value, name) => (value < 0 ? `${name} can not be negative` : undefined) },
  ),
};

export const SIM_IMPORT_COMMAND: CommandSpec<typeof SIM_IMPORT_FLAGS> = {
  path: 'fairway sim import',
  usage: 'fairway sim import [--kubeconfig FILE] [--context NAME] [--request-timeout DURATION] [--traffic DURATION] (--out SCENARIO | --merge SCENARIO)',
  description: `Reads a running API server's PriorityLevelConfigurations and FlowSchemas, its concurrency limits
(apiserver_flowcontrol_nominal_limit_seats in /metrics) and stored object counts
(apiserver_storage_objects), and the kube-apiservers it runs (server.replicas, from the
kube-system Leases labelled apiserver.kubernetes.io/identity=kube-apiserver; left unset, with a
warning, when they cannot be read), and writes a scenario with that configuration (bootstrap: none) and
no flows yet: add flows or replay an audit log, then run or tune it. With --traffic 60s it scrapes
/metrics a second time a minute later and adds one flow per FlowSchema that served requests in
between (observed-<flowschema>): its Poisson rate, its execution time's mean and p99 (as a
log-normal), and its mean seats, as apiserver_flowcontrol_dispatched_requests_total,
_rejected_requests_total, _request_execution_seconds and _work_estimated_seats showed them, with a
user and request its rules classify into it; a LIST flow returns the share of its objects that its
resource's LISTs returned of those they tested (apiserver_cache_list_* and apiserver_storage_list_*).
--merge SCENARIO refreshes an operator's scenario in place (or into --out): the configuration,
limits and object counts are the server's, its own flows stay.

The server's answers are not trusted: each response may be at most ${MAX_RESPONSE_BYTES} bytes and each list
at most ${MAX_IMPORTED_OBJECTS} objects; an object the server itself would refuse, or a metric sample that is not a
count, is skipped with a warning; and the scenario is loaded back as sim run loads it before it
is written, so a scenario file is written only if it loads.`,
  flags: SIM_IMPORT_FLAGS,
  epilogue: 'Exit status: 0 on success, 1 if the server cannot be read or its answers do not make a scenario, 2 for usage errors.',
};

const FLOWCONTROL = '/apis/flowcontrol.apiserver.k8s.io/v1';

export const simImportCommand: Command = {
  spec: SIM_IMPORT_COMMAND,
  run: (args) => runSimImport(args, processOutput),
};

/** `limits` is for tests: a smaller response cap than the real one. */
export async function runSimImport(args: string[], output: Output, limits: { maxResponseBytes?: number } = {}): Promise<number> {
  const command = parseCommandLine(SIM_IMPORT_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { merge, requestTimeoutMs, traffic } = command.values;
  const kubeconfig = kubeconfigPath(command.values.kubeconfig);
  const out = command.values.out === '' ? merge : command.values.out;
  if (out === '') return command.usageError('--out SCENARIO is required (or --merge SCENARIO, which it then defaults to)');
  let existing: string | undefined;
  if (merge !== '') {
    try {
      existing = (await readConfigFile(merge)).toString('utf8');
    } catch (error) {
      output.stderr(`fairway sim import: --merge ${merge}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
  const context = command.values.context === '' ? undefined : command.values.context;
  const loaded = loadWebhookKubeconfig(kubeconfig, { context });
  if (!loaded.ok) {
    output.stderr(`fairway sim import: ${loaded.error}\n`);
    return 1;
  }
  const credential = withExecCredential(loaded.connection);
  if (!credential.ok) {
    output.stderr(`fairway sim import: ${kubeconfig}: ${credential.error}\n`);
    return 1;
  }
  const connection = credential.connection;
  const server = connection.url.origin;
  const clock = realClock();
  const get = (path: string, accept?: string) => {
    const options: ApiGetOptions = { clock, deadlineMs: requestTimeoutMs, maxBytes: limits.maxResponseBytes ?? MAX_RESPONSE_BYTES };
    if (accept !== undefined) options.accept = accept;
    return apiGet(connection, path, options);
  };
  try {
    const fetchList = async (path: string, kind: FlowcontrolKind) => {
      const source = `GET ${new URL(path, connection.url).href}`;
      const response = await get(path);
      if (response.status !== 200) throw new Error(`${source}: HTTP ${response.status}: ${statusMessage(response.body)}`);
      // Checking an object recurses once per level of it.
      if (jsonNestingDepth(response.body) > MAX_NESTING_DEPTH) throw new Error(`${source}: the answer nests more than ${MAX_NESTING_DEPTH} levels deep`);
      let list: unknown;
      try {
        list = JSON.parse(response.body);
      } catch (error) {
        throw new Error(`${source}: the answer is not JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      const imported = importedObjects((list as { items?: unknown } | null)?.items, kind, source);
      if (!imported.ok) throw new Error(imported.error);
      return imported;
    };
    const [plcs, schemas, metrics, leases] = await Promise.all([
      fetchList(`${FLOWCONTROL}/prioritylevelconfigurations`, 'PriorityLevelConfiguration'),
      fetchList(`${FLOWCONTROL}/flowschemas`, 'FlowSchema'),
      get('/metrics', 'text/plain'),
      get(IDENTITY_LEASES_PATH),
    ]);
    const replicas = replicasFromLeases(leases, new URL(IDENTITY_LEASES_PATH, connection.url).href);
    const metricsUrl = new URL('/metrics', connection.url).href;
    if (metrics.status !== 200) throw new Error(`GET ${metricsUrl}: HTTP ${metrics.status}: ${statusMessage(metrics.body)}`);
    let metricsText = metrics.body;
    let observed: ObservedTraffic | undefined;
    if (traffic > 0) {
      const startMs = clock.now();
      output.stderr(`scraping ${metricsUrl} again in ${traffic / 1000} s for the traffic\n`);
      await new Promise<void>((resolve) => clock.after(traffic, resolve));
      const again = await get('/metrics', 'text/plain');
      if (again.status !== 200) throw new Error(`GET ${metricsUrl}: HTTP ${again.status}: ${statusMessage(again.body)}`);
      observed = observedTraffic({
        before: metrics.body,
        after: again.body,
        elapsedSeconds: (clock.now() - startMs) / 1000,
        flowSchemas: schemas.manifests,
        priorityLevels: plcs.manifests,
        objectsPerSeat: DEFAULT_WORK_ESTIMATOR_CONFIG.objectsPerSeat,
      });
      metricsText = again.body;
    }
    const result = importScenario({
      server,
      context: context ?? 'current-context',
      priorityLevels: plcs.manifests,
      flowSchemas: schemas.manifests,
      metricsText,
      name: basename(out, extname(out)),
      ...(observed === undefined ? {} : { flows: observed.flows }),
      ...('replicas' in replicas ? { replicas: replicas.replicas } : {}),
    });
    let text = result.text;
    const warnings = [...plcs.warnings, ...schemas.warnings, ...(observed?.warnings ?? []), ...result.warnings];
    if ('warning' in replicas) warnings.push(replicas.warning);
    if (existing !== undefined) {
      const merged = mergeScenario(existing, result.scenario, observed !== undefined);
      if ('error' in merged) throw new Error(`--merge ${merge}: ${merged.error}`);
      text = merged.text;
      append(warnings, merged.warnings);
    }
    // What is written is what sim run will load: anything the checks above missed stops here.
    const check = await loadScenarioText(text, out);
    if (!check.ok) throw new Error(`the scenario made from its answers does not load, so ${out} was not written:\n  ${check.errors.join('\n  ')}`);
    await writeWhole(out, text);
    for (const warning of warnings) output.stderr(`warning: ${warning}\n`);
    output.stdout(
      `wrote ${out}: ${plcs.manifests.length} PriorityLevelConfigurations, ${schemas.manifests.length} FlowSchemas, server concurrency limit ` +
        `${result.serverConcurrencyLimit}, ` +
        `object counts for ${Object.keys(result.objectCounts).length} resources` +
        `${'replicas' in replicas ? `, ${replicas.replicas} replica${replicas.replicas === 1 ? '' : 's'} (identity leases)` : ''}` +
        `${observed === undefined ? '' : `, ${observed.flows.length} observed flows`}` +
        `${existing === undefined ? '' : `, merged into ${merge}`}, from ${server}\n`,
    );
    return 0;
  } catch (error) {
    output.stderr(`fairway sim import: ${server}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** The file appears whole or not at all: written beside it, then renamed over it. */
async function writeWhole(file: string, text: string): Promise<void> {
  await makeDirectories(dirname(file));
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  try {
    await writeFile(temporary, text);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A Kubernetes Status's message, or the start of whatever else the server answered. */
function statusMessage(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not JSON
  }
  return body.slice(0, 200);
}
