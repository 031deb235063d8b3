// POST /apis/authorization.<domain>/v1/selfsubjectrulesreviews (`kubectl auth can-i --list`): what
// the caller may do in `spec.namespace`, as the authorizer chain can list it (engine/auth:
// AlwaysAllow lists `*`, the RBAC stand-in its bootstrap bindings, a webhook nothing and marks the
// answer incomplete). Answered as kube-apiserver's REST does: 400 without a namespace; otherwise
// 201 with an empty spec and the status (`resourceRules`, `nonResourceRules`, `incomplete`, and
// the rule resolvers' error as `evaluationError`).
import type { Authorizer, NonResourceRule, ResourceRule, RulesResult } from '../../engine/auth/authorizer.ts';
import type { RequestContext } from '../request/http-context.ts';
import { ApiError, badRequest, internalError, malformedBody } from '../../engine/status/errors.ts';
import type { YamlDecoder } from '../../workers/decode-yaml.ts';
import { readReviewBody, reviewOutput, sendReview, type ReviewHandler, type ReviewKind } from './review.ts';
import { sendError } from '../request/respond.ts';

export const SELF_SUBJECT_RULES_REVIEW_KIND = 'SelfSubjectRulesReview';

export function selfSubjectRulesReviewPath(group: string): string {
  return `/apis/${group}/v1/selfsubjectrulesreviews`;
}

export function createSelfSubjectRulesReviewHandler(options: { authorizer: Authorizer; group: string }): ReviewHandler {
  const review: ReviewKind = { kind: SELF_SUBJECT_RULES_REVIEW_KIND, apiVersion: `${options.group}/v1` };
  return async (context, decodeYaml) => {
    try {
      const output = reviewOutput(context);
      const namespace = await readNamespace(context, review, decodeYaml);
      const user = context.user;
      if (user === undefined) throw new ApiError(badRequest('no user present on request'));
      if (namespace === '') throw new ApiError(badRequest('no namespace on request'));
      if (options.authorizer.rulesFor === undefined) throw new ApiError(internalError(new Error('the authorizer cannot list rules')));
      const rules = await options.authorizer.rulesFor(user, namespace);
      sendReview(context, { ...review, metadata: { creationTimestamp: null }, spec: {}, status: wireStatus(rules) }, output);
    } catch (error) {
      sendError(context, error);
    }
  };
}

async function readNamespace(context: RequestContext, review: ReviewKind, decodeYaml: YamlDecoder): Promise<string> {
  const spec = (await readReviewBody(context, review, decodeYaml)).spec;
  if (spec === undefined || spec === null) return '';
  const namespace = typeof spec === 'object' && !Array.isArray(spec) ? (spec as Record<string, unknown>).namespace : undefined;
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') {
    const jsonType = Array.isArray(namespace) ? 'array' : typeof namespace === 'boolean' ? 'bool' : typeof namespace;
    throw new ApiError(
      malformedBody(review.kind, 'v1', `json: cannot unmarshal ${jsonType} into Go struct field SelfSubjectRulesReviewSpec.spec.namespace of type string`),
    );
  }
  return typeof namespace === 'string' ? namespace : '';
}

/** SubjectRulesReviewStatus in v1 JSON: the lists always present, empty list fields omitted. */
function wireStatus(rules: RulesResult): Record<string, unknown> {
  const status: Record<string, unknown> = {
    resourceRules: rules.resourceRules.map(wireResourceRule),
    nonResourceRules: rules.nonResourceRules.map(wireNonResourceRule),
    incomplete: rules.incomplete,
  };
  if (rules.error !== undefined && rules.error !== '') status.evaluationError = rules.error;
  return status;
}

function wireResourceRule(rule: ResourceRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: rule.verbs };
  if (rule.apiGroups.length > 0) out.apiGroups = rule.apiGroups;
  if (rule.resources.length > 0) out.resources = rule.resources;
  if (rule.resourceNames.length > 0) out.resourceNames = rule.resourceNames;
  return out;
}

function wireNonResourceRule(rule: NonResourceRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: rule.verbs };
  if (rule.nonResourceURLs.length > 0) out.nonResourceURLs = rule.nonResourceURLs;
  return out;
}
