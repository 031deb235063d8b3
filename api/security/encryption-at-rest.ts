// `--encryption-provider-config` and `--encryption-provider-config-automatic-reload` for
// `fairway serve`: load and validate the file at startup (an invalid one stops the server with the
// file, field and kube-apiserver's message), build one transformer per stored resource and route
// the store's storage keys to them through a holder the store reads per operation. With automatic
// reload the file is checked every minute (on the injected clock); a valid change is built, its KMS
// plugins given time to become healthy, then swapped in, and the old transformers are closed after
// a grace period; an invalid change is logged once and the configuration in force is kept.
// KMS v2 plugin health is offered as health checks with kube-apiserver's names.
import type { Clock } from '../../engine/clock.ts';
import type { GroupResource, LoadedEncryptionConfig, ProviderConfiguration } from '../../engine/config/encryption-config.ts';
import { formatEncryptionConfigError, formatGroupResource, loadEncryptionConfig } from '../../engine/config/encryption-config.ts';
import { createEncryptionConfigWatcher, type EncryptionConfigWatcher } from '../../engine/config/encryption-reload.ts';
import { parseGoDuration, goDurationToMs } from '../../engine/go-duration.ts';
import {
  createResourceTransformers,
  routeByStorageKey,
  type ResourceTransformers,
  type ResourceTransformersDeps,
} from '../../engine/store/transformers/resource-transformers.ts';
import { createTransformerHolder, type TransformerHolder } from '../../engine/store/transformer-holder.ts';
import { FLOWCONTROL_KINDS, storeResourceInfo } from '../../engine/resources/kinds.ts';
import type { HealthCheck } from '../handlers/health.ts';
import type { Logger } from '../log.ts';

/** Tests shorten the reload poll with this (a Go duration such as `200ms`); the default is kube's minute. */
export const RELOAD_INTERVAL_ENV = 'FAIRWAY_ENCRYPTION_CONFIG_RELOAD_INTERVAL';
/** How long replaced transformers stay open for operations that started with them. */
export const CLOSE_GRACE_MS = 60_000;
/** kube-apiserver waits max(10 s, 2 × the sum of KMS timeouts) for a new configuration's plugins. */
const KMS_HEALTH_WAIT_MIN_MS = 10_000;
const KMS_HEALTH_POLL_MS = 1_000;

export interface EncryptionAtRestOptions {
  file: string;
  automaticReload: boolean;
  apiDomain?: string | undefined;
  clock: Clock;
  logger: Logger;
  /** What the store keeps: storage keys are routed to these resources' transformers. */
  resources: readonly GroupResource[];
  /** Default: RELOAD_INTERVAL_ENV, else one minute. */
  reloadIntervalMs?: number;
  closeGraceMs?: number;
  /** Test seams (KMS connectors, randomness). */
  transformerDeps?: Omit<ResourceTransformersDeps, 'clock'>;
}

export interface EncryptionAtRest {
  /** Give this to createStore as its transformer. */
  holder: TransformerHolder;
  /** `kms-providers` with automatic reload, else `kms-provider-<i>` per KMS v2 provider. */
  healthChecks: HealthCheck[];
  current(): LoadedEncryptionConfig;
  /** Present with automatic reload. */
  watcher: EncryptionConfigWatcher | undefined;
  stop(): void;
}

export type EncryptionAtRestResult = { ok: true; value: EncryptionAtRest } | { ok: false; error: string };

export async function startEncryptionAtRest(options: EncryptionAtRestOptions): Promise<EncryptionAtRestResult> {
  const { clock, logger } = options;
  const loadOptions = { apiDomain: options.apiDomain };
  const loaded = await loadEncryptionConfig(options.file, { ...loadOptions, reload: options.automaticReload });
  if (!loaded.ok) return { ok: false, error: formatEncryptionConfigError(loaded.error) };
  const deps: ResourceTransformersDeps = { ...options.transformerDeps, clock };
  let transformers: ResourceTransformers;
  try {
    transformers = await createResourceTransformers(loaded.value, deps);
  } catch (error) {
    return { ok: false, error: `${options.file}: error while building transformers: ${error instanceof Error ? error.message : String(error)}` };
  }
  const holder = createTransformerHolder(routeByStorageKey(transformers, options.resources));
  logger.info(`encryption at rest from ${options.file} (${loaded.value.contentHash}): ${describeWriters(loaded.value, options.resources)}`);
  const health = createKmsHealth(() => transformers, options.automaticReload);
  await health.refresh();
  for (const problem of health.problems()) logger.warning(problem);

  /** Closes a replaced set of transformers now (at stop) instead of after the grace period. */
  const retired = new Set<() => void>();
  let stopped = false;
  let prepared: { hash: string; transformers: ResourceTransformers } | undefined;
  let watcher: EncryptionConfigWatcher | undefined;
  if (options.automaticReload) {
    watcher = createEncryptionConfigWatcher({
      file: options.file,
      clock,
      initial: loaded.value,
      loadOptions,
      intervalMs: options.reloadIntervalMs ?? reloadIntervalFromEnv(process.env[RELOAD_INTERVAL_ENV]),
      async prepare(candidate) {
        let built: ResourceTransformers;
        try {
          built = await createResourceTransformers(candidate, deps);
        } catch (error) {
          return { ok: false, message: `error while building transformers: ${error instanceof Error ? error.message : String(error)}` };
        }
        const unhealthy = await waitForKmsHealth(built, candidate, clock);
        if (unhealthy !== undefined || stopped) {
          built.close();
          return { ok: false, message: unhealthy ?? 'the server is stopping' };
        }
        prepared?.transformers.close();
        prepared = { hash: candidate.contentHash, transformers: built };
        return { ok: true };
      },
      onOutcome(outcome) {
        if (outcome.kind === 'rejected') {
          logger.error(
            `encryption provider configuration not reloaded, keeping ${watcher?.current().contentHash ?? loaded.value.contentHash}: ` +
              `${formatEncryptionConfigError(outcome.error)}`,
          );
          return;
        }
        if (prepared === undefined || prepared.hash !== outcome.config.contentHash) return;
        const previous = transformers;
        transformers = prepared.transformers;
        prepared = undefined;
        holder.swap(routeByStorageKey(transformers, options.resources));
        const closeNow = (): void => {
          cancelTimer();
          retired.delete(closeNow);
          previous.close();
        };
        const cancelTimer = clock.after(options.closeGraceMs ?? CLOSE_GRACE_MS, closeNow);
        retired.add(closeNow);
        logger.info(
          `encryption provider configuration reloaded from ${options.file} (${outcome.config.contentHash}): ` +
            `${describeWriters(outcome.config, options.resources)}`,
        );
        void health.refresh();
      },
    });
    watcher.start();
  }

  return {
    ok: true,
    value: {
      holder,
      healthChecks: health.checks(),
      current: () => watcher?.current() ?? loaded.value,
      watcher,
      stop() {
        if (stopped) return;
        stopped = true;
        watcher?.stop();
        for (const closeNow of [...retired]) closeNow();
        prepared?.transformers.close();
        transformers.close();
      },
    },
  };
}

