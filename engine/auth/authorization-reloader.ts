// Automatic reload of --authorization-config, as kube-apiserver does it: a poll (1 minute) plus a
// file-system watch both call `check`, which reads the file, does nothing if the bytes are
// unchanged, validates (every non-Webhook type the server started with must still be there, and
// RBAC/Node/ABAC cannot appear for the first time), does nothing if the parsed configuration is
// unchanged, builds a new chain and swaps it in. Any failure is logged and counted and the last
// good chain keeps serving. A new chain means new webhook decision caches.
import { watch, type FSWatcher } from 'node:fs';
import { readConfigFile } from '../config/config-file.ts';
import type { Clock } from '../clock.ts';
import type { AuthorizationConfigOptions, LoadedAuthorizationConfig } from './authorization-config.ts';
import { formatAuthorizationConfigError, parseAuthorizationConfig } from './authorization-config.ts';
import { createSwappableAuthorizer, type SwappableAuthorizer } from './authorizer-chain.ts';
import { buildAuthorizerFromConfig, type AuthorizerDeps } from './build-authorizer.ts';
import { noopAuthorizationMetrics } from './authorization-metrics.ts';

export const DEFAULT_RELOAD_INTERVAL_MS = 60_000;
const STARTUP_ONLY_TYPES = ['ABAC', 'Node', 'RBAC'];

export type ReloadOutcome = 'unchanged' | 'reloaded' | 'failed';

export interface AuthorizationConfigController {
  readonly authorizer: SwappableAuthorizer;
  /** The configuration currently in force. */
  current(): LoadedAuthorizationConfig;
  /** Reads the file now (what the poll and the watch call); checks never overlap. */
  check(): Promise<ReloadOutcome>;
  stop(): void;
}

export interface ControllerOptions extends AuthorizerDeps {
  file: string;
  config?: Omit<AuthorizationConfigOptions, 'requiredNonWebhookTypes'>;
  clock: Clock;
  intervalMs?: number | undefined;
  /** Also react to file-system events (off in tests that want only explicit checks). */
  watchFile?: boolean;
  log?: { info(message: string): void; error(message: string): void };
}

/** Loads and builds the initial chain (an error value if either fails) and starts watching. */
export async function startAuthorizationConfigController(
  options: ControllerOptions,
): Promise<{ ok: true; controller: AuthorizationConfigController } | { ok: false; error: string }> {
  const { file, clock } = options;
  const metrics = options.metrics ?? noopAuthorizationMetrics;
  let lastBytes: Buffer;
  try {
    lastBytes = await readConfigFile(file);
  } catch (error) {
    return { ok: false, error: `failed to read authorization config file ${JSON.stringify(file)}: ${(error as Error).message}` };
  }
  const initial = await parseAuthorizationConfig(lastBytes, file, options.config);
  if (!initial.ok) return { ok: false, error: formatAuthorizationConfigError(initial.error) };
  const built = await buildAuthorizerFromConfig(initial.value, options);
  if (!built.ok) return { ok: false, error: `${file}: ${built.error}` };
  const startupTypes = new Set(initial.value.config.authorizers.map((a) => a.type).filter((t) => t !== 'Webhook'));
  const authorizer = createSwappableAuthorizer(built.authorizer);
  let current = initial.value;
  metrics.configReload('success', clock.now() / 1000, current.contentHash);

  const checkOnce = async (): Promise<ReloadOutcome> => {
    const failed = (message: string): ReloadOutcome => {
      options.log?.error(`reloading authorization config: ${message}`);
      metrics.configReload('failure', clock.now() / 1000);
      return 'failed';
    };
    let bytes: Buffer;
    try {
      bytes = await readConfigFile(file);
    } catch (error) {
      return failed((error as Error).message);
    }
    if (bytes.equals(lastBytes)) return 'unchanged';
    lastBytes = bytes;
    const parsed = await parseAuthorizationConfig(bytes, file, { ...options.config, requiredNonWebhookTypes: [...startupTypes] });
    if (!parsed.ok) return failed(formatAuthorizationConfigError(parsed.error));
    const added = parsed.value.config.authorizers.find((a) => STARTUP_ONLY_TYPES.includes(a.type) && !startupTypes.has(a.type));
    if (added !== undefined) return failed(`authorizer type ${added.type} is not allowed if it was not enabled at initial server startup`);
    if (sameConfig(parsed.value, current)) return 'unchanged';
    const next = await buildAuthorizerFromConfig(parsed.value, options);
    if (!next.ok) return failed(next.error);
    authorizer.swap(next.authorizer);
    current = parsed.value;
    options.log?.info(`reloaded authorization config from ${file}`);
    metrics.configReload('success', clock.now() / 1000, current.contentHash);
    return 'reloaded';
  };

  let queue: Promise<ReloadOutcome> = Promise.resolve('unchanged');
  const check = (): Promise<ReloadOutcome> => (queue = queue.then(checkOnce, checkOnce));

  let stopped = false;
  let cancelPoll = (): void => undefined;
  const intervalMs = options.intervalMs ?? DEFAULT_RELOAD_INTERVAL_MS;
  const schedule = (): void => {
    cancelPoll = clock.after(intervalMs, () => {
      if (stopped) return;
      void check().finally(() => {
        if (!stopped) schedule();
      });
    });
  };
  schedule();
  const watcher = options.watchFile === false ? undefined : watchFile(file, () => void check(), options.log);

  return {
    ok: true,
    controller: {
      authorizer,
      current: () => current,
      check,
      stop: () => {
        stopped = true;
        cancelPoll();
        watcher?.close();
        authorizer.close?.();
      },
    },
  };
}

/**
 * Watches the file. Editors and config-map mounts replace the file (a rename), which ends a watch
 * on it, so after a rename the watch is set up again on the new file; if none is there yet, the
 * poll still notices the change. Every event triggers a check, and a check compares bytes, so a
 * spurious event costs one read.
 */
function watchFile(file: string, onEvent: () => void, log?: { error(message: string): void }): { close(): void } {
  let watcher: FSWatcher | undefined;
  let closed = false;
  const start = (): void => {
    if (closed) return;
    try {
      watcher = watch(file, { persistent: false }, (event) => {
        onEvent();
        if (event === 'rename') {
          watcher?.close();
          start();
        }
      });
      watcher.on('error', (error) => log?.error(`watching authorization config file: ${error.message}`));
    } catch {
      watcher = undefined;
    }
  };
  start();
  return {
    close: () => {
      closed = true;
      watcher?.close();
    },
  };
}

function sameConfig(a: LoadedAuthorizationConfig, b: LoadedAuthorizationConfig): boolean {
  const text = (value: LoadedAuthorizationConfig) => JSON.stringify(value.config, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return text(a) === text(b);
}
