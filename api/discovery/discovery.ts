// Discovery documents, built from one model of what the server serves. kubectl reads `/api` and
// `/apis` on every run and chooses its parser by the response Content-Type: the aggregated v2
// list only when the Content-Type names it, otherwise the legacy APIVersions/APIGroupList, after
// which it fetches `/apis/<group>/<version>` for each group-version. client-node's generic client
// always needs that per-group-version list, so both forms are served.
//
// PLC and FS have no short names and no categories on a real cluster (`kubectl get plc` fails
// there), so the model advertises none.
import { createHash } from 'node:crypto';
import type { Status } from '../../engine/resources/types.ts';
import { FLOW_SCHEMA_KIND, FLOW_SCHEMA_RESOURCE, PRIORITY_LEVEL_KIND, PRIORITY_LEVEL_RESOURCE } from '../../engine/resources/types.ts';
import { apiGroupsFor, FLOWCONTROL_VERSION } from '../../engine/resources/api-domain.ts';
import { negotiateOutput } from '../request/content-negotiation.ts';
import type { SerializerMediaType } from '../../engine/render/serializer.ts';
import { flowcontrolSchemas, type Schema } from '../schemas/schemas.ts';
import { authorizationSchemas } from '../schemas/authorization-schemas.ts';
import { authenticationSchemas } from '../schemas/authentication-schemas.ts';

export type ResourceScope = 'Cluster' | 'Namespaced';

export interface SubresourceModel {
  subresource: string;
  kind: string;
  verbs: readonly string[];
}

export interface ResourceModel {
  resource: string;
  singularResource: string;
  kind: string;
  scope: ResourceScope;
  verbs: readonly string[];
  shortNames?: readonly string[];
  categories?: readonly string[];
  /** Only for stored resources. */
  storageVersionHash?: string;
  subresources: readonly SubresourceModel[];
}

export interface GroupVersionModel {
  version: string;
  resources: readonly ResourceModel[];
  /**
   * The OpenAPI component schemas of this group-version's kinds and the types they nest, under
   * Kubernetes' schema names (each kind's carries its GVK); api/openapi/openapi.ts builds the group-version's
   * document from these and `resources`.
   */
  schemas: Readonly<Record<string, Schema>>;
}

export interface GroupModel {
  /** '' for the core group. */
  name: string;
  /** The first version is the preferred one. */
  versions: readonly GroupVersionModel[];
}

export interface DiscoveryModel {
  /** The apidiscovery group, `apidiscovery.<apiDomain>`. */
  apidiscoveryGroup: string;
  /** The core group (`/api`); absent when the server serves no core resources. */
  core?: GroupModel;
  /** Named groups (`/apis`), in the order they are advertised. */
  groups: readonly GroupModel[];
}

export const AGGREGATED_DISCOVERY_VERSION = 'v2';
export const AGGREGATED_DISCOVERY_KIND = 'APIGroupDiscoveryList';

const CRUD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;
const STATUS_VERBS = ['get', 'patch', 'update'] as const;

/**
 * Kubernetes' storage version hash: the first 8 bytes of SHA-256 over `group/version/Kind`, in
 * base64. The flowcontrol objects are still encoded as v1beta3 in 1.32, which is why the published
 * v1 discovery document carries `9NnFrw7ZEmA=` for FlowSchema.
 */
export function storageVersionHash(group: string, storageVersion: string, kind: string): string {
  const gvk = group === '' ? `${storageVersion}/${kind}` : `${group}/${storageVersion}/${kind}`;
  return createHash('sha256').update(gvk).digest().subarray(0, 8).toString('base64');
}

const FLOWCONTROL_STORAGE_VERSION = 'v1beta3';

/** A create-only review kind (never stored, no subresources). */
const review = (resource: string, kind: string): ResourceModel => ({
  resource,
  singularResource: resource.slice(0, -1),
  kind,
  scope: 'Cluster',
  verbs: ['create'],
  subresources: [],
});

