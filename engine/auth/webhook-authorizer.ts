// The Webhook authorizer: asks a remote service with a SubjectAccessReview, as kube-apiserver's
// does. Per request: evaluate matchConditions (first false → no opinion without a call; errors →
// failure policy), look in the decision cache (key: the v1 spec's JSON; so far the decision is
// given at once, not as a promise), otherwise POST with retries, then cache the answer (allowed
// for authorizedTTL, anything else for unauthorizedTTL; errors never) and map it: allowed →
// allow, denied → deny, both → deny with an error, neither → no opinion. Any failure to get a
// well-formed answer yields the failure policy's decision (NoOpinion or Deny) together with the
// error, which the HTTP filter turns into a 500 unless a later authorizer allows.
import type { Clock } from '../clock.ts';
import type { Prng } from '../random.ts';
import type { AuthorizationAttributes, AuthorizationOutcome, AuthorizationResult, Authorizer, Cancellation, Decision } from './authorizer.ts';
import { cannotListRules, NO_OPINION } from './authorizer.ts';
import type { AuthorizationMetrics, WebhookResult } from './authorization-metrics.ts';
import { noopAuthorizationMetrics } from './authorization-metrics.ts';
import type { MatchConditions } from './cel-match-conditions.ts';
import { DecisionCache, DEFAULT_DECISION_CACHE_SIZE } from './decision-cache.ts';
import type { SubjectAccessReviewSpec, SubjectAccessReviewStatus, SubjectAccessReviewVersion } from './subject-access-review.ts';
import { parseReviewResponse, requestBody, specFromAttributes, specJson } from './subject-access-review.ts';
import type { RetryBackoff, WebhookClient } from './webhook-client.ts';
import { callWithBackoff, DEFAULT_RETRY_BACKOFF } from './webhook-client.ts';

export type FailurePolicy = 'NoOpinion' | 'Deny';

/** Requests whose requester-controlled attributes are this long or longer are never cached. */
const MAX_CACHEABLE_ATTRIBUTES_LENGTH = 10000;

export interface WebhookAuthorizerOptions {
  /** The authorizer's name in the configuration (metric label). */
  name: string;
  client: WebhookClient;
  version: SubjectAccessReviewVersion;
  /** 0 turns that side of the cache off. */
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  failurePolicy: FailurePolicy;
  matchConditions?: MatchConditions | undefined;
  clock: Clock;
  prng: Prng;
  backoff?: RetryBackoff | undefined;
  metrics?: AuthorizationMetrics | undefined;
  cacheSize?: number;
  /** `authorization.<api domain>`. */
  authorizationGroup?: string;
}

export const WEBHOOK_CANNOT_LIST_RULES = 'webhook authorizer does not support user rule resolution';

export function createWebhookAuthorizer(options: WebhookAuthorizerOptions): Authorizer {
  const { name, client, version, clock, prng, failurePolicy } = options;
  const metrics = options.metrics ?? noopAuthorizationMetrics;
  const backoff = options.backoff ?? DEFAULT_RETRY_BACKOFF;
  const cache = new DecisionCache<SubjectAccessReviewStatus>(clock, options.cacheSize ?? DEFAULT_DECISION_CACHE_SIZE);
  const decisionOnError: Decision = failurePolicy === 'Deny' ? 'deny' : 'noOpinion';
  const failed = (error: string): AuthorizationResult => ({ decision: decisionOnError, reason: '', error });

  /** Asks the webhook (a cache miss), caches its answer and maps it. */
  const call = async (
    attributes: AuthorizationAttributes,
    spec: SubjectAccessReviewSpec,
    key: string,
    cancellation?: Cancellation,
  ): Promise<AuthorizationResult> => {
    const startMs = clock.now();
    const body = requestBody(spec, version, options.authorizationGroup);
    const signal = cancellation?.signal;
    const outcome = await callWithBackoff(() => client.post(body, signal), { backoff, clock, prng, signal });
    const parsed = outcome.ok ? parseReviewResponse(outcome.body, version, options.authorizationGroup) : undefined;
    const result: WebhookResult = outcome.ok ? (parsed?.ok === true ? 'success' : 'error') : outcome.kind;
    metrics.webhookEvaluation(name, result, (clock.now() - startMs) / 1000);
    const error = !outcome.ok ? outcome.error : parsed !== undefined && !parsed.ok ? parsed.error : undefined;
    if (error !== undefined || parsed === undefined || !parsed.ok) {
      if (failurePolicy === 'NoOpinion' && result !== 'canceled') metrics.webhookFailOpen(name, result);
      return failed(error ?? 'webhook call failed');
    }
    const status = parsed.status;
    if (shouldCache(attributes)) cache.set(key, status, status.allowed ? options.authorizedTtlMs : options.unauthorizedTtlMs);
    return decisionOf(status);
  };

  // Match conditions and the cache are asked at once; only a call to the webhook is waited for.
  const authorize = (attributes: AuthorizationAttributes, cancellation?: Cancellation): AuthorizationOutcome => {
    const spec = specFromAttributes(attributes);
    const conditions = options.matchConditions;
    if (conditions !== undefined && conditions.expressions.length > 0) {
      const startMs = clock.now();
      const outcome = conditions.evaluate(spec);
      metrics.matchConditionEvaluation(name, (clock.now() - startMs) / 1000);
      if ('error' in outcome) {
        metrics.matchConditionError(name);
        return failed(outcome.error);
      }
      if (!outcome.matches) {
        metrics.matchConditionExclusion(name);
        return NO_OPINION;
      }
    }
    const key = specJson(spec);
    const status = cache.get(key);
    return status === undefined ? call(attributes, spec, key, cancellation) : decisionOf(status);
  };

  return {
    authorize,
    // A webhook answers questions; it cannot enumerate what it would allow.
    rulesFor: async () => cannotListRules(WEBHOOK_CANNOT_LIST_RULES),
    close: () => {
      cache.clear();
      client.close();
    },
  };
}

/** What the webhook's review status means. */
function decisionOf(status: SubjectAccessReviewStatus): AuthorizationResult {
  const reason = status.reason ?? '';
  if (status.allowed && status.denied === true) {
    return { decision: 'deny', reason, error: 'webhook subject access review returned both allow and deny response' };
  }
  if (status.denied === true) return { decision: 'deny', reason };
  if (status.allowed) return { decision: 'allow', reason };
  return { decision: 'noOpinion', reason };
}

function shouldCache(attributes: AuthorizationAttributes): boolean {
  const length =
    attributes.namespace.length +
    attributes.verb.length +
    attributes.apiGroup.length +
    attributes.apiVersion.length +
    attributes.resource.length +
    attributes.subresource.length +
    attributes.name.length +
    attributes.path.length;
  return length < MAX_CACHEABLE_ATTRIBUTES_LENGTH;
}
