// OpenAPI v3 component schemas of the self reviews: SelfSubjectAccessReview and
// SelfSubjectRulesReview (authorization v1), SelfSubjectReview (authentication v1), under the
// schema names Kubernetes uses, so `kubectl explain selfsubjectrulesreviews` and other tools find
// them. The descriptions are Fairway's own wording.
import { apiGroupsFor } from '../engine/resources/api-domain.ts';
import { META_PREFIX, metaSchemas, schemaRef, type Schema } from './openapi-schemas.ts';

export const AUTHORIZATION_PREFIX = 'io.k8s.api.authorization.v1.';
export const AUTHENTICATION_PREFIX = 'io.k8s.api.authentication.v1.';

const str = (description: string): Schema => ({ type: 'string', description });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string', default: '' }, description, 'x-kubernetes-list-type': 'atomic' });
const ref = (name: string, description: string, defaulted = false): Schema =>
  defaulted ? { allOf: [{ $ref: schemaRef(name) }], default: {}, description } : { allOf: [{ $ref: schemaRef(name) }], description };
const listOf = (name: string, description: string): Schema => ({ type: 'array', items: { allOf: [{ $ref: schemaRef(name) }], default: {} }, description, 'x-kubernetes-list-type': 'atomic' });
const object = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', description, properties, ...extra });
const typeMeta = () => ({
  apiVersion: str('The versioned schema of this representation of an object.'),
  kind: str('The REST resource this object represents, in CamelCase.'),
  metadata: ref(`${META_PREFIX}ObjectMeta`, 'Standard object metadata; a review is not stored, so it carries little.', true),
});

/** The meta/v1 schemas the review documents point at. */
const META_NEEDED = ['FieldsV1', 'ManagedFieldsEntry', 'ObjectMeta', 'OwnerReference', 'Time', 'APIResource', 'APIResourceList'].map((n) => `${META_PREFIX}${n}`);

function metaSubset(apiDomain?: string): Record<string, Schema> {
  const all = metaSchemas(apiGroupsFor(apiDomain).flowcontrol);
  return Object.fromEntries(META_NEEDED.map((name) => [name, all[name]!]));
}

