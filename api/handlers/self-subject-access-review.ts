// POST /apis/authorization.<domain>/v1/selfsubjectaccessreviews, so `kubectl auth can-i` works:
// "may I, the caller, do this?" answered by the same authorizer chain that guards requests. The
// body is JSON, YAML or (what kubectl sends) protobuf, and so is the answer: 201 with the
// review echoed and `status` filled in as kube-apiserver fills it: allowed / denied from the
// decision, the authorizer's reason, and its error as `evaluationError`.
import type { AuthorizationAttributes, Authorizer } from '../../engine/auth/authorizer.ts';
import type { SubjectAccessReviewSpec } from '../../engine/auth/subject-access-review.ts';
import { specFromWire, wireSpec } from '../../engine/auth/subject-access-review.ts';
import { FieldPath, invalid as invalidField, type FieldError } from '../../engine/resources/field-errors.ts';
import type { RequestContext } from '../http-context.ts';
import { ApiError, badRequest, internalError, invalid, malformedBody, routeMethodNotAllowed } from '../errors.ts';
import { negotiateOutput, OBJECT_MEDIA_TYPES } from '../content-negotiation.ts';
import { parseBody, readBody } from './body.ts';
import { sendError, sendObject, wantsPretty, type Representation } from './respond.ts';

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
export function createSelfSubjectAccessReviewHandler(options: SelfSubjectAccessReviewOptions): (context: RequestContext) => Promise<void> {
  const apiVersion = `${options.group}/v1`;
  return async (context) => {
    try {
      if (context.req.method !== 'POST') throw new ApiError(routeMethodNotAllowed());
      const negotiated = negotiateOutput(context.req.headers.accept, { conversions: [], mediaTypes: OBJECT_MEDIA_TYPES });
      if (!negotiated.ok) throw new ApiError(negotiated.status);
      const output: Representation = { mediaType: negotiated.mediaType, pretty: negotiated.pretty || wantsPretty(context.query, context.req.headers['user-agent']) };
      const spec = await readSpec(context, apiVersion);
      const problems = validateSpec(spec);
      if (problems.length > 0) throw new ApiError(invalid({ group: options.group, kind: SELF_SUBJECT_ACCESS_REVIEW_KIND }, '', problems));
      const user = context.user;
      if (user === undefined) throw new ApiError(internalError(new Error('no user found for request')));
      const result = await options.authorizer.authorize(attributesFor(spec, user), context);
      const status: Record<string, unknown> = { allowed: result.decision === 'allow' };
      if (result.decision === 'deny') status.denied = true;
      if (result.reason !== '') status.reason = result.reason;
      if (result.error !== undefined && result.error !== '') status.evaluationError = result.error;
      const review = { kind: SELF_SUBJECT_ACCESS_REVIEW_KIND, apiVersion, metadata: { creationTimestamp: null }, spec: wireSpec(spec, 'v1'), status };
      sendObject(context.res, 201, review, output);
    } catch (error) {
      sendError(context, error);
    }
  };
}

async function readSpec(context: RequestContext, apiVersion: string): Promise<SubjectAccessReviewSpec> {
  const bytes = await readBody(context.req);
  const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
  const value = parseBody(bytes, context.req.headers['content-type'], { kind: SELF_SUBJECT_ACCESS_REVIEW_KIND }).value as Record<string, unknown> | null | undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError(malformedBody(SELF_SUBJECT_ACCESS_REVIEW_KIND, version, 'expected an object'));
  }
  if ((value.kind !== undefined && value.kind !== SELF_SUBJECT_ACCESS_REVIEW_KIND) || (value.apiVersion !== undefined && value.apiVersion !== apiVersion)) {
    throw new ApiError(badRequest(`the API version in the data (${String(value.apiVersion)}) does not match the expected API version (${apiVersion})`));
  }
  return specFromWire(value.spec, 'v1');
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
  return { user, verb: nonResource.verb ?? '', isResourceRequest: false, path: nonResource.path ?? '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}
