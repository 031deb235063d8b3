// `--admission-control-config-file`: the AdmissionConfiguration file, read as kube-apiserver's
// ReadAdmissionConfiguration reads it. The file only routes configuration to plugins; nothing in it
// is validated against the plugin registry:
// - `plugins[]` entries are `{name, path, configuration}`; for each *enabled* plugin the first entry
//   with its name wins, later duplicates and unknown names are ignored;
// - inline `configuration` wins over `path`; a relative `path` resolves against the directory of
//   the AdmissionConfiguration file; a `path` that cannot be read is a startup error naming it;
// - no file at all means every plugin gets no configuration.
// Each plugin then decodes and validates what it was given (engine/auth/admission/build-admission.ts).
import { dirname, isAbsolute, resolve } from 'node:path';
import type { FieldError } from '../resources/field-errors.ts';
import { apiGroupsFor } from '../resources/api-domain.ts';
import { anything, arrayOf, decodeShape, string, struct } from '../resources/schema-decoder.ts';
import { isRecord } from '../own-property.ts';
import { parseManifests } from './manifests.ts';
import { readConfigFile } from './config-file.ts';

export const ADMISSION_CONFIG_KIND = 'AdmissionConfiguration';
/** The old group that still loads: `apiserver.k8s.io/v1alpha1` (not apiserver.config). */
export const LEGACY_ADMISSION_API_VERSION = 'apiserver.k8s.io/v1alpha1';

export interface AdmissionPluginEntry {
  name: string;
  /** Absolute, resolved against the configuration file's directory. */
  path?: string;
  /** The inline object (YAML already turned into JSON values). */
  configuration?: Record<string, unknown>;
}

export interface AdmissionConfiguration {
  file: string;
  plugins: AdmissionPluginEntry[];
}

/** What one enabled plugin is handed: nothing, or an object and where it came from. */
export type PluginConfig = { source: 'none' } | { source: 'inline' | 'path'; object: Record<string, unknown>; file: string };

export type AdmissionConfigResult = { ok: true; config: AdmissionConfiguration } | { ok: false; error: string; fieldErrors: FieldError[] };

export function isAdmissionConfigKind(apiVersion: unknown, kind: unknown, apiDomain?: string): boolean {
  return kind === ADMISSION_CONFIG_KIND && (apiVersion === `${apiGroupsFor(apiDomain).apiserverConfig}/v1` || apiVersion === LEGACY_ADMISSION_API_VERSION);
}

const CONFIG_SHAPE = struct({
  apiVersion: string,
  kind: string,
  plugins: arrayOf(struct({ name: string, path: string, configuration: anything })),
});

export async function loadAdmissionConfig(file: string, options: { apiDomain?: string | undefined } = {}): Promise<AdmissionConfigResult> {
  let text: string;
  try {
    text = (await readConfigFile(file)).toString('utf8');
  } catch (error) {
    return { ok: false, error: `unable to read admission control configuration from ${JSON.stringify(file)} [${goOpenError(error, file)}]`, fieldErrors: [] };
  }
  return parseAdmissionConfig(text, file, options);
}

export function parseAdmissionConfig(text: string, file: string, options: { apiDomain?: string | undefined } = {}): AdmissionConfigResult {
  const manifest = parseManifests(text, file);
  const first = manifest.documents[0];
  const parseError = manifest.errors[0];
  const fail = (why: string, fieldErrors: FieldError[] = []): AdmissionConfigResult => ({
    ok: false,
    error: `unable to read admission control configuration from ${JSON.stringify(file)} [${why}]`,
    fieldErrors,
  });
  if (first === undefined || (parseError !== undefined && (parseError.index ?? 0) === 0)) return fail(parseError?.message ?? "Object 'Kind' is missing");
  return decodeAdmissionObject(first.object, file, options.apiDomain, fail);
}

/** One parsed document to the configuration, relative paths resolved against `file`'s directory. */
export function decodeAdmissionObject(
  object: Record<string, unknown>,
  file: string,
  apiDomain: string | undefined,
  fail: (why: string, fieldErrors?: FieldError[]) => AdmissionConfigResult = (why, fieldErrors = []) => ({ ok: false, error: why, fieldErrors }),
): AdmissionConfigResult {
  if (!isAdmissionConfigKind(object.apiVersion, object.kind, apiDomain)) {
    // The pre-versioned format: a bare ImagePolicyWebhook / PodNodeSelector file. Fairway has
    // neither plugin, so such a file configures nothing.
    if (object.kind === undefined && (object.imagePolicy !== undefined || object.podNodeSelectorPluginConfig !== undefined))
      return { ok: true, config: { file, plugins: [] } };
    if (typeof object.kind !== 'string' || object.kind === '') return fail("Object 'Kind' is missing");
    return fail(`no kind ${JSON.stringify(object.kind)} is registered for version ${JSON.stringify(String(object.apiVersion ?? ''))}`);
  }
  const { value, errors } = decodeShape(object, CONFIG_SHAPE);
  if (errors.length > 0) {
    const unknown = errors.filter((e) => e.type === 'FieldValueForbidden');
    const why =
      unknown.length === errors.length
        ? `strict decoding error: ${unknown.map((e) => `unknown field ${JSON.stringify(e.field)}`).join(', ')}`
        : `${errors[0]!.field}: ${errors[0]!.detail}`;
    return fail(why, errors);
  }
  const base = dirname(file) === '' || dirname(file) === '.' ? process.cwd() : dirname(file);
  const raw = value as { plugins?: { name?: string; path?: string; configuration?: unknown }[] };
  const plugins = (raw.plugins ?? []).map((entry) => {
    const plugin: AdmissionPluginEntry = { name: entry.name ?? '' };
    if (entry.path !== undefined && entry.path !== '') plugin.path = isAbsolute(entry.path) ? entry.path : resolve(base, entry.path);
    if (isRecord(entry.configuration)) plugin.configuration = entry.configuration;
    return plugin;
  });
  return { ok: true, config: { file, plugins } };
}

/**
 * The configuration for one enabled plugin: inline if present, else the file at `path` (read and
 * parsed; unreadable is an error naming it), else none.
 */
export async function pluginConfig(
  config: AdmissionConfiguration | undefined,
  pluginName: string,
): Promise<{ ok: true; value: PluginConfig } | { ok: false; error: string }> {
  const entry = config?.plugins.find((p) => p.name === pluginName);
  if (entry === undefined) return { ok: true, value: { source: 'none' } };
  if (entry.configuration !== undefined) return { ok: true, value: { source: 'inline', object: entry.configuration, file: config!.file } };
  if (entry.path === undefined) return { ok: true, value: { source: 'none' } };
  let text: string;
  try {
    text = (await readConfigFile(entry.path)).toString('utf8');
  } catch (error) {
    return { ok: false, error: `Couldn't open admission plugin configuration ${entry.path}: ${goOpenError(error, entry.path)}` };
  }
  const manifest = parseManifests(text, entry.path);
  const first = manifest.documents[0];
  if (first === undefined) {
    const problem = manifest.errors[0];
    return { ok: false, error: `${entry.path}: ${problem?.message ?? 'no configuration object found'}` };
  }
  return { ok: true, value: { source: 'path', object: first.object, file: entry.path } };
}

/** Go's `open <path>: <reason>` for the usual errno values. */
function goOpenError(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
  };
  const reason = code === undefined ? undefined : reasons[code];
  if (reason === undefined) return (error as Error).message;
  return code === 'EISDIR' ? `read ${path}: ${reason}` : `open ${path}: ${reason}`;
}
