// The admission chain from `--enable-admission-plugins` and `--admission-control-config-file`.
// Fairway registers two plugins (docs/auth.md, "Admission"): EventRateLimit (off unless enabled)
// and ValidatingAdmissionPolicy (on by default, as in kube-apiserver; without a configuration it
// has no policies). Each plugin decodes and validates its own configuration; any problem stops the
// server at startup with `couldn't init admission plugin "<name>": <problem>`.
import type { Clock } from '../../clock.ts';
import type { FieldError } from '../../resources/field-errors.ts';
import { FieldPath, formatFieldErrors, invalid } from '../../resources/field-errors.ts';
import { apiGroupsFor } from '../../resources/api-domain.ts';
import { arrayOf, decodeShape, int32, string, struct } from '../../resources/schema-decoder.ts';
import type { AdmissionConfiguration } from '../../config/admission-config.ts';
import { loadAdmissionConfig, pluginConfig } from '../../config/admission-config.ts';
import type { AdmissionAttributes, AdmissionChain, ValidatingAdmissionPlugin } from './admission.ts';
import { createAdmissionChain } from './admission.ts';
import { createEventRateLimit, EVENT_RATE_LIMIT_CONFIG, EVENT_RATE_LIMIT_PLUGIN, validateEventRateLimitConfiguration, type Limit } from './event-rate-limit.ts';
import { loadPolicyManifests } from './policy-manifests.ts';
import { createValidatingAdmissionPolicy, VALIDATING_ADMISSION_POLICY_PLUGIN } from './validating-admission-policy.ts';

/** Registered plugins, in the order they run. */
export const ADMISSION_PLUGINS = [EVENT_RATE_LIMIT_PLUGIN, VALIDATING_ADMISSION_POLICY_PLUGIN] as const;
export const DEFAULT_ADMISSION_PLUGINS: readonly string[] = [VALIDATING_ADMISSION_POLICY_PLUGIN];
export const POLICY_CONFIG_KIND = 'ValidatingAdmissionPolicyConfiguration';

export interface AdmissionOptions {
  /** `--enable-admission-plugins`, added to the defaults. */
  enablePlugins: readonly string[];
  /** `--admission-control-config-file`; `''` for none. */
  configFile: string;
  clock: Clock;
  apiDomain?: string | undefined;
}

export type AdmissionBuild = { ok: true; chain: AdmissionChain } | { ok: false; error: string };

export async function buildAdmissionChain(options: AdmissionOptions): Promise<AdmissionBuild> {
  for (const name of options.enablePlugins) {
    if (!(ADMISSION_PLUGINS as readonly string[]).includes(name))
      return { ok: false, error: `enable-admission-plugins plugin ${JSON.stringify(name)} is unknown` };
  }
  const enabled = new Set([...DEFAULT_ADMISSION_PLUGINS, ...options.enablePlugins]);
  let config: AdmissionConfiguration | undefined;
  if (options.configFile !== '') {
    const loaded = await loadAdmissionConfig(options.configFile, options);
    if (!loaded.ok) return { ok: false, error: `failed to read plugin config: ${loaded.error}` };
    config = loaded.config;
  }
  const plugins: ValidatingAdmissionPlugin[] = [];
  for (const name of ADMISSION_PLUGINS) {
    if (!enabled.has(name)) continue;
    const given = await pluginConfig(config, name);
    if (!given.ok) return { ok: false, error: given.error };
    const object = given.value.source === 'none' ? undefined : given.value.object;
    const plugin = await initPlugin(name, object, options);
    if (typeof plugin === 'string') return { ok: false, error: `couldn't init admission plugin ${JSON.stringify(name)}: ${plugin}` };
    plugins.push(plugin);
  }
  return { ok: true, chain: createAdmissionChain(plugins) };
}

async function initPlugin(name: string, object: Record<string, unknown> | undefined, options: AdmissionOptions): Promise<ValidatingAdmissionPlugin | string> {
  const flowcontrolGroup = apiGroupsFor(options.apiDomain).flowcontrol;
  if (name === EVENT_RATE_LIMIT_PLUGIN) {
    if (object === undefined) return 'missing configuration: EventRateLimit needs a Configuration with limits';
    const decoded = decodeEventRateLimit(object);
    if ('errors' in decoded) return formatFieldErrors(decoded.errors);
    return createEventRateLimit(decoded.config, { clock: options.clock, appliesTo: (a: AdmissionAttributes) => a.resource.group === flowcontrolGroup });
  }
  const dir = object === undefined ? undefined : decodePolicyConfig(object, options.apiDomain);
  if (typeof dir === 'object') return formatFieldErrors(dir.errors);
  if (dir === undefined) return createValidatingAdmissionPolicy([], []);
  const manifests = loadPolicyManifests(dir, options.apiDomain);
  if (manifests.errors.length > 0) return manifests.errors.join('; ');
  return createValidatingAdmissionPolicy(manifests.policies, manifests.bindings);
}

const EVENT_RATE_LIMIT_SHAPE = struct({
  apiVersion: string,
  kind: string,
  limits: arrayOf(struct({ type: string, qps: int32, burst: int32, cacheSize: int32 })),
});

/** The EventRateLimit Configuration: strict decode, then Kubernetes' validation. */
export function decodeEventRateLimit(object: Record<string, unknown>): { config: { limits: Limit[] } } | { errors: FieldError[] } {
  if (object.apiVersion !== EVENT_RATE_LIMIT_CONFIG.apiVersion || object.kind !== EVENT_RATE_LIMIT_CONFIG.kind) {
    return {
      errors: [
        invalid(
          FieldPath.root('kind'),
          `${String(object.apiVersion)}/${String(object.kind)}`,
          `expected ${EVENT_RATE_LIMIT_CONFIG.apiVersion} ${EVENT_RATE_LIMIT_CONFIG.kind}`,
        ),
      ],
    };
  }
  const { value, errors } = decodeShape(object, EVENT_RATE_LIMIT_SHAPE);
  if (errors.length > 0) return { errors };
  const raw = value as { limits?: Partial<Limit>[] };
  const problems = validateEventRateLimitConfiguration(raw);
  if (problems.length > 0) return { errors: problems };
  return { config: { limits: (raw.limits ?? []).map((l) => ({ type: l.type!, qps: l.qps ?? 0, burst: l.burst ?? 0, cacheSize: l.cacheSize ?? 0 })) } };
}

const POLICY_CONFIG_SHAPE = struct({ apiVersion: string, kind: string, staticManifestsDir: string });

/** ValidatingAdmissionPolicyConfiguration: the static manifests directory, which must be absolute. */
export function decodePolicyConfig(object: Record<string, unknown>, apiDomain?: string): string | undefined | { errors: FieldError[] } {
  const apiVersion = `${apiGroupsFor(apiDomain).apiserverConfig}/v1`;
  if (object.apiVersion !== apiVersion || object.kind !== POLICY_CONFIG_KIND) {
    return { errors: [invalid(FieldPath.root('kind'), `${String(object.apiVersion)}/${String(object.kind)}`, `expected ${apiVersion} ${POLICY_CONFIG_KIND}`)] };
  }
  const { value, errors } = decodeShape(object, POLICY_CONFIG_SHAPE);
  if (errors.length > 0) return { errors };
  const dir = (value as { staticManifestsDir?: string }).staticManifestsDir;
  if (dir === undefined || dir === '') return undefined;
  if (!dir.startsWith('/')) return { errors: [invalid(FieldPath.root('staticManifestsDir'), dir, 'must be an absolute file path')] };
  return dir;
}
