// FlowSchema validation (pkg/apis/flowcontrol/validation), run on the *defaulted* object as
// kube-apiserver does. Order: ObjectMeta, the spec, the mandatory-object check, the status.
// The rule ids in comments (F1..F8, S1..S11, R1..R10, N1..N8, M1) are those of the APF semantics
// fact sheet, section 3.2; ST1/ST2 live in status-validation.ts.

import type {
  FlowSchema,
  FlowSchemaSpec,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  ResourcePolicyRule,
  ServiceAccountSubject,
  Subject,
} from './types.ts';
import { FLOW_SCHEMA_KIND, FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE, FLOW_SCHEMA_NAME_EXEMPT } from './types.ts';
import type { FieldError } from './field-errors.ts';
import { FieldPath, addFieldError, addFieldErrors, forbidden, invalid, notSupported, required } from './field-errors.ts';
import { nameIsDnsLabel, nameIsDnsSubdomain, validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.ts';
import { validateConditions } from './status-validation.ts';
import { mandatoryObject } from './bootstrap.ts';
import { defaultFlowSchema } from './defaults.ts';
import { flowSchemaSpecsEqual } from './spec-equality.ts';

const SUPPORTED_DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUPPORTED_SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
/** Sorted, as `sets.String.List()` reports them. */
export const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const WILDCARD = '*';
const NAMESPACE_ERROR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

export function validateFlowSchema(fs: FlowSchema): FieldError[] {
  const name = fs.metadata?.name ?? '';
  const spec: FlowSchemaSpec = fs.spec ?? {};
  const specPath = FieldPath.root('spec');
  const errors = validateObjectMeta(fs.metadata, 'metadata');
  addFieldErrors(errors, validateSpec(name, spec, specPath));
  const mandatory = mandatoryObject(FLOW_SCHEMA_KIND, name);
  if (mandatory !== undefined && !flowSchemaSpecsEqual(spec, defaultFlowSchema(mandatory).spec)) {
    addFieldError(errors, invalid(specPath, spec, `spec of '${name}' must equal the fixed value`)); // M1
  }
  addFieldErrors(errors, validateConditions(fs.status));
  return errors;
}

/** Update: the ObjectMeta update rules, then the whole object again (Kubernetes has no spec immutability here). */
export function validateFlowSchemaUpdate(fs: FlowSchema, old: FlowSchema): FieldError[] {
  return addFieldErrors(validateObjectMetaUpdate(fs.metadata, old.metadata, 'metadata'), validateFlowSchema(fs));
}

/** `/status` update: the ObjectMeta update rules and the status alone. */
export function validateFlowSchemaStatusUpdate(fs: FlowSchema, old: FlowSchema): FieldError[] {
  return addFieldErrors(validateObjectMetaUpdate(fs.metadata, old.metadata, 'metadata'), validateConditions(fs.status));
}

function validateSpec(name: string, spec: FlowSchemaSpec, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const precedence = spec.matchingPrecedence ?? 0;
  const precedencePath = path.child('matchingPrecedence');
  if (precedence <= 0) addFieldError(errors, invalid(precedencePath, precedence, 'must be a positive value')); // F1
  if (precedence > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE) {
    addFieldError(errors, invalid(precedencePath, precedence, `must not be greater than ${FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}`)); // F2
  }
  if (precedence === 1 && name !== FLOW_SCHEMA_NAME_EXEMPT) {
    addFieldError(errors, invalid(precedencePath, precedence, "only the schema named 'exempt' may have matchingPrecedence 1")); // F3
  }
  const method = spec.distinguisherMethod;
  if (method !== undefined && method !== null && !SUPPORTED_DISTINGUISHER_METHODS.includes(text(method.type))) {
    addFieldError(errors, notSupported(path.child('distinguisherMethod').child('type'), method, SUPPORTED_DISTINGUISHER_METHODS)); // F4
  }
  const levelName = text(spec.priorityLevelConfiguration?.name);
  const levelPath = path.child('priorityLevelConfiguration').child('name');
  if (levelName.length > 0) {
    for (const message of nameIsDnsSubdomain(levelName, false)) addFieldError(errors, invalid(levelPath, levelName, message)); // F5
  } else {
    addFieldError(errors, required(levelPath, 'must reference a priority level')); // F6
  }
  list<PolicyRulesWithSubjects>(spec.rules).forEach((rule, i) => addFieldErrors(errors, validateRule(rule ?? {}, path.child('rules').index(i))));
  return errors;
}

function validateRule(rule: PolicyRulesWithSubjects, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const subjects = list<Subject>(rule.subjects);
  if (subjects.length > 0) subjects.forEach((s, j) => addFieldErrors(errors, validateSubject(s ?? {}, path.child('subjects').index(j))));
  else addFieldError(errors, required(path.child('subjects'), 'subjects must contain at least one value')); // F7
  const resourceRules = list<ResourcePolicyRule>(rule.resourceRules);
  const nonResourceRules = list<NonResourcePolicyRule>(rule.nonResourceRules);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    addFieldError(errors, required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty')); // F8
  }
  resourceRules.forEach((r, k) => addFieldErrors(errors, validateResourceRule(r ?? {}, path.child('resourceRules').index(k))));
  nonResourceRules.forEach((r, k) => addFieldErrors(errors, validateNonResourceRule(r ?? {}, path.child('nonResourceRules').index(k))));
  return errors;
}

function validateSubject(subject: Subject, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  // S10: a member that belongs to another kind.
  const forbid = (member: 'user' | 'group' | 'serviceAccount', kind: string): void => {
    const value = subject[member];
    if (value !== undefined && value !== null)
      addFieldError(errors, forbidden(path.child(member), `${member} is forbidden when subject kind is not '${kind}'`));
  };
  switch (subject.kind) {
    case 'ServiceAccount':
      addFieldErrors(errors, validateServiceAccount(subject.serviceAccount, path.child('serviceAccount')));
      forbid('user', 'User');
      forbid('group', 'Group');
      break;
    case 'User':
      addFieldErrors(errors, validateNamedMember(subject.user, path.child('user'), "user is required when subject kind is 'User'")); // S6, S7
      forbid('serviceAccount', 'ServiceAccount');
      forbid('group', 'Group');
      break;
    case 'Group':
      addFieldErrors(errors, validateNamedMember(subject.group, path.child('group'), "group is required when subject kind is 'Group'")); // S8, S9
      forbid('serviceAccount', 'ServiceAccount');
      forbid('user', 'User');
      break;
    default:
      addFieldError(errors, notSupported(path.child('kind'), subject.kind ?? '', SUPPORTED_SUBJECT_KINDS)); // S11
  }
  return errors;
}

function validateServiceAccount(sa: ServiceAccountSubject | null | undefined, path: FieldPath): FieldError[] {
  if (sa === undefined || sa === null) return [required(path, "serviceAccount is required when subject kind is 'ServiceAccount'")]; // S1
  const errors: FieldError[] = [];
  const name = text(sa.name);
  if (name.length === 0)
    addFieldError(errors, required(path.child('name'))); // S2
  else if (name !== WILDCARD) for (const message of nameIsDnsSubdomain(name, false)) addFieldError(errors, invalid(path.child('name'), name, message)); // S3
  const namespace = text(sa.namespace);
  if (namespace.length > 0) {
    for (const message of nameIsDnsLabel(namespace, false)) addFieldError(errors, invalid(path.child('namespace'), namespace, message)); // S5
  } else {
    addFieldError(errors, required(path.child('namespace'), 'must specify namespace for service account')); // S4
  }
  return errors;
}

function validateNamedMember(member: { name?: string } | null | undefined, path: FieldPath, missing: string): FieldError[] {
  if (member === undefined || member === null) return [required(path, missing)];
  return text(member.name).length === 0 ? [required(path.child('name'))] : [];
}

function validateVerbs(verbs: string[], path: FieldPath): FieldError[] {
  if (verbs.length === 0) return [required(path, 'verbs must contain at least one value')]; // R1 / N1
  if (verbs.includes(WILDCARD)) return verbs.length > 1 ? [invalid(path, verbs, "if '*' is present, must not specify other verbs")] : []; // R2
  if (!verbs.every((v) => SUPPORTED_VERBS.includes(v))) return [notSupported(path, verbs, SUPPORTED_VERBS)]; // R3
  return [];
}

function validateResourceRule(rule: ResourcePolicyRule, path: FieldPath): FieldError[] {
  const errors = validateVerbs(strings(rule.verbs), path.child('verbs'));
  const apiGroups = strings(rule.apiGroups);
  if (apiGroups.length === 0)
    addFieldError(errors, required(path.child('apiGroups'), 'resource rules must supply at least one api group')); // R4
  else if (apiGroups.length > 1 && apiGroups.includes(WILDCARD)) {
    addFieldError(errors, invalid(path.child('apiGroups'), apiGroups, "if '*' is present, must not specify other api groups")); // R5
  }
  const resources = strings(rule.resources);
  if (resources.length === 0)
    addFieldError(errors, required(path.child('resources'), 'resource rules must supply at least one resource')); // R6
  else if (resources.length > 1 && resources.includes(WILDCARD)) {
    addFieldError(errors, invalid(path.child('resources'), resources, "if '*' is present, must not specify other resources")); // R7
  }
  const namespaces = strings(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    addFieldError(errors, required(path.child('namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace')); // R8
  } else if (namespaces.includes(WILDCARD)) {
    if (namespaces.length > 1) {
      addFieldError(errors, invalid(path.child('namespaces'), namespaces, "if '*' is present, must not specify other namespaces")); // R9
    }
  } else {
    namespaces.forEach((namespace, n) => {
      for (const message of nameIsDnsLabel(namespace, false)) {
        addFieldError(errors, invalid(path.child('namespaces').index(n), namespace, NAMESPACE_ERROR_INTRO + message)); // R10
      }
    });
  }
  return errors;
}

function validateNonResourceRule(rule: NonResourcePolicyRule, path: FieldPath): FieldError[] {
  const errors = validateVerbs(strings(rule.verbs), path.child('verbs')); // N1
  const urls = strings(rule.nonResourceURLs);
  const urlsPath = path.child('nonResourceURLs');
  if (urls.length === 0)
    addFieldError(errors, required(urlsPath, 'nonResourceURLs must contain at least one value')); // N2
  else if (urls.includes(WILDCARD)) {
    if (urls.length > 1) addFieldError(errors, invalid(urlsPath, urls, "if '*' is present, must not specify other non-resource URLs")); // N3
  } else {
    urls.forEach((url, n) => {
      const problem = nonResourceUrlProblem(url);
      if (problem !== undefined) addFieldError(errors, invalid(urlsPath.index(n), url, problem));
    });
  }
  return errors;
}

/** N4..N8: at most one problem per URL, the first that applies. */
export function nonResourceUrlProblem(url: string): string | undefined {
  if (url.length === 0) return 'must not be empty';
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return 'must start with slash';
  if (url.includes(' ')) return 'must not contain white-space';
  if (url.includes('//')) return 'must not contain double slash';
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : String(v))) : [];
}
