// Decoding (strict: the admissionregistration/v1 field set), defaulting and the structural
// validation of ValidatingAdmissionPolicy and its binding, with Kubernetes' paths and wording.
// Fields Fairway cannot honour (parameters, which need parameter resources it does not serve) are
// refused with a field error rather than silently ignored.
import type { FieldError } from '../../resources/field-errors.ts';
import { duplicate, FieldPath, forbidden, invalid, notSupported, required } from '../../resources/field-errors.ts';
import { anything, arrayOf, decodeShape, mapOf, string, struct } from '../../resources/schema-decoder.ts';
import type { LabelSelector, MatchResources, RuleWithOperations, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './policy-types.ts';

const strings = arrayOf(string);
const OBJECT_META = struct(
  { name: string, generateName: string, namespace: string, uid: string, resourceVersion: string, labels: mapOf(string), annotations: mapOf(string) },
  true,
);
const LABEL_SELECTOR = struct({ matchLabels: mapOf(string), matchExpressions: arrayOf(struct({ key: string, operator: string, values: strings })) });
const RULE = struct({ apiGroups: strings, apiVersions: strings, operations: strings, resources: strings, resourceNames: strings, scope: string });
const MATCH_RESOURCES = struct({
  namespaceSelector: LABEL_SELECTOR,
  objectSelector: LABEL_SELECTOR,
  resourceRules: arrayOf(RULE),
  excludeResourceRules: arrayOf(RULE),
  matchPolicy: string,
});
const NAMED_EXPRESSION = struct({ name: string, expression: string });

const POLICY_SHAPE = struct({
  apiVersion: string,
  kind: string,
  metadata: OBJECT_META,
  spec: struct({
    paramKind: anything,
    matchConstraints: MATCH_RESOURCES,
    validations: arrayOf(struct({ expression: string, message: string, reason: string, messageExpression: string })),
    failurePolicy: string,
    auditAnnotations: arrayOf(struct({ key: string, valueExpression: string })),
    matchConditions: arrayOf(NAMED_EXPRESSION),
    variables: arrayOf(NAMED_EXPRESSION),
  }),
  status: anything,
});

const BINDING_SHAPE = struct({
  apiVersion: string,
  kind: string,
  metadata: OBJECT_META,
  spec: struct({ policyName: string, paramRef: anything, matchResources: MATCH_RESOURCES, validationActions: strings }),
});

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

type Raw = Record<string, unknown>;

export function decodePolicy(document: Raw, file: string): { policy?: ValidatingAdmissionPolicy; errors: FieldError[] } {
  const { value, errors } = decodeShape(document, POLICY_SHAPE);
  if (errors.length > 0) return { errors };
  const raw = value as { metadata?: { name?: string }; spec?: Raw };
  const spec = (raw.spec ?? {}) as {
    paramKind?: unknown;
    matchConstraints?: Raw;
    validations?: { expression?: string; message?: string; reason?: string; messageExpression?: string }[];
    failurePolicy?: string;
    auditAnnotations?: unknown[];
    matchConditions?: { name?: string; expression?: string }[];
    variables?: { name?: string; expression?: string }[];
  };
  const path = FieldPath.root('spec');
  const problems: FieldError[] = [];
  if (spec.paramKind !== undefined) problems.push(forbidden(path.child('paramKind'), 'parameter resources are not served by Fairway'));
  const failurePolicy = spec.failurePolicy ?? 'Fail';
  if (failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') problems.push(notSupported(path.child('failurePolicy'), failurePolicy, ['Fail', 'Ignore']));
  if (spec.matchConstraints === undefined) problems.push(required(path.child('matchConstraints')));
  const matchConstraints = decodeMatchResources(spec.matchConstraints ?? {}, path.child('matchConstraints'), problems, true);
  const validations = (spec.validations ?? []).map((v, i) => {
    const reason = v.reason ?? 'Invalid';
    if ((v.expression ?? '').trim() === '') problems.push(required(path.child('validations').index(i).child('expression')));
    if (!REASONS.includes(reason)) problems.push(notSupported(path.child('validations').index(i).child('reason'), reason, REASONS));
    return { expression: v.expression ?? '', message: v.message ?? '', messageExpression: v.messageExpression ?? '', reason };
  });
  if (validations.length === 0 && (spec.auditAnnotations ?? []).length === 0) {
    problems.push(required(path.child('validations'), 'validations or auditAnnotations must contain at least one item'));
  }
  const named = (list: { name?: string; expression?: string }[] | undefined, field: string) => {
    const seen = new Set<string>();
    return (list ?? []).map((item, i) => {
      const itemPath = path.child(field).index(i);
      const name = item.name ?? '';
      if (name === '') problems.push(required(itemPath.child('name')));
      else if (seen.has(name)) problems.push(duplicate(itemPath.child('name'), name));
      else if (field === 'variables' && !CEL_IDENTIFIER.test(name)) problems.push(invalid(itemPath.child('name'), name, 'name is not a valid CEL identifier'));
      seen.add(name);
      if ((item.expression ?? '').trim() === '') problems.push(required(itemPath.child('expression')));
      return { name, expression: item.expression ?? '' };
    });
  };
  const matchConditions = named(spec.matchConditions, 'matchConditions');
  const variables = named(spec.variables, 'variables');
  if (problems.length > 0) return { errors: problems };
  return {
    policy: {
      name: raw.metadata?.name ?? '',
      file,
      failurePolicy: failurePolicy as 'Fail' | 'Ignore',
      matchConstraints,
      validations,
      matchConditions,
      variables,
    },
    errors: [],
  };
}

export function decodeBinding(document: Raw, file: string): { binding?: ValidatingAdmissionPolicyBinding; errors: FieldError[] } {
  const { value, errors } = decodeShape(document, BINDING_SHAPE);
  if (errors.length > 0) return { errors };
  const raw = value as { metadata?: { name?: string }; spec?: { policyName?: string; paramRef?: unknown; matchResources?: Raw; validationActions?: string[] } };
  const spec = raw.spec ?? {};
  const path = FieldPath.root('spec');
  const problems: FieldError[] = [];
  if ((spec.policyName ?? '') === '') problems.push(required(path.child('policyName')));
  if (spec.paramRef !== undefined) problems.push(forbidden(path.child('paramRef'), 'parameter resources are not served by Fairway'));
  const actions = spec.validationActions ?? [];
  if (actions.length === 0) problems.push(required(path.child('validationActions'), 'at least one validation action is required'));
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!ACTIONS.includes(action)) problems.push(notSupported(path.child('validationActions').index(i), action, ACTIONS));
    else if (seen.has(action)) problems.push(duplicate(path.child('validationActions').index(i), action));
    seen.add(action);
  });
  if (actions.includes('Deny') && actions.includes('Warn')) {
    problems.push(forbidden(path.child('validationActions'), 'may not contain both "Deny" and "Warn"'));
  }
  const binding: ValidatingAdmissionPolicyBinding = { name: raw.metadata?.name ?? '', file, policyName: spec.policyName ?? '', validationActions: actions };
  if (spec.matchResources !== undefined) binding.matchResources = decodeMatchResources(spec.matchResources, path.child('matchResources'), problems, false);
  return problems.length > 0 ? { errors: problems } : { binding, errors: [] };
}

