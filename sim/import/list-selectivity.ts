// How selective each resource's LISTs were over the --traffic window: Δ returned ÷ Δ evaluated from
// kube-apiserver's apiserver_storage_list_{evaluated,returned}_objects_total (ALPHA since 1.23).
// An observed LIST flow returns that share of its objects (its `returns`), so a label selector that
// tests every object and keeps few is simulated with the small response it really had. Assumed:
// every LIST of the resource in the window has the same ratio (the counters are per resource, not
// per client), and the LISTs the counters see are like those the watch cache served (a
// kube-apiserver counts those apart, in apiserver_cache_list_*; Fairway serves and counts every
// LIST here).

import { counterDelta } from '../../engine/prometheus-delta.ts';
import { type ExpositionSample, samplesByKey } from '../../engine/prometheus-text.ts';

const EVALUATED = 'apiserver_storage_list_evaluated_objects_total';
const RETURNED = 'apiserver_storage_list_returned_objects_total';

/** Objects tested and returned by LISTs in the window, per `resource.group` (core: `resource`). */
export interface ListSelectivity {
  byResource: ReadonlyMap<string, { evaluated: number; returned: number }>;
  total: { evaluated: number; returned: number };
}

/** 1.32 labels `resource="deployments.apps"`; later releases `group="apps",resource="deployments"` (and `storage`, summed). */
function groupResourceOf(labels: Record<string, string>): string | undefined {
  const resource = labels.resource;
  if (resource === undefined) return undefined;
  return labels.group === undefined || labels.group === '' ? resource : `${resource}.${labels.group}`;
}

/** Undefined when the server exposes neither family (a kube-apiserver before 1.23). */
export function listSelectivity(before: readonly ExpositionSample[], after: readonly ExpositionSample[]): ListSelectivity | undefined {
  if (!after.some((s) => s.name === EVALUATED) || !after.some((s) => s.name === RETURNED)) return undefined;
  const evaluated = [samplesByKey(before, EVALUATED, groupResourceOf), samplesByKey(after, EVALUATED, groupResourceOf)] as const;
  const returned = [samplesByKey(before, RETURNED, groupResourceOf), samplesByKey(after, RETURNED, groupResourceOf)] as const;
  const byResource = new Map<string, { evaluated: number; returned: number }>();
  const total = { evaluated: 0, returned: 0 };
  for (const resource of [...evaluated[1].keys()].sort()) {
    const counts = {
      evaluated: counterDelta(evaluated[0].get(resource), evaluated[1].get(resource)),
      returned: counterDelta(returned[0].get(resource), returned[1].get(resource)),
    };
    if (counts.evaluated <= 0) continue;
    byResource.set(resource, counts);
    total.evaluated += counts.evaluated;
    total.returned += counts.returned;
  }
  return { byResource, total };
}

/**
 * The objects a LIST of `objects` returns: the resource's ratio, or (a resource no LIST in the
 * window touched, as a wildcard rule's made-up one) the ratio over every resource. Undefined when
 * no LIST was counted or every object tested was returned (a flow returns all its objects by default).
 */
export function returnsOf(selectivity: ListSelectivity, apiGroup: string, resource: string, objects: number): number | undefined {
  const counts = selectivity.byResource.get(apiGroup === '' ? resource : `${resource}.${apiGroup}`) ?? selectivity.total;
  if (counts.evaluated <= 0) return undefined;
  const returns = Math.min(objects, Math.round((objects * counts.returned) / counts.evaluated));
  return returns < objects ? returns : undefined;
}
