// The checks behind /healthz, /livez and /readyz, as kube-apiserver names them.
import type { Store } from '../../engine/store/store-types.ts';
import type { HealthCheck, HealthChecks } from '../handlers/health.ts';

export interface ServerState {
  /** The APF bootstrap configuration has been ensured once. */
  bootstrapped(): boolean;
  /** The execution plane's threads are up. */
  executorStarted(): boolean;
  shuttingDown(): boolean;
}

/** `extra`: checks added to every endpoint (the KMS plugins' health, as kube-apiserver adds it). */
export function healthChecks(store: Store, state: ServerState, extra: readonly HealthCheck[]): HealthChecks {
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  // Not in /livez: after a failed write the store takes writes again by itself once the disk does.
  const storage: HealthCheck = {
    name: 'etcd',
    check: () =>
      store.state !== 'open'
        ? `storage is ${store.state}`
        : store.writeOutage !== undefined
          ? `storage refuses writes: ${store.writeOutage.message}`
          : undefined,
  };
  const bootstrap: HealthCheck = {
    name: 'poststarthook/priority-and-fairness-config-producer',
    check: () => (state.bootstrapped() ? undefined : 'the APF bootstrap configuration is not ensured yet'),
  };
  const shutdown: HealthCheck = { name: 'shutdown', check: () => (state.shuttingDown() ? 'the server is shutting down' : undefined) };
  const executionPlane: HealthCheck = {
    name: 'execution-plane',
    check: () => (state.executorStarted() ? undefined : "the execution plane's threads are starting"),
  };
  return {
    healthz: [ping, storage, ...extra],
    livez: [ping, ...extra],
    readyz: [ping, storage, bootstrap, executionPlane, shutdown, ...extra],
  };
}
