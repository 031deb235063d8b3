// POST /apis/authentication.<domain>/v1/selfsubjectreviews (`kubectl auth whoami`): the caller's
// own user information, after impersonation, as kube-apiserver's REST answers it: 201, a
// creationTimestamp of now, and `status.userInfo` {username, uid, groups, extra}, empty ones left
// out.
import { ApiError, badRequest } from '../../engine/status/errors.ts';
import { SUPPORTED_MEDIA_TYPES } from '../request/content-negotiation.ts';
import { readReviewBody, reviewOutput, sendReview, type ReviewHandler, type ReviewKind } from './review.ts';
import { sendError } from '../request/respond.ts';

export const SELF_SUBJECT_REVIEW_KIND = 'SelfSubjectReview';

export function selfSubjectReviewPath(group: string): string {
  return `/apis/${group}/v1/selfsubjectreviews`;
}

export function createSelfSubjectReviewHandler(options: { group: string; nowTime: () => string }): ReviewHandler {
  const review: ReviewKind = { kind: SELF_SUBJECT_REVIEW_KIND, apiVersion: `${options.group}/v1` };
  return async (context, decodeYaml) => {
    try {
      // JSON or YAML: a protobuf answer would need UserInfo's ExtraValue form (kubectl takes JSON).
      const output = reviewOutput(context, SUPPORTED_MEDIA_TYPES);
      await readReviewBody(context, review, decodeYaml);
      const user = context.user;
      if (user === undefined) throw new ApiError(badRequest('no user present on request'));
      const userInfo: Record<string, unknown> = {};
      if (user.name !== '') userInfo.username = user.name;
      if (user.uid !== undefined && user.uid !== '') userInfo.uid = user.uid;
      if (user.groups.length > 0) userInfo.groups = user.groups;
      const extra = user.extra ?? {};
      if (Object.keys(extra).length > 0) userInfo.extra = sortedCopy(extra);
      sendReview(context, { ...review, metadata: { creationTimestamp: options.nowTime() }, status: { userInfo } }, output);
    } catch (error) {
      sendError(context, error);
    }
  };
}

/** Go writes map keys sorted; a null-prototype copy keeps request-chosen keys inert. */
function sortedCopy(extra: Readonly<Record<string, string[]>>): Record<string, string[]> {
  const out = Object.create(null) as Record<string, string[]>;
  for (const key of Object.keys(extra).sort()) out[key] = extra[key]!;
  return out;
}
