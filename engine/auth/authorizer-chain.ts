// The decision chain, as kube-apiserver assembles it: the privileged-group authorizer
// (system:masters) first, then the configured authorizers in order. The first allow or deny wins
// and is returned with that authorizer's own reason and error. If everyone has no opinion, the
// result is no opinion with the non-empty reasons joined by newlines and the errors aggregated.
// (Reasons are not prefixed with authorizer names; Kubernetes' union does not do that either.)
// Listing a user's rules (SelfSubjectRulesReview) asks the configured authorizers only.
//
// The chain answers synchronously as long as every authorizer it asks does, and goes on
// asynchronously from the first one that returns a promise: an admin's GET (system:masters, or
// RBAC) costs no promise and no array. Reasons and errors are kept only once an authorizer has no
// opinion with one of them.
//
// Each configured authorizer is instrumented: its terminal decisions count in
// apiserver_authorization_decisions_total{type,name,decision}. The privileged group is not counted.
import type { UserInfo } from './user-info.ts';
import type { AuthorizationAttributes, AuthorizationOutcome, AuthorizationResult, Authorizer, Cancellation, RulesResult } from './authorizer.ts';
import { isPending, NO_OPINION, noRules } from './authorizer.ts';
import { privilegedGroupsAuthorizer } from './always.ts';
import type { AuthorizationMetrics } from './authorization-metrics.ts';
import { noopAuthorizationMetrics } from './authorization-metrics.ts';
import { append } from '../append.ts';

export interface ChainMember {
  /** `Webhook`, `AlwaysAllow`, ... */
  type: string;
  name: string;
  authorizer: Authorizer;
}

/** One authorizer the chain asks; `member` absent for the privileged group, which is not counted. */
interface Step {
  authorizer: Authorizer;
  member: ChainMember | undefined;
}

/** A union authorizer over `members`, preceded by the system:masters authorizer. */
export function createAuthorizerChain(members: readonly ChainMember[], metrics: AuthorizationMetrics = noopAuthorizationMetrics): Authorizer {
  const steps: readonly Step[] = [
    { authorizer: privilegedGroupsAuthorizer(), member: undefined },
    ...members.map((member) => ({ authorizer: member.authorizer, member })),
  ];
  // One walk for both cases: it runs synchronously until an authorizer's answer is pending, and
  // resumes from that step (`settled`: its answer) once the answer arrives.
  const walk = (
    attributes: AuthorizationAttributes,
    cancellation: Cancellation | undefined,
    index: number,
    settled: AuthorizationResult | undefined,
    noOpinions: NoOpinions | undefined,
  ): AuthorizationOutcome => {
    for (; index < steps.length; index++) {
      const step = steps[index]!;
      const outcome = settled ?? step.authorizer.authorize(attributes, cancellation);
      settled = undefined;
      if (isPending(outcome)) return outcome.then((result) => walk(attributes, cancellation, index, result, noOpinions));
      if (decides(step, outcome, metrics)) return outcome;
      if (saysWhy(outcome)) (noOpinions ??= new NoOpinions()).add(outcome);
    }
    return noOpinions?.result() ?? NO_OPINION;
  };
  return {
    authorize: (attributes, cancellation) => walk(attributes, cancellation, 0, undefined, undefined),
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

/** Whether `result` ends the walk (allow or deny); a configured authorizer's such decision is counted. */
function decides(step: Step, result: AuthorizationResult, metrics: AuthorizationMetrics): boolean {
  if (result.decision === 'noOpinion') return false;
  if (step.member !== undefined) metrics.decision(step.member.type, step.member.name, result.decision === 'allow' ? 'allowed' : 'denied');
  return true;
}

const saysWhy = (result: AuthorizationResult): boolean => result.reason !== '' || (result.error !== undefined && result.error !== '');

/** The reasons and errors of the authorizers that had no opinion, in chain order. */
class NoOpinions {
  private readonly reasons: string[] = [];
  private readonly errors: string[] = [];

  add(result: AuthorizationResult): void {
    if (result.error !== undefined && result.error !== '') this.errors.push(result.error);
    if (result.reason !== '') this.reasons.push(result.reason);
  }

  result(): AuthorizationResult {
    const result: AuthorizationResult = { decision: 'noOpinion', reason: this.reasons.join('\n') };
    if (this.errors.length > 0) result.error = aggregate(this.errors);
    return result;
  }
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
    append(union.resourceRules, rules.resourceRules);
    append(union.nonResourceRules, rules.nonResourceRules);
    union.incomplete ||= rules.incomplete;
    if (rules.error !== undefined && rules.error !== '') errors.push(rules.error);
  }
  if (errors.length > 0) union.error = aggregate(errors);
  return union;
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
    // A decision made at once cannot see a swap, so only a pending one is counted in flight.
    authorize: (attributes, cancellation) => {
      const authorizer = current;
      const outcome = authorizer.authorize(attributes, cancellation);
      if (!isPending(outcome)) return outcome;
      inFlight.set(authorizer, (inFlight.get(authorizer) ?? 0) + 1);
      return outcome.finally(() => release(authorizer));
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
