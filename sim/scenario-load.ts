// Loading a scenario file: parse, check the scenario fields, check every flowcontrol manifest with
// the server's own decode → default → validate path (inline `objects` and `files`), then build the
// configuration the controller digests, as a server would hold it after `kubectl apply`:
// bootstrap objects first, the scenario's objects applied over them, and the configuration
// ensurer's verdict on any bootstrap object the scenario changed (see scenario-config.ts).

import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { flowcontrolManifestKinds } from '../engine/config/flowcontrol-kinds.ts';
import { checkManifests, createManifestRegistry, formatManifestError, readManifestFile } from '../engine/config/manifests.ts';
import type { FlowcontrolConfig } from '../engine/flowcontrol/controller.ts';
import { fieldErrorBody, formatFieldError, moreFieldErrors, omittedFieldErrors } from '../engine/resources/field-errors.ts';
import { canonicalFlowSchemaSpec, canonicalPriorityLevelSpec } from '../engine/resources/spec-equality.ts';
import { objectCountWarnings } from './object-count-check.ts';
import { buildConfig, type AppliedObject } from './scenario-config.ts';
import { parseScenario, type Scenario } from './scenario.ts';
import { formatPath, formatSourceError, parseFieldPath, parseYamlSource, type SourceError } from './yaml-source.ts';
import { append } from '../engine/append.ts';

export interface LoadedScenario {
  /** The scenario file as given on the command line. */
  file: string;
  scenario: Scenario;
  config: FlowcontrolConfig;
  /** Things a person should know (e.g. an edit the configuration ensurer would undo). */
  warnings: string[];
}

export type LoadResult = { ok: true; loaded: LoadedScenario } | { ok: false; errors: string[] };

export interface LoadOptions {
  /** More manifest files applied after the scenario's own (a sweep's configuration variant). */
  extraFiles?: readonly string[];
  /** Manifests applied after those files (a tuning candidate, a suggestion); `origin` names them in messages. */
  extraObjects?: readonly ExtraObject[];
}

export interface ExtraObject {
  origin: string;
  object: Record<string, unknown>;
}

export async function loadScenarioFile(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      ok: false,
      errors: [`${file}: cannot read: ${code === 'ENOENT' ? 'no such file or directory' : error instanceof Error ? error.message : String(error)}`],
    };
  }
  return loadScenarioText(text, file, options);
}