/** A Go duration from the environment, else one minute; a bad value is ignored. */
export function reloadIntervalFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return 60_000;
  const parsed = parseGoDuration(value);
  return parsed.ok && parsed.nanoseconds > 0n ? goDurationToMs(parsed.nanoseconds) : 60_000;
}

/** `flowschemas.flowcontrol.apiserver.k8s.io: aescbc key "k1"`, one entry per stored resource. */
export function describeWriters(config: LoadedEncryptionConfig, resources: readonly GroupResource[]): string {
  return resources
    .map((gr) => {
      const writer = config.rules.providersFor(gr)?.[0]?.provider;
      return `${formatGroupResource(gr)}: ${writer === undefined ? 'identity (no rule)' : describeProvider(writer)}`;
    })
    .join(', ');
}

function describeProvider(provider: ProviderConfiguration): string {
  if (provider.kms !== undefined) return `kms ${provider.kms.apiVersion} ${JSON.stringify(provider.kms.name)}`;
  for (const kind of ['aesgcm', 'aescbc', 'secretbox'] as const) {
    const keys = provider[kind]?.keys;
    if (keys !== undefined) return `${kind} key ${JSON.stringify(keys[0]?.name ?? '')}`;
  }
  return 'identity';
}

/** undefined once every KMS v2 provider of `built` is healthy; the last problem after the deadline. */
async function waitForKmsHealth(built: ResourceTransformers, config: LoadedEncryptionConfig, clock: Clock): Promise<string | undefined> {
  let timeoutsMs = 0;
  for (const entry of config.config.resources) for (const provider of entry.providers) timeoutsMs += provider.kms?.timeoutMs ?? 0;
  const deadlineMs = clock.now() + Math.max(KMS_HEALTH_WAIT_MIN_MS, 2 * timeoutsMs);
  for (;;) {
    const unhealthy = (await built.health()).filter((p) => !p.health.healthy);
    if (unhealthy.length === 0) return undefined;
    if (clock.now() >= deadlineMs) return unhealthy.map((p) => (p.health.healthy ? '' : p.health.error)).join('; ');
    await new Promise<void>((resolve) => clock.after(KMS_HEALTH_POLL_MS, resolve));
  }
}

interface KmsHealthChecks {
  /** Call after the first refresh: without reload there is one check per provider found then. */
  checks(): HealthCheck[];
  problems(): string[];
  refresh(): Promise<void>;
}

/**
 * Health checks answer synchronously, so each answers from the last KMS health reading and starts
 * a new one (the providers cache their answers, 20 s good and 3 s bad, as kube-apiserver does).
 */
function createKmsHealth(current: () => ResourceTransformers, oneCheck: boolean): KmsHealthChecks {
  let readings: { name: string; problem: string | undefined }[] = [];
  let refreshing: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    refreshing ??= current()
      .health()
      .then(
        (list) => {
          readings = list.map((p) => ({ name: p.name, problem: p.health.healthy ? undefined : p.health.error }));
        },
        (error: unknown) => {
          readings = readings.map((r) => ({ ...r, problem: `kms health check failed: ${error instanceof Error ? error.message : String(error)}` }));
        },
      )
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };
  const problems = () => readings.flatMap((r) => (r.problem === undefined ? [] : [r.problem]));
  const checks = (): HealthCheck[] => {
    if (!oneCheck) {
      return readings.map((_, i) => ({
        name: `kms-provider-${i}`,
        check: () => {
          void refresh();
          return readings[i]?.problem;
        },
      }));
    }
    const check = (): string | undefined => {
      void refresh();
      const found = problems();
      return found.length === 0 ? undefined : found.join('; ');
    };
    return [{ name: 'kms-providers', check }];
  };
  return { checks, problems, refresh };
}

/** The resources `fairway serve` stores, as encryption rules name them. */
export function storedResources(apiDomain?: string): GroupResource[] {
  return FLOWCONTROL_KINDS.map((kind) => {
    const info = storeResourceInfo(kind, apiDomain);
    return { group: info.group, resource: info.resource };
  });
}
