// ValidatingAdmissionPolicy from static manifests: for each binding (in name order) whose policy
// exists and whose match rules select the request, evaluate the policy's matchConditions (a false
// one skips it), its variables, then its validations. A validation that is false is a violation
// with the validation's message (messageExpression first, then message, then
// `failed expression: <expr>`) and reason (Invalid by default). An expression that errors counts
// as a violation under failurePolicy Fail and is ignored under Ignore. The binding's actions say
// what a violation does: Deny refuses the request (the first violation is reported), Warn adds a
// warning, Audit is accepted and has no effect (Fairway writes no audit log).
import type { AdmissionAttributes, AdmissionResult, PolicyReason, ValidatingAdmissionPlugin } from './admission.ts';
import { admitted } from './admission.ts';
import { celErrorText } from '../cel-environment.ts';
import type { CompiledPolicy, CompiledValidation } from './policy-compile.ts';
import type { LabelSelector, MatchResources, RuleWithOperations, ValidatingAdmissionPolicyBinding } from './policy-types.ts';
import { ownValue } from '../../own-property.ts';

export const VALIDATING_ADMISSION_POLICY_PLUGIN = 'ValidatingAdmissionPolicy';
const MAX_MESSAGE_LENGTH = 5000;

interface Violation {
  message: string;
  reason: PolicyReason;
}

export function createValidatingAdmissionPolicy(
  policies: readonly CompiledPolicy[],
  bindings: readonly ValidatingAdmissionPolicyBinding[],
): ValidatingAdmissionPlugin {
  const byName = new Map(policies.map((p) => [p.policy.name, p]));
  const ordered = [...bindings].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    name: VALIDATING_ADMISSION_POLICY_PLUGIN,
    validate(attributes): AdmissionResult {
      const warnings: string[] = [];
      for (const binding of ordered) {
        const compiled = byName.get(binding.policyName);
        if (compiled === undefined) continue;
        if (!matchesResources(compiled.policy.matchConstraints, attributes)) continue;
        if (binding.matchResources !== undefined && !matchesResources(binding.matchResources, attributes)) continue;
        const violations = evaluatePolicy(compiled, attributes);
        if (violations.length === 0) continue;
        if (binding.validationActions.includes('Warn')) {
          for (const v of violations)
            warnings.push(`Validation failed for ValidatingAdmissionPolicy '${compiled.policy.name}' with binding '${binding.name}': ${v.message}`);
        }
        if (binding.validationActions.includes('Deny')) {
          const first = violations[0]!;
          return {
            allowed: false,
            rejection: { kind: 'policy-denied', policy: compiled.policy.name, binding: binding.name, message: first.message, reason: first.reason },
            warnings,
          };
        }
      }
      return admitted(warnings);
    },
  };
}

function evaluatePolicy(compiled: CompiledPolicy, attributes: AdmissionAttributes): Violation[] {
  const failClosed = compiled.policy.failurePolicy === 'Fail';
  const variables: Record<string, unknown> = {};
  const activation: Record<string, unknown> = {
    object: toCel(attributes.object ?? null),
    oldObject: toCel(attributes.oldObject ?? null),
    params: null,
    namespaceObject: null,
    request: admissionRequest(attributes),
    variables,
  };
  for (const condition of compiled.matchConditions) {
    try {
      if (condition.expression.evaluate(activation) !== true) return [];
    } catch (error) {
      return failClosed ? [{ message: `failed to evaluate match condition ${JSON.stringify(condition.name)}: ${celErrorText(error)}`, reason: 'Invalid' }] : [];
    }
  }
  for (const variable of compiled.variables) {
    // A variable that fails is left out: a validation that reads it then errors on the missing key.
    try {
      variables[variable.name] = variable.expression.evaluate(activation);
    } catch {}
  }
  const violations: Violation[] = [];
  for (const validation of compiled.validations) {
    let passed: unknown;
    try {
      passed = validation.expression.evaluate(activation);
    } catch (error) {
      if (failClosed)
        violations.push({ message: `expression '${validation.expression.expression}' resulted in error: ${celErrorText(error)}`, reason: 'Invalid' });
      continue;
    }
    if (passed !== true) violations.push({ message: violationMessage(validation, activation), reason: validation.reason as PolicyReason });
  }
  return violations;
}