export async function loadScenarioText(text: string, file: string, options: LoadOptions = {}): Promise<LoadResult> {
  const parsed = parseYamlSource(text, file);
  if ('error' in parsed) return { ok: false, errors: [formatSourceError(parsed.error)] };
  const { source } = parsed;
  const defaultName = basename(file, extname(file));
  const { scenario, problems } = parseScenario(source.value, defaultName);
  // In file order, so a person can fix them top to bottom.
  const errors: string[] = problems
    .map((p) => ({ line: source.lineOf(p.path), error: p }))
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
    .map(({ line, error: p }) => formatSourceError({ file, line, path: formatPath(p.path), message: p.message }));

  const registry = createManifestRegistry(flowcontrolManifestKinds());
  const applied: AppliedObject[] = [];
  for (const { index, object } of scenario.objects) {
    const where = `objects[${index}]`;
    const entry = registry.lookup(object.apiVersion, object.kind);
    const name = typeof (object.metadata as { name?: unknown } | undefined)?.name === 'string' ? String((object.metadata as { name: string }).name) : '';
    if (entry === undefined) {
      const known = registry.kinds.map((k) => `${k.apiVersion} ${k.kind}`).join(', ');
      errors.push(
        formatSourceError({
          file,
          line: source.lineOf(['objects', index]),
          path: where,
          message: `unknown kind: apiVersion ${JSON.stringify(object.apiVersion)}, kind ${JSON.stringify(object.kind)} (known: ${known})`,
        }),
      );
      continue;
    }
    const fieldErrors = safeCheck(() => entry.check(object, file));
    for (const e of fieldErrors) {
      const segments = ['objects', index, ...parseFieldPath(e.field)];
      const error: SourceError = {
        file,
        line: source.lineOf(segments),
        path: `${where}.${e.field}`,
        message: `${fieldErrorBody(e)} (${entry.kind} ${JSON.stringify(name)})`,
      };
      errors.push(formatSourceError(error));
    }
    // Validation keeps its first errors and counts the rest: say how many, as `config check` does.
    if (omittedFieldErrors(fieldErrors) > 0) errors.push(`${file}: ${where}: ${moreFieldErrors(omittedFieldErrors(fieldErrors))}`);
    if (fieldErrors.length === 0) applied.push({ kind: entry.kind, object, origin: `${file}: ${where}` });
  }

  const baseDir = dirname(file);
  const manifestFiles = [...scenario.files.map((f) => (isAbsolute(f) ? f : join(baseDir, f))), ...(options.extraFiles ?? [])];
  for (const [fileIndex, shown] of manifestFiles.entries()) {
    const variant = fileIndex >= scenario.files.length;
    const manifest = await readManifestFile(shown);
    const { checked, errors: kindErrors } = checkManifests(manifest, registry);
    for (const e of [...manifest.errors, ...kindErrors]) errors.push(formatManifestError({ ...e, file: shown }));
    for (const c of checked) {
      const label = `${shown}${c.document.line === undefined ? '' : `:${c.document.line}`}`;
      for (const e of c.errors) errors.push(`${label}: ${c.kind.kind}/${c.name || '(unnamed)'}: ${formatFieldError(e)}`);
      if (omittedFieldErrors(c.errors) > 0) errors.push(`${label}: ${c.kind.kind}/${c.name || '(unnamed)'}: ${moreFieldErrors(omittedFieldErrors(c.errors))}`);
      if (c.errors.length === 0) applied.push({ kind: c.kind.kind, object: c.document.object, origin: `${label}: ${c.kind.kind}/${c.name}`, variant });
    }
  }
  for (const extra of options.extraObjects ?? []) {
    const object = extra.object;
    const entry = registry.lookup(object.apiVersion, object.kind);
    if (entry === undefined) {
      errors.push(`${extra.origin}: unknown kind: apiVersion ${JSON.stringify(object.apiVersion)}, kind ${JSON.stringify(object.kind)}`);
      continue;
    }
    const fieldErrors = safeCheck(() => entry.check(object, extra.origin));
    for (const e of fieldErrors) errors.push(`${extra.origin}: ${entry.kind}: ${formatFieldError(e)}`);
    if (omittedFieldErrors(fieldErrors) > 0) errors.push(`${extra.origin}: ${entry.kind}: ${moreFieldErrors(omittedFieldErrors(fieldErrors))}`);
    if (fieldErrors.length === 0) applied.push({ kind: entry.kind, object, origin: extra.origin, variant: true });
  }
  if (errors.length > 0) return { ok: false, errors };

  const { config, warnings } = buildConfig(scenario.bootstrap, applied);
  if (applied.some((a) => a.variant === true)) {
    // A variant that the ensurer undoes, or that repeats what is there, would make a comparison
    // report "no difference" for a reason that has nothing to do with the traffic.
    const without = buildConfig(
      scenario.bootstrap,
      applied.filter((a) => a.variant !== true),
    ).config;
    if (digestedConfigKey(without) === digestedConfigKey(config)) {
      const origins = [...new Set(applied.filter((a) => a.variant === true).map((a) => a.origin.split(':')[0]))].join(', ');
      warnings.push(`${origins}: the variant changes nothing the controller digests (same PriorityLevelConfiguration and FlowSchema specs as without it)`);
    }
  }
  append(warnings, objectCountWarnings(scenario, file));
  return { ok: true, loaded: { file, scenario, config, warnings } };
}

/** The names and specs of a configuration, in name order: what classification and limits depend on. */
export function digestedConfigKey(config: FlowcontrolConfig): string {
  const byName = (entries: (readonly [string, unknown])[]) => entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return JSON.stringify([
    byName(config.priorityLevels.map((o) => [o.metadata?.name ?? '', canonicalPriorityLevelSpec(o.spec)] as const)),
    byName(config.flowSchemas.map((o) => [o.metadata?.name ?? '', canonicalFlowSchemaSpec(o.spec)] as const)),
  ]);
}

function safeCheck(check: () => ReturnType<ReturnType<typeof flowcontrolManifestKinds>[number]['check']>) {
  try {
    return check();
  } catch (error) {
    return [{ type: 'InternalError' as const, field: '', detail: `internal error while checking: ${error instanceof Error ? error.message : String(error)}` }];
  }
}
