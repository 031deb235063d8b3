// The authorizer seam, shaped as Kubernetes' `authorizer.Authorizer`: given who asks for what, say
// allow, deny or "no opinion" (let the next authorizer decide), with an optional reason for the
// 403 text and an optional error. A decision is a value, never an exception: an authorizer that
// fails returns its failure-policy decision *and* the error, and the HTTP filter turns "not
// allowed, with an error" into a 500 rather than a 403.
//
// Protocol: `authorize` never throws and never rejects; it returns its decision directly when it
// can decide without waiting (RBAC, the fixed authorizers, a webhook's cached answer) and a promise
// only when it has to wait (a webhook call), so the common request pays no promise, async frame or
// microtask per authorizer, as kube-apiserver's authorizers are plain calls. Callers `await` it or
// test for a promise (`isPending`); never `.then` it. `close` releases connections and caches and
// may be called once, after which `authorize` is not called again.
import type { RequestInfo } from '../request/request-info.ts';
import type { UserInfo } from './user-info.ts';

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Shown after `: ` in the 403 message; `''` when the authorizer gives none. */
  reason: string;
  /** Why the authorizer could not decide (webhook down, CEL error...); the filter answers 500. */
  error?: string;
}

/** A `key op values` selector requirement, as SubjectAccessReview carries it. */
export interface SelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** What is being authorized: Kubernetes' `authorizer.Attributes`. */
export interface AuthorizationAttributes {
  user: UserInfo;
  /** Kubernetes verb for resource requests; the lower-cased HTTP method otherwise. */
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** Parsed `fieldSelector` / `labelSelector` of a list or watch, when they parse. */
  fieldSelector?: SelectorRequirement[];
  labelSelector?: SelectorRequirement[];
}

/**
 * Where an authorizer gets its abort signal from, only when it has something to cancel (a webhook
 * call): making an AbortSignal for every request is a measurable share of a small GET, and most
 * decisions never wait. The request context and an AbortController both fit.
 */
export interface Cancellation {
  readonly signal: AbortSignal;
}

/** One resource rule, as SelfSubjectRulesReview reports it (`*` is every value). */
export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

/**
 * What a user may do in a namespace, as far as an authorizer can list it (Kubernetes'
 * `RuleResolver.RulesFor`). `incomplete` says the lists may miss permissions (an authorizer that
 * cannot enumerate its rules, such as a webhook); `error` says why.
 */
export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  error?: string;
}

/** A decision now, or one to wait for. */
export type AuthorizationOutcome = AuthorizationResult | Promise<AuthorizationResult>;

/** Whether `outcome` has to be waited for. */
export const isPending = (outcome: AuthorizationOutcome): outcome is Promise<AuthorizationResult> => outcome instanceof Promise;

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes, cancellation?: Cancellation): AuthorizationOutcome;
  /** The rules this authorizer grants `user` in `namespace`; absent: it takes no part in rule listing. */
  rulesFor?(user: UserInfo, namespace: string): Promise<RulesResult>;
  close?(): void;
}

/** No rules, nothing missing. */
export const noRules = (): RulesResult => ({ resourceRules: [], nonResourceRules: [], incomplete: false });

/** No rules listed, and the lists are incomplete for `error`. */
export const cannotListRules = (error: string): RulesResult => ({ resourceRules: [], nonResourceRules: [], incomplete: true, error });

export const allow = (reason = ''): AuthorizationResult => ({ decision: 'allow', reason });
export const deny = (reason = ''): AuthorizationResult => ({ decision: 'deny', reason });
export const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'noOpinion', reason });

// Decisions are values nobody changes, so the reasonless ones are shared (frozen, to keep it so)
// rather than made per request.
export const ALLOWED: AuthorizationResult = Object.freeze(allow());
export const NO_OPINION: AuthorizationResult = Object.freeze(noOpinion());

/** A list's or watch's selectors as requirements (only a resource request's are kept). */
export type RequestSelectors = Pick<AuthorizationAttributes, 'fieldSelector' | 'labelSelector'>;

/** The attributes of an HTTP request, from its parsed RequestInfo and authenticated user. */
export function attributesFromRequest(requestInfo: RequestInfo, user: UserInfo, selectors: RequestSelectors = {}): AuthorizationAttributes {
  const attributes: AuthorizationAttributes = {
    user,
    verb: requestInfo.verb,
    isResourceRequest: requestInfo.isResourceRequest,
    path: requestInfo.path,
    namespace: requestInfo.namespace,
    apiGroup: requestInfo.apiGroup,
    apiVersion: requestInfo.apiVersion,
    resource: requestInfo.resource,
    subresource: requestInfo.subresource,
    name: requestInfo.name,
  };
  if (requestInfo.isResourceRequest && selectors.fieldSelector !== undefined) attributes.fieldSelector = selectors.fieldSelector;
  if (requestInfo.isResourceRequest && selectors.labelSelector !== undefined) attributes.labelSelector = selectors.labelSelector;
  return attributes;
}
