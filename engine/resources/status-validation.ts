// The status rule both flowcontrol kinds share: conditions form a map keyed by `type`, so each
// condition needs a type and no type may repeat.

import type { Condition } from './types.ts';
import type { FieldError } from './field-errors.ts';
import { FieldPath, addFieldError, duplicate, required } from './field-errors.ts';

export function validateConditions(status: { conditions?: Condition[] } | undefined, path: FieldPath = FieldPath.root('status')): FieldError[] {
  const errors: FieldError[] = [];
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  const seen = new Set<string>();
  conditions.forEach((condition, i) => {
    const type = typeof condition?.type === 'string' ? condition.type : '';
    const at = path.child('conditions').index(i).child('type');
    if (seen.has(type)) addFieldError(errors, duplicate(at, type));
    seen.add(type);
    if (type.length === 0) addFieldError(errors, required(at, 'must not be empty'));
  });
  return errors;
}
