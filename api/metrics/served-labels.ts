// Label values that come from a request's URL, reduced to bounded sets. Every distinct label value
// is a series the server keeps until it exits, so a value taken as it arrives lets any client grow
// /metrics without end (50,000 GETs of made-up paths took the process past 1 GB). kube-apiserver
// avoids this by counting only on installed routes, whose labels are fixed when they are
// installed, and by reporting unknown methods as `other`. Here the served set is read from the
// discovery model, the one description of what the server serves:
//
// - group, version, resource and subresource keep their value while it names something served,
//   and from the first level that does not, they read `other`;
// - a non-resource path keeps its value when it is one of the paths the server answers, and
//   otherwise reads `other`.
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { DiscoveryModel } from '../discovery/discovery.ts';

/** The one bucket for every value outside a bounded set (kube's name for its unknown verbs). */
export const OTHER_LABEL = 'other';

export interface ResourceLabels {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
}

/** A served resource's labels by subresource (`''` for the resource itself), and its `other` bucket. */
interface Subresources {
  readonly served: ReadonlyMap<string, ResourceLabels>;
  readonly other: ResourceLabels;
}
type Resources = ReadonlyMap<string, Subresources>;
type Versions = ReadonlyMap<string, { labels: ResourceLabels; resources: Resources }>;

const freeze = (group: string, version: string, resource: string, subresource: string): ResourceLabels =>
  Object.freeze({ group, version, resource, subresource });

const UNSERVED_GROUP = freeze(OTHER_LABEL, OTHER_LABEL, OTHER_LABEL, OTHER_LABEL);

export class ServedLabels {
  private readonly groups = new Map<string, { labels: ResourceLabels; versions: Versions }>();
  private readonly paths = new Set<string>(['/api', '/apis']);

  /** The discovery paths of `model` are served paths; `addPaths` adds the others. */
  constructor(model: DiscoveryModel) {
    const paths = this.paths;
    for (const group of model.core === undefined ? model.groups : [model.core, ...model.groups]) {
      const versions = new Map<string, { labels: ResourceLabels; resources: Resources }>();
      for (const gv of group.versions) {
        const resources = new Map<string, Subresources>();
        for (const r of gv.resources) {
          const served = new Map<string, ResourceLabels>();
          for (const subresource of ['', ...r.subresources.map((s) => s.subresource)])
            served.set(subresource, freeze(group.name, gv.version, r.resource, subresource));
          resources.set(r.resource, { served, other: freeze(group.name, gv.version, r.resource, OTHER_LABEL) });
        }
        versions.set(gv.version, { labels: freeze(group.name, gv.version, OTHER_LABEL, OTHER_LABEL), resources });
        paths.add(group.name === '' ? `/api/${gv.version}` : `/apis/${group.name}/${gv.version}`);
      }
      this.groups.set(group.name, { labels: freeze(group.name, OTHER_LABEL, OTHER_LABEL, OTHER_LABEL), versions });
      if (group.name !== '') paths.add(`/apis/${group.name}`);
    }
  }

  /** Exact non-resource paths the server answers (health checks, /metrics, debug endpoints...). */
  addPaths(paths: Iterable<string>): this {
    for (const path of paths) this.paths.add(path);
    return this;
  }

  /** The labels of a resource request; shared objects, nothing allocated per call. */
  resource(info: RequestInfo): ResourceLabels {
    const group = this.groups.get(info.apiGroup);
    if (group === undefined) return UNSERVED_GROUP;
    const version = group.versions.get(info.apiVersion);
    if (version === undefined) return group.labels;
    const subresources = version.resources.get(info.resource);
    if (subresources === undefined) return version.labels;
    return subresources.served.get(info.subresource) ?? subresources.other;
  }

  /** The label of a non-resource path. */
  path(path: string): string {
    return this.paths.has(path) ? path : OTHER_LABEL;
  }
}