/** Components of the authorization v1 document. */
export function authorizationReviewSchemas(apiDomain?: string): Record<string, Schema> {
  const group = apiGroupsFor(apiDomain).authorization;
  const az = (name: string) => `${AUTHORIZATION_PREFIX}${name}`;
  const requirement = (description: string, operators: string): Schema =>
    object(description, { key: str('The key the requirement applies to.'), operator: str(operators), values: strings('The values; how they are used depends on the operator.') }, { required: ['key', 'operator'] });
  return {
    [az('FieldSelectorAttributes')]: object('A field selector, as a raw selector or as parsed requirements.', {
      rawSelector: str('The selector exactly as it appears in a query string. Alternative to requirements.'),
      requirements: listOf(`${META_PREFIX}FieldSelectorRequirement`, 'The parsed form of the selector.'),
    }),
    [az('LabelSelectorAttributes')]: object('A label selector, as a raw selector or as parsed requirements.', {
      rawSelector: str('The selector exactly as it appears in a query string. Alternative to requirements.'),
      requirements: listOf(`${META_PREFIX}LabelSelectorRequirement`, 'The parsed form of the selector.'),
    }),
    [az('NonResourceAttributes')]: object('A request that is not for a resource.', { path: str('The URL path.'), verb: str('The standard HTTP verb, lower-cased.') }),
    [az('NonResourceRule')]: object(
      'What a subject may do on paths that are not resources.',
      { nonResourceURLs: strings('Paths the rule applies to; a trailing `*` matches a prefix, `*` alone every path.'), verbs: strings('Lower-cased HTTP verbs the rule allows; `*` is all.') },
      { required: ['verbs'] },
    ),
    [az('ResourceAttributes')]: object('A request for a resource.', {
      fieldSelector: ref(az('FieldSelectorAttributes'), 'The field selector of a list, watch or deletecollection.'),
      group: str('The API group; `*` means all.'),
      labelSelector: ref(az('LabelSelectorAttributes'), 'The label selector of a list, watch or deletecollection.'),
      name: str('The name of the object; empty means all.'),
      namespace: str('The namespace; empty means every namespace for namespaced resources.'),
      resource: str('A resource type; `*` means all.'),
      subresource: str('A subresource; empty means none.'),
      verb: str('A Kubernetes verb (get, list, watch, create, update, patch, delete, deletecollection, impersonate…); `*` means all.'),
      version: str('The API version; `*` means all.'),
    }),
    [az('ResourceRule')]: object(
      'What a subject may do on resources. Rules may overlap, and the lists may be incomplete.',
      {
        apiGroups: strings('API groups the rule applies to; `*` is all.'),
        resourceNames: strings('Object names the rule applies to; empty means all.'),
        resources: strings('Resources the rule applies to; `*` is all, `*/x` subresource x of all.'),
        verbs: strings('Verbs the rule allows; `*` is all.'),
      },
      { required: ['verbs'] },
    ),
    [az('SelfSubjectAccessReview')]: object(
      'Asks whether the caller may perform an action. Without a spec.namespace a namespaced action is checked in every namespace.',
      { ...typeMeta(), spec: ref(az('SelfSubjectAccessReviewSpec'), 'The action to check. Required.', true), status: ref(az('SubjectAccessReviewStatus'), 'The answer, filled in by the server.', true) },
      { required: ['spec'], 'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'SelfSubjectAccessReview' }] },
    ),
    [az('SelfSubjectAccessReviewSpec')]: object('The action to check; exactly one of resourceAttributes and nonResourceAttributes.', {
      nonResourceAttributes: ref(az('NonResourceAttributes'), 'A request that is not for a resource.'),
      resourceAttributes: ref(az('ResourceAttributes'), 'A request for a resource.'),
    }),
    [az('SelfSubjectRulesReview')]: object(
      'Lists what the caller may do in a namespace, as far as the authorizers can enumerate it. The list can be incomplete (see status.incomplete); use SelfSubjectAccessReview for a definitive answer about one action.',
      { ...typeMeta(), spec: ref(az('SelfSubjectRulesReviewSpec'), 'Where to list the rules. Required.', true), status: ref(az('SubjectRulesReviewStatus'), 'The rules, filled in by the server.', true) },
      { required: ['spec'], 'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'SelfSubjectRulesReview' }] },
    ),
    [az('SelfSubjectRulesReviewSpec')]: object('Where to list the rules.', { namespace: str('The namespace to evaluate rules in. Required.') }),
    [az('SubjectAccessReviewStatus')]: object(
      'The answer to an access review.',
      {
        allowed: bool('Whether the action is allowed. Required.'),
        denied: bool('Whether the action is explicitly denied. Both allowed and denied false means no authorizer had an opinion.'),
        evaluationError: str('An error met while checking; an authorizer may still have given an answer.'),
        reason: str('Why the action is allowed or denied.'),
      },
      { required: ['allowed'] },
    ),
    [az('SubjectRulesReviewStatus')]: object(
      'The rules a subject has in a namespace.',
      {
        evaluationError: str('Why the lists could not be completed, for example an authorizer that cannot enumerate rules.'),
        incomplete: bool('True when the lists miss permissions some authorizer would grant.'),
        nonResourceRules: listOf(az('NonResourceRule'), 'What the subject may do on paths that are not resources.'),
        resourceRules: listOf(az('ResourceRule'), 'What the subject may do on resources.'),
      },
      { required: ['resourceRules', 'nonResourceRules', 'incomplete'] },
    ),
    [`${META_PREFIX}FieldSelectorRequirement`]: requirement('One requirement of a field selector.', '`In`, `NotIn`, `Exists` or `DoesNotExist`.'),
    [`${META_PREFIX}LabelSelectorRequirement`]: requirement('One requirement of a label selector.', '`In`, `NotIn`, `Exists` or `DoesNotExist`.'),
    ...metaSubset(apiDomain),
  };
}

/** Components of the authentication v1 document. */
export function authenticationReviewSchemas(apiDomain?: string): Record<string, Schema> {
  const group = apiGroupsFor(apiDomain).authentication;
  const an = (name: string) => `${AUTHENTICATION_PREFIX}${name}`;
  return {
    [an('SelfSubjectReview')]: object(
      'Answers with the caller\'s own user information, after impersonation: what the server knows of whoever makes the request.',
      { ...typeMeta(), status: ref(an('SelfSubjectReviewStatus'), 'The caller\'s user information, filled in by the server.', true) },
      { 'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'SelfSubjectReview' }] },
    ),
    [an('SelfSubjectReviewStatus')]: object('The caller\'s user information.', { userInfo: ref(an('UserInfo'), 'The authenticated (or impersonated) user.', true) }),
    [an('UserInfo')]: object('A user as the server knows it.', {
      extra: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', default: '' } }, description: 'More information the authenticator provided.' },
      groups: strings('The groups the user is in.'),
      uid: str('A unique value identifying the user across time.'),
      username: str('The name that uniquely identifies the user among active users.'),
    }),
    ...metaSubset(apiDomain),
  };
}
