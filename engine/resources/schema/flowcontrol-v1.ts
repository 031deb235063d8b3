// What both flowcontrol.apiserver/v1 kinds share (k8s.io/api/flowcontrol/v1): the package prefix
// of their schema names, and the status with its conditions.
import { enumOf, field, keyedList, string, struct, structOf, time } from './field-table.ts';

export const FLOWCONTROL_PREFIX = 'io.k8s.api.flowcontrol.v1.';

/** A kind's status: conditions, one per type (`listType=map`, key `type`). */
export function statusStruct(kind: string, description: string, conditionDescription: string, conditionsDescription: string) {
  const condition = struct(`${FLOWCONTROL_PREFIX}${kind}Condition`, conditionDescription, [
    field('type', string, 'The kind of condition. Required.', { required: true }),
    field('status', enumOf('True', 'False', 'Unknown'), 'Whether the condition holds: `True`, `False` or `Unknown`. Required.', { required: true }),
    field('lastTransitionTime', time, 'The last time the condition changed from one status to another.'),
    field('reason', string, 'A single CamelCase word giving the reason for the last transition.'),
    field('message', string, 'Human-readable details of the last transition.'),
  ] as const);
  return struct(`${FLOWCONTROL_PREFIX}${kind}Status`, description, [
    field('conditions', keyedList(structOf(condition), 'type'), conditionsDescription),
  ] as const);
}
