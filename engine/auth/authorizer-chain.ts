// The decision chain, as kube-apiserver assembles it: the privileged-group authorizer
// (system:masters) first, then the configured authorizers in order. The first allow or deny wins
// and is returned with that authorizer's own reason and error. If everyone has no opinion, the
// result is no opinion with the non-empty reasons joined by newlines and the errors aggregated.
// (Reasons are not prefixed with authorizer names; Kubernetes' union does not do that either.)
// Listing a user's rules (SelfSubjectRulesReview) asks the configured authorizers only.
//
// Each configured authorizer is instrumented: its terminal decisions count in
// apiserver_authorization_decisions_total{type,name,decision}. The privileged group is not counted.
import type { UserInfo } from '../flowcontrol/request-digest.ts';
import type { AuthorizationResult, Authorizer, RulesResult } from './authorizer.ts';
import { noRules } from './authorizer.ts';
import { privilegedGroupsAuthorizer } from './always.ts';
import type { AuthorizationMetrics } from './authorization-metrics.ts';
import { noopAuthorizationMetrics } from './authorization-metrics.ts';

export interface ChainMember {
  /** `Webhook`, `AlwaysAllow`, ... */
  type: string;
  name: string;
  authorizer: Authorizer;
}

/** A union authorizer over `members`, preceded by the system:masters authorizer. */
export function createAuthorizerChain(members: readonly ChainMember[], metrics: AuthorizationMetrics = noopAuthorizationMetrics): Authorizer {
  const privileged = privilegedGroupsAuthorizer();
  const instrumented: Authorizer[] = [privileged, ...members.map((member) => instrument(member, metrics))];
  return {
    authorize: async (attributes, cancellation) => {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const authorizer of instrumented) {
        const result = await authorizer.authorize(attributes, cancellation);
        if (result.error !== undefined && result.error !== '') errors.push(result.error);
        if (result.reason !== '') reasons.push(result.reason);
        if (result.decision !== 'noOpinion') return result;
      }
      const result: AuthorizationResult = { decision: 'noOpinion', reason: reasons.join('\n') };
      if (errors.length > 0) result.error = aggregate(errors);
      return result;
    },
    rulesFor: (user, namespace) =>
      unionRules(
        members.map((m) => m.authorizer),
        user,
        namespace,
      ),
    close: () => {
      for (const member of members) member.authorizer.close?.();
    },
  };
}

/**
 * Kubernetes' union rule resolver: every authorizer that can list rules is asked, the lists are
 * concatenated in chain order, any one incomplete makes the whole incomplete, and the errors are
 * aggregated. The system:masters authorizer is not a rule resolver, as in Kubernetes.
 */
async function unionRules(authorizers: readonly Authorizer[], user: UserInfo, namespace: string): Promise<RulesResult> {
  const union = noRules();
  const errors: string[] = [];
  for (const authorizer of authorizers) {
    if (authorizer.rulesFor === undefined) continue;
    const rules = await authorizer.rulesFor(user, namespace);
    union.resourceRules.push(...rules.resourceRules);
    union.nonResourceRules.push(...rules.nonResourceRules);
    union.incomplete ||= rules.incomplete;
    if (rules.error !== undefined && rules.error !== '') errors.push(rules.error);
  }
  if (errors.length > 0) union.error = aggregate(errors);
  return union;
}

function instrument(member: ChainMember, metrics: AuthorizationMetrics): Authorizer {
  return {
    authorize: async (attributes, cancellation) => {
      const result = await member.authorizer.authorize(attributes, cancellation);
      if (result.decision === 'allow') metrics.decision(member.type, member.name, 'allowed');
      else if (result.decision === 'deny') metrics.decision(member.type, member.name, 'denied');
      return result;
    },
  };
}

/** apimachinery's aggregate error text: one error as is, several as `[a, b]` without duplicates. */
export function aggregate(errors: readonly string[]): string {
  const distinct = [...new Set(errors)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

/**
 * An authorizer whose chain can be replaced while requests run (automatic reload): each request
 * uses the chain current when it started; a replaced chain is closed once its requests finish.
 */
export interface SwappableAuthorizer extends Authorizer {
  swap(next: Authorizer): void;
  current(): Authorizer;
}

export function createSwappableAuthorizer(initial: Authorizer): SwappableAuthorizer {
  let current = initial;
  const inFlight = new Map<Authorizer, number>();
  const retired = new Set<Authorizer>();
  const release = (authorizer: Authorizer): void => {
    const left = (inFlight.get(authorizer) ?? 1) - 1;
    if (left > 0) inFlight.set(authorizer, left);
    else inFlight.delete(authorizer);
    if (left <= 0 && retired.delete(authorizer)) authorizer.close?.();
  };
  return {
    authorize: async (attributes, cancellation) => {
      const authorizer = current;
      inFlight.set(authorizer, (inFlight.get(authorizer) ?? 0) + 1);
      try {
        return await authorizer.authorize(attributes, cancellation);
      } finally {
        release(authorizer);
      }
    },
    swap(next) {
      const previous = current;
      current = next;
      if (previous === next) return;
      if ((inFlight.get(previous) ?? 0) === 0) previous.close?.();
      else retired.add(previous);
    },
    current: () => current,
    rulesFor: (user, namespace) => current.rulesFor?.(user, namespace) ?? Promise.resolve(noRules()),
    close: () => current.close?.(),
  };
}
