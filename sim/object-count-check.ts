// LISTs the estimator cannot price. Without an object count (a flow's `objects`, or the scenario's
// `objectCounts` for its resource) the work estimator treats the resource as unknown and charges
// one seat, so a 10,000-object LIST would look as cheap as a GET: a person should hear about it
// rather than read a reassuring report.

import { groupResourceKey } from '../engine/flowcontrol/work-estimate.ts';
import type { AuditLog } from './audit-log.ts';
import type { Scenario } from './scenario.ts';

interface ListShape {
  verb: string;
  resource: string;
  apiGroup: string;
  name: string;
  query: Record<string, string>;
}

/** Whether the estimator would look up an object count for this request (a collection LIST, or a WATCH sending initial events). */
function readsObjectCount(shape: ListShape): boolean {
  if (shape.resource === '' || shape.name !== '') return false;
  if (shape.verb === 'list') return true;
  return shape.verb === 'watch' && shape.query.sendInitialEvents === 'true';
}

/** Scenario flows whose LISTs have no object count. */
export function objectCountWarnings(scenario: Scenario, file: string): string[] {
  const counts = new Map(Object.entries(scenario.objectCounts));
  const warnings: string[] = [];
  scenario.flows.forEach((flow, index) => {
    const shape = { verb: flow.verb, resource: flow.resource, apiGroup: flow.apiGroup, name: flow.objectName, query: flow.query };
    if (flow.path !== '' || flow.objects !== undefined || !readsObjectCount(shape)) return;
    const key = groupResourceKey(flow.apiGroup, flow.resource);
    if (counts.has(key)) return;
    warnings.push(
      `${file}: flows[${index}] ("${flow.name}"): ${flow.verb} of ${key} has no object count (set the flow's objects, or objectCounts["${key}"]); ` +
        'the estimator prices it at 1 seat',
    );
  });
  return warnings;
}

/** Replayed LISTs whose resource has no object count in the scenario, one warning per resource. */
export function auditObjectCountWarnings(scenario: Scenario, auditLog: AuditLog): string[] {
  const counts = new Map(Object.entries(scenario.objectCounts));
  const missing = new Map<string, number>();
  for (const request of auditLog.requests) {
    const shape = { ...request.shape, query: request.query };
    if (!readsObjectCount(shape)) continue;
    const key = groupResourceKey(shape.apiGroup, shape.resource);
    if (!counts.has(key)) missing.set(key, (missing.get(key) ?? 0) + 1);
  }
  return [...missing]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(
      ([key, n]) =>
        `${auditLog.file}: ${n} LIST request${n === 1 ? '' : 's'} of ${key} and the scenario has no objectCounts["${key}"]; the estimator prices ` +
        `${n === 1 ? 'it' : 'each'} at 1 seat`,
    );
}
