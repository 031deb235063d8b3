// POST /apis/authorization.<domain>/v1/selfsubjectaccessreviews, so `kubectl auth can-i` works:
// "may I, the caller, do this?" answered by the same authorizer chain that guards requests. The
// body is JSON, YAML or (what kubectl sends) protobuf, and so is the answer: 201 with the
// review echoed and `status` filled in as kube-apiserver fills it: allowed / denied from the
// decision, the authorizer's reason, and its error as `evaluationError`.
import type { AuthorizationAttributes, Authorizer } from '../../engine/auth/authorizer.ts';
import type { SubjectAccessReviewSpec } from '../../engine/auth/subject-access-review.ts';
import { specFromWire, wireSpec } from '../../engine/auth/subject-access-review.ts';
import { FieldPath, invalid as invalidField, type FieldError } from '../../engine/resources/field-errors.ts';
import type { RequestContext } from '../request/http-context.ts';
import { ApiError, internalError, invalid } from '../../engine/status/errors.ts';
import { readReviewBody, reviewOutput, sendReview, type ReviewHandler, type ReviewKind } from './review.ts';
import { sendError } from '../request/respond.ts';

export const SELF_SUBJECT_ACCESS_REVIEW_KIND = 'SelfSubjectAccessReview';

export interface SelfSubjectAccessReviewOptions {
  authorizer: Authorizer;
  /** `authorization.<api domain>`. */
  group: string;
}

/** The path this handler serves. */
export function selfSubjectAccessReviewPath(group: string): string {
  return `/apis/${group}/v1/selfsubjectaccessreviews`;
}

/** A route handler; resolves when the response is written. */
export function createSelfSubjectAccessReviewHandler(options: SelfSubjectAccessReviewOptions): ReviewHandler {
  const review: ReviewKind = { kind: SELF_SUBJECT_ACCESS_REVIEW_KIND, apiVersion: `${options.group}/v1` };
  return async (context, decodeYaml) => {
    try {
      const output = reviewOutput(context);
      const spec = specFromWire((await readReviewBody(context, review, decodeYaml)).spec, 'v1');
      const problems = validateSpec(spec);
      if (problems.length > 0) throw new ApiError(invalid({ group: options.group, kind: SELF_SUBJECT_ACCESS_REVIEW_KIND }, '', problems));
      const user = context.user;
      if (user === undefined) throw new ApiError(internalError(new Error('no user found for request')));
      const result = await options.authorizer.authorize(attributesFor(spec, user), context);
      const status: Record<string, unknown> = { allowed: result.decision === 'allow' };
      if (result.decision === 'deny') status.denied = true;
      if (result.reason !== '') status.reason = result.reason;
      if (result.error !== undefined && result.error !== '') status.evaluationError = result.error;
      sendReview(context, { ...review, metadata: { creationTimestamp: null }, spec: wireSpec(spec, 'v1'), status }, output);
    } catch (error) {
      sendError(context, error);
    }
  };
}

/** Kubernetes' ValidateSelfSubjectAccessReviewSpec. */
function validateSpec(spec: SubjectAccessReviewSpec): FieldError[] {
  const path = FieldPath.root('spec');
  if (spec.resourceAttributes !== undefined && spec.nonResourceAttributes !== undefined) {
    return [invalidField(path.child('nonResourceAttributes'), spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (spec.resourceAttributes === undefined && spec.nonResourceAttributes === undefined) {
    return [invalidField(path.child('resourceAttributes'), null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

function attributesFor(spec: SubjectAccessReviewSpec, user: NonNullable<RequestContext['user']>): AuthorizationAttributes {
  const resource = spec.resourceAttributes;
  if (resource !== undefined) {
    const attributes: AuthorizationAttributes = {
      user,
      verb: resource.verb ?? '',
      isResourceRequest: true,
      path: '',
      namespace: resource.namespace ?? '',
      apiGroup: resource.group ?? '',
      apiVersion: resource.version ?? '',
      resource: resource.resource ?? '',
      subresource: resource.subresource ?? '',
      name: resource.name ?? '',
    };
    if (resource.fieldSelector?.requirements !== undefined) attributes.fieldSelector = resource.fieldSelector.requirements;
    if (resource.labelSelector?.requirements !== undefined) attributes.labelSelector = resource.labelSelector.requirements;
    return attributes;
  }
  const nonResource = spec.nonResourceAttributes ?? {};
  return {
    user,
    verb: nonResource.verb ?? '',
    isResourceRequest: false,
    path: nonResource.path ?? '',
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
  };
}
