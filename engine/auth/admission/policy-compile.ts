// Compiling a ValidatingAdmissionPolicy's CEL: validations and matchConditions must type-check to
// bool, messageExpressions to string, variables to anything. The environment declares what
// Kubernetes declares for admission: `object`, `oldObject`, `params` and `namespaceObject` (objects,
// typed dyn here since Fairway has no OpenAPI schema in the CEL environment), `request` (the
// admission request attributes, typed), and `variables` (the policy's named variables).
// `authorizer` is not offered, so an expression using it fails to compile with a clear message.
import type { Environment } from '@marcbachmann/cel-js';
import type { FieldError } from '../../resources/field-errors.ts';
import { FieldPath, invalid } from '../../resources/field-errors.ts';
import { compileCel, createCelEnvironment, type CompiledExpression } from '../cel-environment.ts';
import type { ValidatingAdmissionPolicy } from './policy-types.ts';

export interface CompiledValidation {
  expression: CompiledExpression;
  message: string;
  messageExpression?: CompiledExpression | undefined;
  reason: string;
}

export interface CompiledPolicy {
  policy: ValidatingAdmissionPolicy;
  matchConditions: { name: string; expression: CompiledExpression }[];
  variables: { name: string; expression: CompiledExpression }[];
  validations: CompiledValidation[];
}

let sharedEnvironment: Environment | undefined;

export function admissionCelEnvironment(): Environment {
  if (sharedEnvironment !== undefined) return sharedEnvironment;
  const env = createCelEnvironment();
  env.registerType({ name: 'kubernetes.GroupVersionKind', schema: { group: 'string', version: 'string', kind: 'string' } });
  env.registerType({ name: 'kubernetes.GroupVersionResource', schema: { group: 'string', version: 'string', resource: 'string' } });
  env.registerType({ name: 'kubernetes.UserInfo', schema: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } });
  env.registerType({
    name: 'kubernetes.AdmissionRequest',
    schema: {
      kind: 'kubernetes.GroupVersionKind',
      resource: 'kubernetes.GroupVersionResource',
      subResource: 'string',
      requestKind: 'kubernetes.GroupVersionKind',
      requestResource: 'kubernetes.GroupVersionResource',
      requestSubResource: 'string',
      name: 'string',
      namespace: 'string',
      operation: 'string',
      userInfo: 'kubernetes.UserInfo',
      dryRun: 'bool',
    },
  });
  env.registerVariable('request', 'kubernetes.AdmissionRequest');
  for (const name of ['object', 'oldObject', 'params', 'namespaceObject']) env.registerVariable(name, 'dyn');
  env.registerVariable('variables', 'map<string, dyn>');
  sharedEnvironment = env;
  return env;
}

/** Compiles every expression of a decoded policy; errors are field errors under `spec`. */
export function compilePolicy(policy: ValidatingAdmissionPolicy): { compiled?: CompiledPolicy; errors: FieldError[] } {
  const env = admissionCelEnvironment();
  const errors: FieldError[] = [];
  const spec = FieldPath.root('spec');
  const compile = (expression: string, path: FieldPath, wantType?: 'bool' | 'string'): CompiledExpression | undefined => {
    const result = compileCel(env, expression);
    if (!result.ok) {
      errors.push(invalid(path, expression, `compilation failed: ${result.error}`));
      return undefined;
    }
    if (wantType !== undefined && result.compiled.type !== wantType) {
      errors.push(invalid(path, expression, `must evaluate to ${wantType} but got ${result.compiled.type}`));
      return undefined;
    }
    return result.compiled;
  };
  const matchConditions = policy.matchConditions.map((c, i) => ({
    name: c.name,
    expression: compile(c.expression, spec.child('matchConditions').index(i).child('expression'), 'bool'),
  }));
  const variables = policy.variables.map((v, i) => ({ name: v.name, expression: compile(v.expression, spec.child('variables').index(i).child('expression')) }));
  const validations = policy.validations.map((v, i) => {
    const path = spec.child('validations').index(i);
    const expression = compile(v.expression, path.child('expression'), 'bool');
    const messageExpression = v.messageExpression === '' ? undefined : compile(v.messageExpression, path.child('messageExpression'), 'string');
    return { expression, message: v.message, messageExpression, reason: v.reason };
  });
  if (errors.length > 0) return { errors };
  return {
    compiled: {
      policy,
      matchConditions: matchConditions.map((c) => ({ name: c.name, expression: c.expression! })),
      variables: variables.map((v) => ({ name: v.name, expression: v.expression! })),
      validations: validations.map((v) => ({
        expression: v.expression!,
        message: v.message,
        reason: v.reason,
        messageExpression: v.messageExpression,
      })),
    },
    errors,
  };
}
