// How selective each resource's LISTs were over the --traffic window: Δ returned ÷ Δ tested, where
// tested is every object a LIST was handed to filter. An observed LIST flow returns that share of
// its objects (its `returns`), so a label selector that tests every object and keeps few is
// simulated with the small response it really had. A kube-apiserver counts its LISTs in two places:
//
//   watch cache  apiserver_cache_list_{fetched,returned}_objects_total (most LISTs since 1.31's
//                ConsistentListFromCache): tested = fetched. Labelled resource_prefix="/pods" up to
//                1.33, group="",resource="pods" after. The newest releases count them again in the
//                storage families with storage="watchcache" (evaluated 0 there): read only when the
//                cache families are absent, so nothing is counted twice.
//   etcd         apiserver_storage_list_{evaluated,returned}_objects_total (continues, exact
//                resourceVersions): tested = evaluated. Labelled resource="deployments.apps" up to
//                1.33, group="apps",resource="deployments" after (storage="etcd" in the newest).
//
// Assumed: every LIST of the resource in the window has the same ratio (the counters are per
// resource, not per client).

import { counterDelta } from '../../engine/prometheus-delta.ts';
import type { ExpositionSample } from '../../engine/prometheus-text.ts';
import { samplesByKey } from '../../engine/prometheus-text.ts';

const CACHE_FETCHED = 'apiserver_cache_list_fetched_objects_total';
const CACHE_RETURNED = 'apiserver_cache_list_returned_objects_total';
const STORAGE_FETCHED = 'apiserver_storage_list_fetched_objects_total';
const STORAGE_EVALUATED = 'apiserver_storage_list_evaluated_objects_total';
const STORAGE_RETURNED = 'apiserver_storage_list_returned_objects_total';

/** The families sim import reads, for its warning when a server has none of them. */
export const LIST_SELECTIVITY_FAMILIES = [CACHE_FETCHED, CACHE_RETURNED, STORAGE_EVALUATED, STORAGE_RETURNED] as const;

export interface ListCost {
  tested: number;
  returned: number;
}

/**
 * Objects tested and returned by LISTs in the window, per resource: `resource.group` (core:
 * `resource`), or the bare plural where the server named only that (resource_prefix="/flowschemas").
 */
export interface ListSelectivity {
  byResource: ReadonlyMap<string, ListCost>;
  total: ListCost;
}

/** kube-apiserver's storage names that are not a resource's plural (its SpecialDefaultResourcePrefixes). */
const SPECIAL_PREFIXES: ReadonlyMap<string, string> = new Map([
  ['controllers', 'replicationcontrollers'],
  ['services/endpoints', 'endpoints'],
  ['minions', 'nodes'],
  ['services/specs', 'services'],
  ['ingress', 'ingresses'],
]);

/**
 * A resource_prefix as the resource it stores: `/flowschemas` → `flowschemas` (a built-in
 * resource, named without its group), `/example.com/widgets` → `widgets.example.com` (a custom
 * or aggregated resource, named with it).
 */
export function resourceOfPrefix(prefix: string): string {
  const path = prefix.replace(/^\/+/, '');
  const special = SPECIAL_PREFIXES.get(path);
  if (special !== undefined) return special;
  const slash = path.indexOf('/');
  return slash > 0 && path.slice(0, slash).includes('.') ? `${path.slice(slash + 1)}.${path.slice(0, slash)}` : path;
}

/** Any release's labels as one key: resource_prefix, group and resource, or resource="resource.group". */
function resourceKeyOf(labels: Record<string, string>): string | undefined {
  if (labels.resource_prefix !== undefined) return resourceOfPrefix(labels.resource_prefix);
  const resource = labels.resource;
  if (resource === undefined) return undefined;
  return labels.group === undefined || labels.group === '' ? resource : `${resource}.${labels.group}`;
}

type Scrape = readonly ExpositionSample[];

/** Δ of one family per resource key, over the series `keep` accepts. */
function deltas(before: Scrape, after: Scrape, name: string, keep: (labels: Record<string, string>) => boolean): Map<string, number> {
  const keyOf = (labels: Record<string, string>) => (keep(labels) ? resourceKeyOf(labels) : undefined);
  const was = samplesByKey(before, name, keyOf);
  const out = new Map<string, number>();
  for (const [key, now] of samplesByKey(after, name, keyOf)) out.set(key, counterDelta(was.get(key), now));
  return out;
}

const has = (samples: Scrape, name: string) => samples.some((s) => s.name === name);
const inCache = (labels: Record<string, string>) => labels.storage === 'watchcache';
const always = () => true;

/** Undefined when the server exposes none of the families (a kube-apiserver before 1.23). */
export function listSelectivity(before: Scrape, after: Scrape): ListSelectivity | undefined {
  const cacheFamilies = has(after, CACHE_FETCHED) || has(after, CACHE_RETURNED);
  const storageFamilies = has(after, STORAGE_EVALUATED) || has(after, STORAGE_RETURNED);
  if (!cacheFamilies && !storageFamilies) return undefined;
  const parts: { tested: Map<string, number>; returned: Map<string, number> }[] = [
    // LISTs from etcd: every series but the newest releases' watch-cache ones.
    {
      tested: deltas(before, after, STORAGE_EVALUATED, (l) => !inCache(l)),
      returned: deltas(before, after, STORAGE_RETURNED, (l) => !inCache(l)),
    },
    // LISTs from the watch cache: its own families, or the storage families' storage="watchcache" series.
    cacheFamilies
      ? { tested: deltas(before, after, CACHE_FETCHED, always), returned: deltas(before, after, CACHE_RETURNED, always) }
      : { tested: deltas(before, after, STORAGE_FETCHED, inCache), returned: deltas(before, after, STORAGE_RETURNED, inCache) },
  ];
  const byResource = new Map<string, ListCost>();
  for (const part of parts) {
    for (const [key, tested] of part.tested) {
      const cost = byResource.get(key) ?? { tested: 0, returned: 0 };
      cost.tested += tested;
      cost.returned += part.returned.get(key) ?? 0;
      byResource.set(key, cost);
    }
  }
  const total = { tested: 0, returned: 0 };
  for (const [key, cost] of [...byResource]) {
    if (cost.tested <= 0) byResource.delete(key);
    else {
      total.tested += cost.tested;
      total.returned += cost.returned;
    }
  }
  return { byResource, total };
}

/**
 * The objects a LIST of `objects` returns: the resource's ratio (its `resource.group` counts and,
 * for a resource of a group, those a server named by its plural alone), or (a resource no LIST in
 * the window touched, as a wildcard rule's made-up one) the ratio over every resource. Undefined
 * when no LIST was counted or every object tested was returned (a flow returns all its objects by default).
 */
export function returnsOf(selectivity: ListSelectivity, apiGroup: string, resource: string, objects: number): number | undefined {
  const keys = apiGroup === '' ? [resource] : [`${resource}.${apiGroup}`, resource];
  const found = keys.map((k) => selectivity.byResource.get(k)).filter((c) => c !== undefined);
  const counts = found.length === 0 ? selectivity.total : found.reduce((sum, c) => ({ tested: sum.tested + c.tested, returned: sum.returned + c.returned }));
  if (counts.tested <= 0) return undefined;
  const returns = Math.min(objects, Math.round((objects * counts.returned) / counts.tested));
  return returns < objects ? returns : undefined;
}
