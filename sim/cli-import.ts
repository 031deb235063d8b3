// `fairway sim import --kubeconfig FILE [--context NAME] --out SCENARIO`: a scenario skeleton from
// a running API server's APF configuration, concurrency limits and object counts.

import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../cli/command.ts';
import { flag } from '../cli/flag-table.ts';
import { loadWebhookKubeconfig } from '../engine/auth/webhook-kubeconfig.ts';
import { realClock } from '../engine/clock.ts';
import { nonEmpty } from './cli-args.ts';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../engine/nesting-depth.ts';
import { apiGet, DEFAULT_REQUEST_TIMEOUT_MS, MAX_RESPONSE_BYTES, type ApiGetOptions } from './import/api-reader.ts';
import { importedObjects, MAX_IMPORTED_OBJECTS, type FlowcontrolKind } from './import/imported-objects.ts';
import { importScenario } from './import/import-scenario.ts';
import { makeDirectories } from '../engine/make-directories.ts';
import { loadScenarioText } from './scenario-load.ts';

const SIM_IMPORT_FLAGS = {
  kubeconfig: flag('string', 'kubeconfig', '', 'the kubeconfig to reach the server with', {
    valueName: 'FILE',
    required: '--kubeconfig FILE is required',
    validate: nonEmpty,
  }),
  context: flag('string', 'context', '', 'the context to use', { valueName: 'NAME', defaultText: "the file's current-context" }),
  out: flag('string', 'out', '', 'the scenario file to write', { valueName: 'SCENARIO', required: '--out SCENARIO is required', validate: nonEmpty }),
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
  usage: 'fairway sim import --kubeconfig FILE [--context NAME] [--request-timeout DURATION] --out SCENARIO',
  description: `Reads a running API server's PriorityLevelConfigurations and FlowSchemas, its concurrency limits
(apiserver_flowcontrol_nominal_limit_seats in /metrics) and stored object counts
(apiserver_storage_objects), and writes a scenario with that configuration (bootstrap: none) and
no flows yet: add flows or replay an audit log, then run or tune it.

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
  const { kubeconfig, out, requestTimeoutMs } = command.values;
  const context = command.values.context === '' ? undefined : command.values.context;
  const loaded = loadWebhookKubeconfig(kubeconfig, { context });
  if (!loaded.ok) {
    output.stderr(`fairway sim import: ${loaded.error}\n`);
    return 1;
  }
  const connection = loaded.connection;
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
    const [plcs, schemas, metrics] = await Promise.all([
      fetchList(`${FLOWCONTROL}/prioritylevelconfigurations`, 'PriorityLevelConfiguration'),
      fetchList(`${FLOWCONTROL}/flowschemas`, 'FlowSchema'),
      get('/metrics', 'text/plain'),
    ]);
    if (metrics.status !== 200) throw new Error(`GET ${new URL('/metrics', connection.url).href}: HTTP ${metrics.status}: ${statusMessage(metrics.body)}`);
    const result = importScenario({
      server,
      context: context ?? 'current-context',
      priorityLevels: plcs.manifests,
      flowSchemas: schemas.manifests,
      metricsText: metrics.body,
      name: basename(out, extname(out)),
    });
    // What is written is what sim run will load: anything the checks above missed stops here.
    const check = await loadScenarioText(result.text, out);
    if (!check.ok) throw new Error(`the scenario made from its answers does not load, so ${out} was not written:\n  ${check.errors.join('\n  ')}`);
    await writeWhole(out, result.text);
    for (const warning of [...plcs.warnings, ...schemas.warnings, ...result.warnings]) output.stderr(`warning: ${warning}\n`);
    output.stdout(
      `wrote ${out}: ${plcs.manifests.length} PriorityLevelConfigurations, ${schemas.manifests.length} FlowSchemas, server concurrency limit ` +
        `${result.serverConcurrencyLimit}, ` +
        `object counts for ${Object.keys(result.objectCounts).length} resources, from ${server}\n`,
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
