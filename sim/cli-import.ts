// `fairway sim import --kubeconfig FILE [--context NAME] --out SCENARIO`: a scenario skeleton from
// a running API server's APF configuration, concurrency limits and object counts.

import { writeFile } from 'node:fs/promises';
import { basename, dirname, extname } from 'node:path';
import { parseCommandLine, processOutput, type Command, type CommandSpec, type Output } from '../cli/command.ts';
import { flag } from '../cli/flag-table.ts';
import { loadWebhookKubeconfig } from '../engine/auth/webhook-kubeconfig.ts';
import { nonEmpty } from './cli-args.ts';
import { apiGet } from './import/api-reader.ts';
import { importScenario } from './import/import-scenario.ts';
import { makeDirectories } from '../engine/make-directories.ts';

const SIM_IMPORT_FLAGS = {
  kubeconfig: flag('string', 'kubeconfig', '', 'the kubeconfig to reach the server with', {
    valueName: 'FILE',
    required: '--kubeconfig FILE is required',
    validate: nonEmpty,
  }),
  context: flag('string', 'context', '', 'the context to use', { valueName: 'NAME', defaultText: "the file's current-context" }),
  out: flag('string', 'out', '', 'the scenario file to write', { valueName: 'SCENARIO', required: '--out SCENARIO is required', validate: nonEmpty }),
};

export const SIM_IMPORT_COMMAND: CommandSpec<typeof SIM_IMPORT_FLAGS> = {
  path: 'fairway sim import',
  usage: 'fairway sim import --kubeconfig FILE [--context NAME] --out SCENARIO',
  description: `Reads a running API server's PriorityLevelConfigurations and FlowSchemas, its concurrency limits
(apiserver_flowcontrol_nominal_limit_seats in /metrics) and stored object counts
(apiserver_storage_objects), and writes a scenario with that configuration (bootstrap: none) and
no flows yet: add flows or replay an audit log, then run or tune it.`,
  flags: SIM_IMPORT_FLAGS,
  epilogue: 'Exit status: 0 on success, 1 if the server cannot be read, 2 for usage errors.',
};

const FLOWCONTROL = '/apis/flowcontrol.apiserver.k8s.io/v1';

export const simImportCommand: Command = {
  spec: SIM_IMPORT_COMMAND,
  run: (args) => runSimImport(args, processOutput),
};

export async function runSimImport(args: string[], output: Output): Promise<number> {
  const command = parseCommandLine(SIM_IMPORT_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { kubeconfig, out } = command.values;
  const context = command.values.context === '' ? undefined : command.values.context;
  const loaded = loadWebhookKubeconfig(kubeconfig, { context });
  if (!loaded.ok) {
    output.stderr(`fairway sim import: ${loaded.error}\n`);
    return 1;
  }
  const connection = loaded.connection;
  const server = connection.url.origin;
  try {
    const fetchJson = async (path: string) => {
      const response = await apiGet(connection, path);
      if (response.status !== 200) throw new Error(`GET ${path}: HTTP ${response.status}: ${statusMessage(response.body)}`);
      return JSON.parse(response.body) as { items?: Record<string, unknown>[] };
    };
    const [plcs, schemas, metrics] = await Promise.all([
      fetchJson(`${FLOWCONTROL}/prioritylevelconfigurations`),
      fetchJson(`${FLOWCONTROL}/flowschemas`),
      apiGet(connection, '/metrics', 'text/plain'),
    ]);
    if (metrics.status !== 200) throw new Error(`GET /metrics: HTTP ${metrics.status}: ${statusMessage(metrics.body)}`);
    const byName = (items: Record<string, unknown>[] | undefined) =>
      [...(items ?? [])].sort((a, b) => (String((a.metadata as { name?: string })?.name) < String((b.metadata as { name?: string })?.name) ? -1 : 1));
    const result = importScenario({
      server,
      context: context ?? 'current-context',
      priorityLevels: byName(plcs.items),
      flowSchemas: byName(schemas.items),
      metricsText: metrics.body,
      name: basename(out, extname(out)),
    });
    await makeDirectories(dirname(out));
    await writeFile(out, result.text);
    for (const warning of result.warnings) output.stderr(`warning: ${warning}\n`);
    output.stdout(
      `wrote ${out}: ${plcs.items?.length ?? 0} PriorityLevelConfigurations, ${schemas.items?.length ?? 0} FlowSchemas, server concurrency limit ` +
        `${result.serverConcurrencyLimit}, ` +
        `object counts for ${Object.keys(result.objectCounts).length} resources, from ${server}\n`,
    );
    return 0;
  } catch (error) {
    output.stderr(`fairway sim import: ${server}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
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