/**
 * What Fairway serves: flowcontrol v1 (PLC, FS) and, unless turned off, the self reviews:
 * SelfSubjectAccessReview and SelfSubjectRulesReview (authorization v1), SelfSubjectReview
 * (authentication v1).
 */
export function fairwayDiscoveryModel(apiDomain?: string, options: { selfReviews?: boolean } = {}): DiscoveryModel {
  const groups = apiGroupsFor(apiDomain);
  const flowcontrolResource = (resource: string, kind: string): ResourceModel => ({
    resource,
    singularResource: kind.toLowerCase(),
    kind,
    scope: 'Cluster',
    verbs: CRUD_VERBS,
    storageVersionHash: storageVersionHash(groups.flowcontrol, FLOWCONTROL_STORAGE_VERSION, kind),
    subresources: [{ subresource: 'status', kind, verbs: STATUS_VERBS }],
  });
  const served: GroupModel[] = [
    {
      name: groups.flowcontrol,
      versions: [
        {
          version: FLOWCONTROL_VERSION,
          resources: [flowcontrolResource(FLOW_SCHEMA_RESOURCE, FLOW_SCHEMA_KIND), flowcontrolResource(PRIORITY_LEVEL_RESOURCE, PRIORITY_LEVEL_KIND)],
          schemas: flowcontrolSchemas(apiDomain),
        },
      ],
    },
  ];
  if (options.selfReviews ?? true) {
    served.push(
      {
        name: groups.authorization,
        versions: [
          {
            version: 'v1',
            resources: [review('selfsubjectaccessreviews', 'SelfSubjectAccessReview'), review('selfsubjectrulesreviews', 'SelfSubjectRulesReview')],
            schemas: authorizationSchemas(groups.authorization),
          },
        ],
      },
      {
        name: groups.authentication,
        versions: [{ version: 'v1', resources: [review('selfsubjectreviews', 'SelfSubjectReview')], schemas: authenticationSchemas(groups.authentication) }],
      },
    );
  }
  return { apidiscoveryGroup: groups.apidiscovery, groups: served };
}

// ---------------------------------------------------------------------------------------------
// Legacy documents

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

const groupVersion = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

