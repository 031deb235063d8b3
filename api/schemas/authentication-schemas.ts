// OpenAPI v3 component schemas of authentication/v1's SelfSubjectReview (`kubectl auth whoami`) and
// the types it nests, under Kubernetes' schema names, so `kubectl explain` finds them. The
// descriptions are Fairway's own wording.
import { schemaBuilders, META_PREFIX, type Schema } from './schemas.ts';

export const AUTHENTICATION_PREFIX = 'io.k8s.api.authentication.v1.';
const { str, ref, object, atomic, typeMeta } = schemaBuilders;

/** The component schemas of authentication/v1's served kinds; the GVK follows the group (`authentication.<api domain>`). */
export function authenticationSchemas(group: string): Record<string, Schema> {
  const an = (name: string) => `${AUTHENTICATION_PREFIX}${name}`;
  return {
    [an('SelfSubjectReview')]: object(
      "Answers with the requesting user's own information, after impersonation: what the server knows of whoever makes the request.",
      {
        ...typeMeta(),
        metadata: ref(`${META_PREFIX}ObjectMeta`, 'Standard object metadata; not stored.', true),
        status: ref(an('SelfSubjectReviewStatus'), "The user's information, filled in by the server.", true),
      },
      { 'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'SelfSubjectReview' }] },
    ),
    [an('SelfSubjectReviewStatus')]: object("The requesting user's information.", {
      userInfo: ref(an('UserInfo'), 'The authenticated (or impersonated) user.', true),
    }),
    [an('UserInfo')]: object('A user as the server knows it.', {
      extra: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string', default: '' } },
        description: 'More information the authenticator provided.',
      },
      groups: { type: 'array', items: { type: 'string', default: '' }, description: 'The groups the user is in.', ...atomic },
      uid: str('A unique value identifying the user across time.'),
      username: str('The name that uniquely identifies the user among active users.'),
    }),
  };
}