function decodeMatchResources(raw: Raw, path: FieldPath, problems: FieldError[], rulesRequired: boolean): MatchResources {
  const rules = (list: unknown, field: string): RuleWithOperations[] =>
    ((list as Raw[] | undefined) ?? []).map((rule, i) => {
      const operations = (rule.operations as string[] | undefined) ?? [];
      operations.forEach((op, j) => {
        if (!OPERATIONS.includes(op)) problems.push(notSupported(path.child(field).index(i).child('operations').index(j), op, OPERATIONS));
      });
      return {
        apiGroups: (rule.apiGroups as string[] | undefined) ?? [],
        apiVersions: (rule.apiVersions as string[] | undefined) ?? [],
        operations,
        resources: (rule.resources as string[] | undefined) ?? [],
        resourceNames: (rule.resourceNames as string[] | undefined) ?? [],
        scope: (rule.scope as string | undefined) ?? '*',
      };
    });
  const resourceRules = rules(raw.resourceRules, 'resourceRules');
  if (rulesRequired && resourceRules.length === 0) problems.push(required(path.child('resourceRules')));
  const result: MatchResources = { resourceRules, excludeResourceRules: rules(raw.excludeResourceRules, 'excludeResourceRules') };
  const selector = (value: unknown): LabelSelector | undefined => {
    if (value === undefined) return undefined;
    const s = value as { matchLabels?: Record<string, string>; matchExpressions?: { key?: string; operator?: string; values?: string[] }[] };
    return {
      matchLabels: s.matchLabels ?? {},
      matchExpressions: (s.matchExpressions ?? []).map((e) => ({ key: e.key ?? '', operator: e.operator ?? '', values: e.values ?? [] })),
    };
  };
  const objectSelector = selector(raw.objectSelector);
  if (objectSelector !== undefined) result.objectSelector = objectSelector;
  const namespaceSelector = selector(raw.namespaceSelector);
  if (namespaceSelector !== undefined) result.namespaceSelector = namespaceSelector;
  return result;
}