/** `GET /api`: the core versions, or none when no core resource is served. */
export function apiVersions(model: DiscoveryModel, serverAddress: string) {
  const versions = (model.core?.versions ?? []).filter((v) => v.resources.length > 0).map((v) => v.version);
  return { kind: 'APIVersions' as const, versions, serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupBody(group: GroupModel): APIGroup {
  const versions = group.versions.map((v) => ({ groupVersion: groupVersion(group.name, v.version), version: v.version }));
  return { name: group.name, versions, preferredVersion: versions[0]! };
}

/** `GET /apis` without aggregated discovery. */
export function apiGroupList(model: DiscoveryModel) {
  return { kind: 'APIGroupList' as const, apiVersion: 'v1' as const, groups: model.groups.map(groupBody) };
}

/** `GET /apis/<group>`, or undefined for a group that is not served. */
export function apiGroup(model: DiscoveryModel, groupName: string): APIGroup | undefined {
  const group = model.groups.find((g) => g.name === groupName);
  return group === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...groupBody(group) };
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `GET /apis/<group>/<version>` (or `/api/v1` with group ''), or undefined if not served. */
export function apiResourceList(model: DiscoveryModel, groupName: string, version: string) {
  const group = groupName === '' ? model.core : model.groups.find((g) => g.name === groupName);
  const served = group?.versions.find((v) => v.version === version);
  if (served === undefined) return undefined;
  const resources: APIResource[] = [];
  for (const r of served.resources) {
    const main: APIResource = { name: r.resource, singularName: r.singularResource, namespaced: r.scope === 'Namespaced', kind: r.kind, verbs: [...r.verbs] };
    if (r.shortNames?.length) main.shortNames = [...r.shortNames];
    if (r.categories?.length) main.categories = [...r.categories];
    if (r.storageVersionHash) main.storageVersionHash = r.storageVersionHash;
    resources.push(main);
    for (const s of r.subresources) {
      resources.push({ name: `${r.resource}/${s.subresource}`, singularName: '', namespaced: main.namespaced, kind: s.kind, verbs: [...s.verbs] });
    }
  }
  resources.sort((a, b) => byteOrder(a.name, b.name));
  return { kind: 'APIResourceList' as const, apiVersion: 'v1' as const, groupVersion: groupVersion(groupName, version), resources };
}

// ---------------------------------------------------------------------------------------------
// Aggregated discovery (apidiscovery/v2)

/** The Content-Type without which kubectl ignores an aggregated document. */
export function aggregatedDiscoveryContentType(model: DiscoveryModel, mediaType: SerializerMediaType = 'application/json'): string {
  return `${mediaType};g=${model.apidiscoveryGroup};v=${AGGREGATED_DISCOVERY_VERSION};as=${AGGREGATED_DISCOVERY_KIND}`;
}

// responseKind leaves group and version empty ("same as the containing group-version"), as the real
// server does; an all-empty responseKind would make client-go drop the resource.
const responseKind = (kind: string) => ({ group: '', version: '', kind });

function discoveryGroup(group: GroupModel) {
  const metadata: { name?: string; creationTimestamp: null } = group.name === '' ? { creationTimestamp: null } : { name: group.name, creationTimestamp: null };
  return {
    metadata,
    versions: group.versions.map((v) => ({
      version: v.version,
      resources: [...v.resources]
        .sort((a, b) => byteOrder(a.resource, b.resource))
        .map((r) => {
          const out: Record<string, unknown> = {
            resource: r.resource,
            responseKind: responseKind(r.kind),
            scope: r.scope,
            singularResource: r.singularResource,
            verbs: [...r.verbs],
          };
          if (r.shortNames?.length) out.shortNames = [...r.shortNames];
          if (r.categories?.length) out.categories = [...r.categories];
          if (r.subresources.length > 0) {
            out.subresources = r.subresources.map((s) => ({ subresource: s.subresource, responseKind: responseKind(s.kind), verbs: [...s.verbs] }));
          }
          return out;
        }),
      freshness: 'Current' as const,
    })),
  };
}

/** `GET /api` (`'core'`) or `GET /apis` (`'apis'`) as an APIGroupDiscoveryList. */
export function aggregatedDiscovery(model: DiscoveryModel, which: 'core' | 'apis') {
  const groups = which === 'core' ? (model.core === undefined ? [] : [model.core]) : model.groups;
  return {
    kind: AGGREGATED_DISCOVERY_KIND,
    apiVersion: `${model.apidiscoveryGroup}/${AGGREGATED_DISCOVERY_VERSION}`,
    metadata: {},
    items: groups.map(discoveryGroup),
  };
}

export type DiscoveryChoice =
  | { format: 'aggregated'; mediaType: SerializerMediaType; contentType: string }
  | { format: 'legacy'; mediaType: SerializerMediaType; contentType: string }
  | { format: 'not-acceptable'; status: Status };

/**
 * Which form of `/api` or `/apis` to send. As in kube-apiserver, any acceptable aggregated clause
 * wins over plain ones, whatever their q-values; only when none is acceptable does the legacy form
 * get negotiated (and a request acceptable to neither gets 406).
 */
export function chooseDiscoveryRepresentation(accept: string | undefined, model: DiscoveryModel): DiscoveryChoice {
  const target = { group: model.apidiscoveryGroup, version: AGGREGATED_DISCOVERY_VERSION, kind: AGGREGATED_DISCOVERY_KIND };
  const aggregated = negotiateOutput(accept, { conversions: [target], allowsPlain: false });
  if (aggregated.ok) return { format: 'aggregated', mediaType: aggregated.mediaType, contentType: aggregated.contentType };
  const legacy = negotiateOutput(accept, { conversions: [] });
  if (legacy.ok) return { format: 'legacy', mediaType: legacy.mediaType, contentType: legacy.contentType };
  return { format: 'not-acceptable', status: legacy.status };
}
