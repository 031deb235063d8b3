// OpenAPI v3 component schemas of authorization/v1's SelfSubjectAccessReview (`kubectl auth can-i`)
// and SelfSubjectRulesReview (`kubectl auth can-i --list`) and the types they nest, under
// Kubernetes' schema names, so `kubectl explain` finds them. The descriptions are Fairway's own
// wording.
import { schemaBuilders, META_PREFIX, type Schema } from './schemas.ts';

export const AUTHORIZATION_PREFIX = 'io.k8s.api.authorization.v1.';
const { str, bool, ref, listOf, object, atomic, typeMeta } = schemaBuilders;
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string', default: '' }, description, ...atomic });

/** The component schemas of authorization/v1's served kinds; the GVK follows the group (`authorization.<api domain>`). */
export function authorizationSchemas(group: string): Record<string, Schema> {
  const az = (name: string) => `${AUTHORIZATION_PREFIX}${name}`;
  const selector = (what: string, requirement: string): Schema =>
    object(`A ${what} selector, as a raw string or as parsed requirements (not both).`, {
      rawSelector: str(`The ${what} selector in its text form; the server parses it.`),
      requirements: listOf(`${META_PREFIX}${requirement}`, `The ${what} selector as requirements, all of which must hold.`, atomic),
    });
  return {
    [az('FieldSelectorAttributes')]: selector('field', 'FieldSelectorRequirement'),
    [az('LabelSelectorAttributes')]: selector('label', 'LabelSelectorRequirement'),
    [az('NonResourceAttributes')]: object('A request for a non-resource path, as the authorizer sees it.', {
      path: str('The URL path, such as `/healthz`.'),
      verb: str('The lower-case HTTP verb, such as `get`.'),
    }),
    [az('ResourceAttributes')]: object('A resource request, as the authorizer sees it.', {
      fieldSelector: ref(az('FieldSelectorAttributes'), 'The field selector of a list or watch, when the check is about one.'),
      group: str('The API group; `*` means all.'),
      labelSelector: ref(az('LabelSelectorAttributes'), 'The label selector of a list or watch, when the check is about one.'),
      name: str('The name of the object; empty means all.'),
      namespace: str('The namespace; empty means all namespaces for namespaced kinds, and is ignored for cluster-scoped ones.'),
      resource: str('The resource, such as `flowschemas`; `*` means all.'),
      subresource: str('The subresource, such as `status`; empty means none.'),
      verb: str('The API verb, such as `get`, `list` or `create`; `*` means all.'),
      version: str('The API version; `*` means all.'),
    }),
    [az('SelfSubjectAccessReview')]: object(
      'Asks whether the requesting user may perform an action. The answer is in `status`.',
      {
        ...typeMeta(),
        metadata: ref(`${META_PREFIX}ObjectMeta`, 'Standard object metadata; not stored.', true),
        spec: ref(az('SelfSubjectAccessReviewSpec'), 'The action the user asks about.', true),
        status: ref(az('SubjectAccessReviewStatus'), 'The answer: whether the action is allowed.', true),
      },
      { required: ['spec'], 'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'SelfSubjectAccessReview' }] },
    ),
    [az('SelfSubjectAccessReviewSpec')]: object('The action asked about; exactly one of resourceAttributes and nonResourceAttributes is set.', {
      nonResourceAttributes: ref(az('NonResourceAttributes'), 'Set for a non-resource request.'),
      resourceAttributes: ref(az('ResourceAttributes'), 'Set for a resource request.'),
    }),
    [az('NonResourceRule')]: object(
      'What a subject may do on paths that are not resources.',
      {
        nonResourceURLs: strings('Paths the rule applies to; a trailing `*` matches a prefix, `*` alone every path.'),
        verbs: strings('Lower-case HTTP verbs the rule allows; `*` is all.'),
      },
      { required: ['verbs'] },
    ),
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
    [az('SelfSubjectRulesReview')]: object(
      'Lists what the requesting user may do in a namespace, as far as the authorizers can enumerate it. The list can be incomplete (see ' +
        'status.incomplete); a SelfSubjectAccessReview gives the definitive answer about one action.',
      {
        ...typeMeta(),
        metadata: ref(`${META_PREFIX}ObjectMeta`, 'Standard object metadata; not stored.', true),
        spec: ref(az('SelfSubjectRulesReviewSpec'), 'Where to list the rules.', true),
        status: ref(az('SubjectRulesReviewStatus'), 'The rules, filled in by the server.', true),
      },
      { required: ['spec'], 'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'SelfSubjectRulesReview' }] },
    ),
    [az('SelfSubjectRulesReviewSpec')]: object('Where to list the rules.', { namespace: str('The namespace to evaluate rules in. Required.') }),
    [az('SubjectRulesReviewStatus')]: object(
      'The rules a subject has in a namespace.',
      {
        evaluationError: str('Why the lists could not be completed, for example an authorizer that cannot enumerate rules.'),
        incomplete: bool('True when the lists may miss permissions some authorizer would grant.'),
        nonResourceRules: listOf(az('NonResourceRule'), 'What the subject may do on paths that are not resources.', atomic),
        resourceRules: listOf(az('ResourceRule'), 'What the subject may do on resources.', atomic),
      },
      { required: ['resourceRules', 'nonResourceRules', 'incomplete'] },
    ),
    [az('SubjectAccessReviewStatus')]: object(
      "The authorizer's answer.",
      {
        allowed: bool('Whether the action is allowed. Required.'),
        denied: bool('Whether the action is explicitly denied; when both are false, no authorizer had an opinion.'),
        evaluationError: str('An error the authorizer met while deciding; the decision may still hold.'),
        reason: str("Why the action is allowed or denied, in the authorizer's words."),
      },
      { required: ['allowed'] },
    ),
  };
}
