// From configuration to a running authorizer chain: either a loaded AuthorizationConfiguration
// (each Webhook gets its kubeconfig read, an HTTPS client and its own decision cache) or the simple
// `--authorization-mode` list. Building can fail after validation passed (an unreadable kubeconfig,
// a type Fairway cannot back); the caller keeps the previous chain when it does.
import type { Clock } from '../clock.ts';
import type { Prng } from '../random.ts';
import { goDurationToMs } from '../go-duration.ts';
import type { LoadedAuthorizationConfig } from './authorization-config.ts';
import type { Authorizer } from './authorizer.ts';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from './always.ts';
import type { AuthorizationMetrics } from './authorization-metrics.ts';
import { createAuthorizerChain, type ChainMember } from './authorizer-chain.ts';
import { bootstrapRbacAuthorizer, nodeAuthorizerStandIn } from './bootstrap-policy-authorizer.ts';
import type { SubjectAccessReviewVersion } from './subject-access-review.ts';
import { createWebhookAuthorizer, type FailurePolicy } from './webhook-authorizer.ts';
import { createWebhookClient, type RetryBackoff } from './webhook-client.ts';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.ts';

export interface AuthorizerDeps {
  clock: Clock;
  prng: Prng;
  metrics?: AuthorizationMetrics;
  apiDomain?: string | undefined;
  /** Tests shorten the webhook retry backoff. */
  backoff?: RetryBackoff | undefined;
}

export type BuildResult = { ok: true; authorizer: Authorizer } | { ok: false; error: string };

export async function buildAuthorizerFromConfig(loaded: LoadedAuthorizationConfig, deps: AuthorizerDeps): Promise<BuildResult> {
  const members: ChainMember[] = [];
  const fail = (error: string): BuildResult => {
    for (const member of members) member.authorizer.close?.();
    return { ok: false, error };
  };
  for (const [index, entry] of loaded.config.authorizers.entries()) {
    const webhook = entry.webhook;
    if (entry.type !== 'Webhook' || webhook === undefined) {
      const simple = simpleAuthorizer(entry.type, deps.apiDomain);
      if (typeof simple === 'string') return fail(simple);
      members.push({ type: entry.type, name: entry.name, authorizer: simple });
      continue;
    }
    if (webhook.connectionInfo.type !== 'KubeConfigFile' || webhook.connectionInfo.kubeConfigFile === undefined) {
      return fail(
        `authorizer ${JSON.stringify(entry.name)}: connectionInfo.type ${webhook.connectionInfo.type} is not supported by Fairway, which has no ` +
          'in-cluster API server to call; use KubeConfigFile',
      );
    }
    const kubeconfig = await loadWebhookKubeconfig(webhook.connectionInfo.kubeConfigFile);
    if (!kubeconfig.ok) return fail(kubeconfig.error);
    const timeoutMs = goDurationToMs(webhook.timeoutNanoseconds);
    const client = createWebhookClient(kubeconfig.connection, { timeoutMs, clock: deps.clock });
    const conditions = loaded.matchConditions.get(index);
    members.push({
      type: entry.type,
      name: entry.name,
      authorizer: createWebhookAuthorizer({
        name: entry.name,
        client,
        version: webhook.subjectAccessReviewVersion as SubjectAccessReviewVersion,
        authorizedTtlMs: webhook.cacheAuthorizedRequests ? goDurationToMs(webhook.authorizedTTLNanoseconds) : 0,
        unauthorizedTtlMs: webhook.cacheUnauthorizedRequests ? goDurationToMs(webhook.unauthorizedTTLNanoseconds) : 0,
        failurePolicy: webhook.failurePolicy as FailurePolicy,
        matchConditions: conditions,
        clock: deps.clock,
        prng: deps.prng.fork(`webhook:${entry.name}`),
        backoff: deps.backoff,
        metrics: deps.metrics,
        authorizationGroup: `authorization.${deps.apiDomain ?? 'k8s.io'}`,
      }),
    });
  }
  return { ok: true, authorizer: createAuthorizerChain(members, deps.metrics) };
}

/** kube-apiserver's `--authorization-mode` choices. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;

/** The chain for `--authorization-mode` (default AlwaysAllow); an error value for a bad list. */
export function buildAuthorizerFromModes(modes: readonly string[], deps: AuthorizerDeps): BuildResult {
  const list = modes.length === 0 ? ['AlwaysAllow'] : modes;
  const seen = new Set<string>();
  const members: ChainMember[] = [];
  for (const mode of list) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
      return { ok: false, error: `authorization-mode ${JSON.stringify(mode)} is not a valid mode` };
    }
    if (seen.has(mode)) return { ok: false, error: `authorization-mode ${JSON.stringify(mode)} has mode specified more than once` };
    seen.add(mode);
    if (mode === 'Webhook') return { ok: false, error: 'authorization-mode Webhook needs a webhook configuration file: use --authorization-config' };
    const simple = simpleAuthorizer(mode, deps.apiDomain);
    if (typeof simple === 'string') return { ok: false, error: simple };
    members.push({ type: mode, name: mode.toLowerCase(), authorizer: simple });
  }
  return { ok: true, authorizer: createAuthorizerChain(members, deps.metrics) };
}

/** The non-webhook types; an error text for the one Fairway cannot provide. */
function simpleAuthorizer(type: string, apiDomain?: string): Authorizer | string {
  switch (type) {
    case 'AlwaysAllow':
      return alwaysAllowAuthorizer;
    case 'AlwaysDeny':
      return alwaysDenyAuthorizer;
    case 'RBAC':
      return bootstrapRbacAuthorizer(apiDomain);
    case 'Node':
      return nodeAuthorizerStandIn;
    case 'ABAC':
      return 'authorizer type ABAC is not supported by Fairway (it has no --authorization-policy-file)';
    default:
      return `unknown authorization mode ${type} specified`;
  }
}
