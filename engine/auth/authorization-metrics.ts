// kube-apiserver's authorization metrics, under their Kubernetes names so existing dashboards and
// alerts work: terminal decisions per authorizer, webhook calls (count, latency, fail-open), match
// condition outcomes, and the automatic reload of --authorization-config. The engine records into
// this interface; `createPromAuthorizationMetrics` registers prom-client collectors on a registry
// the server exposes at /metrics (tests pass their own registry, or the no-op).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type WebhookResult = 'success' | 'timeout' | 'error' | 'canceled';

export interface AuthorizationMetrics {
  /** Only terminal decisions of the configured authorizers: `allowed` / `denied`. */
  decision(type: string, name: string, decision: 'allowed' | 'denied'): void;
  webhookEvaluation(name: string, result: WebhookResult, seconds: number): void;
  /** The webhook failed (not cancelled) and its failurePolicy is NoOpinion. */
  webhookFailOpen(name: string, result: WebhookResult): void;
  matchConditionEvaluation(name: string, seconds: number): void;
  matchConditionError(name: string): void;
  matchConditionExclusion(name: string): void;
  configReload(status: 'success' | 'failure', epochSeconds: number, contentHash?: string): void;
}

export const noopAuthorizationMetrics: AuthorizationMetrics = {
  decision: () => undefined,
  webhookEvaluation: () => undefined,
  webhookFailOpen: () => undefined,
  matchConditionEvaluation: () => undefined,
  matchConditionError: () => undefined,
  matchConditionExclusion: () => undefined,
  configReload: () => undefined,
};

export function createPromAuthorizationMetrics(registry: Registry, options: { apiServerIdHash?: string } = {}): AuthorizationMetrics {
  const registers = [registry];
  const apiServerIdHash = options.apiServerIdHash ?? '';
  const decisions = new Counter({
    name: 'apiserver_authorization_decisions_total',
    help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    labelNames: ['type', 'name', 'decision'],
    registers,
  });
  const evaluations = new Counter({
    name: 'apiserver_authorization_webhook_evaluations_total',
    help: 'Round-trips to authorization webhooks.',
    labelNames: ['name', 'result'],
    registers,
  });
  const durations = new Histogram({
    name: 'apiserver_authorization_webhook_duration_seconds',
    help: 'Request latency in seconds.',
    labelNames: ['name', 'result'],
    registers,
  });
  const failOpen = new Counter({
    name: 'apiserver_authorization_webhook_evaluations_fail_open_total',
    help: 'NoOpinion results due to webhook timeout or error.',
    labelNames: ['name', 'result'],
    registers,
  });
  const matchErrors = new Counter({
    name: 'apiserver_authorization_match_condition_evaluation_errors_total',
    help: 'Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
    labelNames: ['type', 'name'],
    registers,
  });
  const matchExclusions = new Counter({
    name: 'apiserver_authorization_match_condition_exclusions_total',
    help: 'Total number of exclusions when an authorization webhook is skipped by match conditions, split by authorizer type and name.',
    labelNames: ['type', 'name'],
    registers,
  });
  const matchSeconds = new Histogram({
    name: 'apiserver_authorization_match_condition_evaluation_seconds',
    help: 'Authorization match condition evaluation time in seconds, split by authorizer type and name.',
    labelNames: ['type', 'name'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
    registers,
  });
  const reloads = new Counter({
    name: 'apiserver_authorization_config_controller_automatic_reloads_total',
    help: 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'],
    registers,
  });
  const reloadTimestamp = new Gauge({
    name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds',
    help: 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'],
    registers,
  });
  const configInfo = new Gauge({
    name: 'apiserver_authorization_config_controller_last_config_info',
    help: 'Information about the last applied authorization configuration with hash as label, split by apiserver identity.',
    labelNames: ['apiserver_id_hash', 'hash'],
    registers,
  });
  return {
    decision: (type, name, decision) => decisions.inc({ type, name, decision }),
    webhookEvaluation: (name, result, seconds) => {
      evaluations.inc({ name, result });
      durations.observe({ name, result }, seconds);
    },
    webhookFailOpen: (name, result) => failOpen.inc({ name, result }),
    matchConditionEvaluation: (name, seconds) => matchSeconds.observe({ type: 'Webhook', name }, seconds),
    matchConditionError: (name) => matchErrors.inc({ type: 'Webhook', name }),
    matchConditionExclusion: (name) => matchExclusions.inc({ type: 'Webhook', name }),
    configReload: (status, epochSeconds, contentHash) => {
      reloads.inc({ status, apiserver_id_hash: apiServerIdHash });
      reloadTimestamp.set({ status, apiserver_id_hash: apiServerIdHash }, epochSeconds);
      if (status === 'success' && contentHash !== undefined) {
        configInfo.reset();
        configInfo.set({ apiserver_id_hash: apiServerIdHash, hash: contentHash }, 1);
      }
    },
  };
}
