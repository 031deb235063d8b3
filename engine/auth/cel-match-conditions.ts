// Authorization webhook matchConditions: CEL expressions over the v1 SubjectAccessReview spec,
// bound to the variable `request` with Kubernetes' declared types, so a typo is a load-time error
// (`undefined field 'usr'`) and an expression must type-check to exactly `bool` (not `dyn`).
//
// Evaluation order (Kubernetes' matcher): conditions run in order; the first `false` skips the
// webhook even if an earlier one errored; otherwise any error makes the result an error (the
// webhook's failurePolicy decides), and all `true` calls the webhook.
import type { Environment } from '@marcbachmann/cel-js';
import type { SubjectAccessReviewSpec } from './subject-access-review.ts';
import { celErrorText, compileCel, createCelEnvironment, type CompiledExpression } from './cel-environment.ts';

const SELECTOR_FIELDS = ['fieldSelector', 'labelSelector'];

let sharedEnvironment: Environment | undefined;

/** The authorization CEL environment: `request` is a `kubernetes.SubjectAccessReviewSpec`. */
export function authorizationCelEnvironment(): Environment {
  if (sharedEnvironment !== undefined) return sharedEnvironment;
  const env = createCelEnvironment();
  const selector = (requirement: string) => ({ rawSelector: 'string', requirements: `list<${requirement}>` });
  env.registerType({ name: 'kubernetes.FieldSelectorRequirement', schema: { key: 'string', operator: 'string', values: 'list<string>' } });
  env.registerType({ name: 'kubernetes.LabelSelectorRequirement', schema: { key: 'string', operator: 'string', values: 'list<string>' } });
  env.registerType({ name: 'kubernetes.FieldSelectorAttributes', schema: selector('kubernetes.FieldSelectorRequirement') });
  env.registerType({ name: 'kubernetes.LabelSelectorAttributes', schema: selector('kubernetes.LabelSelectorRequirement') });
  env.registerType({
    name: 'kubernetes.ResourceAttributes',
    schema: {
      namespace: 'string',
      verb: 'string',
      group: 'string',
      version: 'string',
      resource: 'string',
      subresource: 'string',
      name: 'string',
      fieldSelector: 'kubernetes.FieldSelectorAttributes',
      labelSelector: 'kubernetes.LabelSelectorAttributes',
    },
  });
  env.registerType({ name: 'kubernetes.NonResourceAttributes', schema: { path: 'string', verb: 'string' } });
  env.registerType({
    name: 'kubernetes.SubjectAccessReviewSpec',
    schema: {
      resourceAttributes: 'kubernetes.ResourceAttributes',
      nonResourceAttributes: 'kubernetes.NonResourceAttributes',
      user: 'string',
      groups: 'list<string>',
      extra: 'map<string, list<string>>',
      uid: 'string',
    },
  });
  env.registerVariable('request', 'kubernetes.SubjectAccessReviewSpec');
  sharedEnvironment = env;
  return env;
}

export interface MatchConditionProblem {
  index: number;
  expression: string;
  /** `compilation failed: ...` or `must evaluate to bool but got <type>`. */
  detail: string;
}

export type MatchOutcome = { matches: true } | { matches: false } | { error: string };

export interface MatchConditions {
  readonly expressions: readonly string[];
  /** Whether any expression reads field or label selectors (only then are they filled in). */
  readonly usesSelectors: boolean;
  evaluate(spec: SubjectAccessReviewSpec): MatchOutcome;
}

/** Compiles every expression; problems are reported per index (duplicates and blanks are the validator's). */
export function compileMatchConditions(expressions: readonly string[]): { conditions: MatchConditions; problems: MatchConditionProblem[] } {
  const env = authorizationCelEnvironment();
  const compiled: CompiledExpression[] = [];
  const problems: MatchConditionProblem[] = [];
  expressions.forEach((expression, index) => {
    const result = compileCel(env, expression);
    if (!result.ok) problems.push({ index, expression, detail: `compilation failed: ${result.error}` });
    else if (result.compiled.type !== 'bool') problems.push({ index, expression, detail: `must evaluate to bool but got ${result.compiled.type}` });
    else compiled.push(result.compiled);
  });
  const usesSelectors = compiled.some((c) => SELECTOR_FIELDS.some((f) => c.selectedFields.has(f)));
  return { conditions: { expressions: [...expressions], usesSelectors, evaluate: (spec) => evaluateAll(compiled, spec, usesSelectors) }, problems };
}

function evaluateAll(compiled: readonly CompiledExpression[], spec: SubjectAccessReviewSpec, usesSelectors: boolean): MatchOutcome {
  const request = celRequest(spec, usesSelectors);
  const errors: string[] = [];
  for (const condition of compiled) {
    let value: unknown;
    try {
      value = condition.evaluate({ request });
    } catch (error) {
      errors.push(`cel evaluation error: expression '${condition.expression}' resulted in error: ${celErrorText(error)}`);
      continue;
    }
    if (value === false) return { matches: false };
    if (value !== true) errors.push(`cel evaluation error: expression '${condition.expression}' resulted in error: value ${String(value)} is not a bool`);
  }
  if (errors.length === 0) return { matches: true };
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}

/**
 * The value bound to `request`: user, uid, groups and extra always present (empty when unset), the
 * attributes of the request's kind only, selectors only when an expression reads them.
 */
function celRequest(spec: SubjectAccessReviewSpec, usesSelectors: boolean): Record<string, unknown> {
  const request: Record<string, unknown> = { user: spec.user ?? '', uid: spec.uid ?? '', groups: spec.groups ?? [], extra: spec.extra ?? {} };
  const resource = spec.resourceAttributes;
  if (resource !== undefined) {
    const { fieldSelector, labelSelector, ...rest } = resource;
    const attributes: Record<string, unknown> = { namespace: '', verb: '', group: '', version: '', resource: '', subresource: '', name: '', ...rest };
    if (usesSelectors && fieldSelector !== undefined) attributes.fieldSelector = selectorValue(fieldSelector);
    if (usesSelectors && labelSelector !== undefined) attributes.labelSelector = selectorValue(labelSelector);
    request.resourceAttributes = attributes;
  }
  if (spec.nonResourceAttributes !== undefined) request.nonResourceAttributes = { path: '', verb: '', ...spec.nonResourceAttributes };
  return request;
}

function selectorValue(selector: { rawSelector?: string; requirements?: { key: string; operator: string; values?: string[] }[] }): Record<string, unknown> {
  return {
    rawSelector: selector.rawSelector ?? '',
    requirements: (selector.requirements ?? []).map((r) => ({ key: r.key, operator: r.operator, values: r.values ?? [] })),
  };
}