function violationMessage(validation: CompiledValidation, activation: Record<string, unknown>): string {
  if (validation.messageExpression !== undefined) {
    try {
      const text = validation.messageExpression.evaluate(activation);
      if (typeof text === 'string' && text.trim() !== '' && !text.includes('\n') && text.length <= MAX_MESSAGE_LENGTH) return text;
    } catch {
      // falls back to the static message, as Kubernetes does
    }
  }
  return validation.message !== '' ? validation.message : `failed expression: ${validation.expression.expression}`;
}

function admissionRequest(attributes: AdmissionAttributes): Record<string, unknown> {
  const { user } = attributes;
  return {
    kind: attributes.kind,
    resource: attributes.resource,
    subResource: attributes.subresource,
    requestKind: attributes.kind,
    requestResource: attributes.resource,
    requestSubResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: { username: user.name, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} },
    dryRun: attributes.dryRun,
  };
}

/** JSON to CEL values: integers become CEL ints (bigint); everything else keeps its JSON form. */
export function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  return value;
}

// ---------------------------------------------------------------------------------------------
// Matching

export function matchesResources(match: MatchResources, attributes: AdmissionAttributes): boolean {
  // A binding's matchResources without resourceRules narrows nothing by resource (kube's matcher).
  if (match.resourceRules.length > 0 && !match.resourceRules.some((rule) => ruleMatches(rule, attributes))) return false;
  if (match.excludeResourceRules.some((rule) => ruleMatches(rule, attributes))) return false;
  if (match.objectSelector !== undefined) {
    const labelsOf = (object?: Record<string, unknown>) => (object?.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};
    if (!selectorMatches(match.objectSelector, labelsOf(attributes.object)) && !selectorMatches(match.objectSelector, labelsOf(attributes.oldObject)))
      return false;
  }
  // namespaceSelector never excludes a cluster-scoped object, and every flowcontrol object is one.
  return true;
}

function ruleMatches(rule: RuleWithOperations, attributes: AdmissionAttributes): boolean {
  const has = (list: readonly string[], value: string) => list.includes('*') || list.includes(value);
  if (!has(rule.operations, attributes.operation)) return false;
  if (!has(rule.apiGroups, attributes.resource.group) || !has(rule.apiVersions, attributes.resource.version)) return false;
  if (!rule.resources.some((pattern) => resourceMatches(pattern, attributes.resource.resource, attributes.subresource))) return false;
  if (rule.resourceNames.length > 0 && !rule.resourceNames.includes(attributes.name)) return false;
  if (rule.scope === 'Cluster' && attributes.namespace !== '') return false;
  if (rule.scope === 'Namespaced' && attributes.namespace === '') return false;
  return true;
}

/** `*` is every resource but no subresource; `x/*`, `*\/status` and `*\/*` reach subresources. */
function resourceMatches(pattern: string, resource: string, subresource: string): boolean {
  const [patternResource = '', patternSub] = pattern.split('/', 2);
  if (patternSub === undefined) return subresource === '' && (patternResource === '*' || patternResource === resource);
  return (patternResource === '*' || patternResource === resource) && (patternSub === '*' || patternSub === subresource);
}

function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels)) if (ownValue(labels, key) !== value) return false;
  return selector.matchExpressions.every(({ key, operator, values }) => {
    const present = Object.hasOwn(labels, key);
    switch (operator) {
      case 'In':
        return present && values.includes(labels[key]!);
      case 'NotIn':
        return !present || !values.includes(labels[key]!);
      case 'Exists':
        return present;
      case 'DoesNotExist':
        return !present;
      default:
        return false;
    }
  });
}
