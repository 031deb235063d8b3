// OpenAPI v3, one document per served group-version, built from what the group-version registers in
// the discovery model: its resources (verbs and subresources make the paths and operations, as
// kube-apiserver's installer makes them) and its kinds' component schemas (*schemas.ts);
// meta/v1's schemas go into every document. So a kind that is served is also documented, and
// `kubectl explain` works for it.
//
// kubectl needs more than `explain` from these: `create`, `apply`, `replace` and `edit` look for a
// PATCH operation tagged with the kind's GVK that declares a `fieldValidation` query parameter
// inline; without it they refuse to run (or fall back to protobuf OpenAPI v2, which Fairway does not
// serve). kubectl stops at the first such PATCH operation it meets and Go maps iterate in random
// order, so every PATCH operation of a kind declares it. Documents are serialised with sorted keys,
// so the bytes, and the `hash` in the index that kubectl uses as a cache key, are the same on every
// start.
import { createHash } from 'node:crypto';
import type { DiscoveryModel, GroupVersionModel, ResourceModel } from '../discovery/discovery.ts';
import { META_PREFIX, metaSchemas, schemaRef, type GroupVersion, type Schema } from '../schemas/schemas.ts';
import { OBJECT_MEDIA_TYPES, PATCH_MEDIA_TYPES } from '../request/content-negotiation.ts';
import { PROTOBUF_MEDIA_TYPE } from '../../engine/render/serializer.ts';

export interface OpenApiDocument {
  /** The index key, without a leading slash: `apis/flowcontrol.apiserver.k8s.io/v1`. */
  path: string;
  /** The serialised document (deterministic). */
  json: string;
  /** Upper-case hex SHA-512 of `json`, as kube-apiserver computes it. */
  hash: string;
}

// --- parameters -------------------------------------------------------------------------------

const query = (name: string, type: 'string' | 'boolean' | 'integer', description: string): Schema => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems: true },
});

const P = {
  allowWatchBookmarks: query(
    'allowWatchBookmarks',
    'boolean',
    'Ask for BOOKMARK events on a watch. Servers may send them at their discretion; clients must not assume any particular interval.',
  ),
  continue: query('continue', 'string', 'The token from a previous chunked list, to fetch the next chunk from the same snapshot. An expired token gives 410.'),
  dryRun: query('dryRun', 'string', 'When `All`, the request is processed fully but nothing is persisted. Any other value is invalid.'),
  fieldManager: query(
    'fieldManager',
    'string',
    'The name of the actor making the change, recorded in managedFields. At most 128 printable characters. Required for apply patches.',
  ),
  fieldSelector: query('fieldSelector', 'string', 'Restrict the returned objects by their fields, e.g. `metadata.name=x`.'),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'What to do with unknown or duplicate fields in the body: `Ignore` drops them silently, `Warn` drops them and adds a warning header per field ' +
      '(the default), `Strict` fails the request with 400.',
  ),
  force: query(
    'force',
    'boolean',
    'For apply patches: take ownership of fields other managers own instead of failing with a conflict. Must be unset for other patch types.',
  ),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', "Seconds before the object is deleted; 0 means at once. Unset uses the kind's default."),
  labelSelector: query('labelSelector', 'string', 'Restrict the returned objects by their labels, e.g. `tier=gold,env!=dev`.'),
  limit: query('limit', 'integer', 'The most items to return in one response; when more remain, the list carries a continue token.'),
  pretty: query('pretty', 'string', 'If `true`, indent the output.'),
  propagationPolicy: query('propagationPolicy', 'string', 'How dependents are garbage collected: `Orphan`, `Background` or `Foreground`.'),
  resourceVersion: query(
    'resourceVersion',
    'string',
    'Which version of the data a list or watch starts from. Unset: the latest (consistent read); `0`: any; otherwise not older than this.',
  ),
  resourceVersionMatch: query('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: `NotOlderThan` or `Exact`. Requires resourceVersion.'),
  sendInitialEvents: query(
    'sendInitialEvents',
    'boolean',
    'With watch=true: start the stream with synthetic ADDED events for the current state, then a bookmark marking its end.',
  ),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Time limit for the list or watch call.'),
  watch: query('watch', 'boolean', 'Stream changes (ADDED, MODIFIED, DELETED) instead of returning a list.'),
} as const;

const LIST_PARAMETERS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const nameParameter = (kind: string): Schema => ({
  name: 'name',
  in: 'path',
  description: `name of the ${kind}`,
  required: true,
  schema: { type: 'string', uniqueItems: true },
});

// --- responses --------------------------------------------------------------------------------

const content = (name: string, mediaTypes: readonly string[]) =>
  Object.fromEntries(mediaTypes.map((mediaType) => [mediaType, { schema: { $ref: schemaRef(name) } }]));
const OBJECT_MEDIA = [...OBJECT_MEDIA_TYPES];
const STREAM_MEDIA = [...OBJECT_MEDIA_TYPES, 'application/json;stream=watch', `${PROTOBUF_MEDIA_TYPE};stream=watch`];
const respond = (description: string, name: string, mediaTypes: readonly string[] = OBJECT_MEDIA) => ({ description, content: content(name, mediaTypes) });
const UNAUTHORIZED = { description: 'Unauthorized' };
const body = (name: string, mediaTypes: readonly string[], required: boolean) => ({
  content: content(name, mediaTypes),
  ...(required ? { required: true } : {}),
});

// --- names ------------------------------------------------------------------------------------

/** kube-apiserver's operation-id stem of a group-version: `flowcontrol.apiserver.k8s.io`, `v1` → `FlowcontrolApiserverV1`. */
export function operationStem(group: string, version: string): string {
  const words = group === '' ? ['core'] : group.replace(/\.k8s\.io$/, '').split('.');
  return [...words, version].map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/** The OpenAPI tag of a group-version: `flowcontrolApiserver_v1`. */
const tagOf = (group: string, version: string) => {
  const stem = operationStem(group, version).slice(0, -version.length);
  return `${stem.charAt(0).toLowerCase()}${stem.slice(1)}_${version}`;
};

/** The schema whose GVK list holds `gvk`: how a kind's schema is found among a group-version's. */
function schemaNameOf(schemas: Readonly<Record<string, Schema>>, gvk: { group: string; version: string; kind: string }): string {
  for (const [name, schema] of Object.entries(schemas)) {
    const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as { group: string; version: string; kind: string }[];
    if (gvks.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) return name;
  }
  throw new Error(`no OpenAPI schema registered for ${gvk.group}/${gvk.version} ${gvk.kind}`);
}

// --- paths ------------------------------------------------------------------------------------

function resourcePaths(group: string, gv: GroupVersionModel, resource: ResourceModel): Record<string, Schema> {
  const prefix = group === '' ? `/api/${gv.version}` : `/apis/${group}/${gv.version}`;
  const base = `${prefix}/${resource.resource}`;
  const { kind } = resource;
  const gvk = { group, version: gv.version, kind };
  const model = schemaNameOf(gv.schemas, gvk);
  const hasList = resource.verbs.includes('list');
  const listModel = hasList ? schemaNameOf(gv.schemas, { ...gvk, kind: `${kind}List` }) : '';
  const status = `${META_PREFIX}Status`;
  const stem = operationStem(group, gv.version);
  const op = (operationId: string, action: string, description: string, fields: Schema): Schema => ({
    description,
    operationId,
    tags: [tagOf(group, gv.version)],
    ...fields,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const writeParameters = [P.dryRun, P.fieldManager, P.fieldValidation];
  const written = { '200': respond('OK', model), '201': respond('Created', model), '401': UNAUTHORIZED };
  const patchOperation = (operationId: string, what: string) =>
    op(operationId, 'patch', `partially update ${what}`, {
      parameters: [...writeParameters, P.force],
      requestBody: body(`${META_PREFIX}Patch`, PATCH_MEDIA_TYPES, true),
      responses: written,
    });
  const replaceOperation = (operationId: string, what: string) =>
    op(operationId, 'put', `replace ${what}`, { parameters: writeParameters, requestBody: body(model, ['*/*'], true), responses: written });
  const has = (verb: string) => resource.verbs.includes(verb);
  const paths: Record<string, Schema> = {};

  const collection: Schema = {};
  if (hasList) {
    collection.get = op(`list${stem}${kind}`, 'list', `list or watch objects of kind ${kind}`, {
      parameters: LIST_PARAMETERS,
      responses: { '200': respond('OK', listModel, STREAM_MEDIA), '401': UNAUTHORIZED },
    });
  }
  if (has('create')) {
    collection.post = op(`create${stem}${kind}`, 'post', `create a ${kind}`, {
      parameters: writeParameters,
      requestBody: body(model, ['*/*'], true),
      responses: { ...written, '202': respond('Accepted', model) },
    });
  }
  if (has('deletecollection')) {
    collection.delete = op(`delete${stem}Collection${kind}`, 'deletecollection', `delete collection of ${kind}`, {
      parameters: [
        P.continue,
        P.dryRun,
        P.fieldSelector,
        P.gracePeriodSeconds,
        P.labelSelector,
        P.limit,
        P.propagationPolicy,
        P.resourceVersion,
        P.resourceVersionMatch,
        P.sendInitialEvents,
        P.timeoutSeconds,
      ],
      requestBody: body(`${META_PREFIX}DeleteOptions`, ['*/*'], false),
      responses: { '200': respond('OK', status), '401': UNAUTHORIZED },
    });
  }
  if (Object.keys(collection).length > 0) paths[base] = { ...collection, parameters: [P.pretty] };

  const item: Schema = {};
  if (has('get')) item.get = op(`read${stem}${kind}`, 'get', `read the specified ${kind}`, { responses: { '200': respond('OK', model), '401': UNAUTHORIZED } });
  if (has('update')) item.put = replaceOperation(`replace${stem}${kind}`, `the specified ${kind}`);
  if (has('patch')) item.patch = patchOperation(`patch${stem}${kind}`, `the specified ${kind}`);
  if (has('delete')) {
    item.delete = op(`delete${stem}${kind}`, 'delete', `delete a ${kind}`, {
      parameters: [P.dryRun, P.gracePeriodSeconds, P.propagationPolicy],
      requestBody: body(`${META_PREFIX}DeleteOptions`, ['*/*'], false),
      responses: { '200': respond('OK', status), '202': respond('Accepted', status), '401': UNAUTHORIZED },
    });
  }
  if (Object.keys(item).length > 0) paths[`${base}/{name}`] = { ...item, parameters: [nameParameter(kind), P.pretty] };

  for (const sub of resource.subresources) {
    const Sub = sub.subresource.charAt(0).toUpperCase() + sub.subresource.slice(1);
    const operations: Schema = {};
    if (sub.verbs.includes('get'))
      operations.get = op(`read${stem}${kind}${Sub}`, 'get', `read ${sub.subresource} of the specified ${kind}`, {
        responses: { '200': respond('OK', model), '401': UNAUTHORIZED },
      });
    if (sub.verbs.includes('update')) operations.put = replaceOperation(`replace${stem}${kind}${Sub}`, `${sub.subresource} of the specified ${kind}`);
    if (sub.verbs.includes('patch')) operations.patch = patchOperation(`patch${stem}${kind}${Sub}`, `${sub.subresource} of the specified ${kind}`);
    paths[`${base}/{name}/${sub.subresource}`] = { ...operations, parameters: [nameParameter(kind), P.pretty] };
  }

  if (has('watch')) {
    const watchEvent = `${META_PREFIX}WatchEvent`;
    const watchResponses = { '200': respond('OK', watchEvent, STREAM_MEDIA), '401': UNAUTHORIZED };
    paths[`${prefix}/watch/${resource.resource}`] = {
      get: op(
        `watch${stem}${kind}List`,
        'watchlist',
        `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        { responses: watchResponses },
      ),
      parameters: [...LIST_PARAMETERS, P.pretty],
    };
    paths[`${prefix}/watch/${resource.resource}/{name}`] = {
      get: op(
        `watch${stem}${kind}`,
        'watch',
        `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item ` +
          "with the 'fieldSelector' parameter.",
        { responses: watchResponses },
      ),
      parameters: [...LIST_PARAMETERS, nameParameter(kind), P.pretty],
    };
  }
  return paths;
}

/** The document of one group-version; `served` is every group-version (meta/v1's GVK lists name them). */
export function groupVersionOpenApi(group: string, gv: GroupVersionModel, served: readonly GroupVersion[]): Schema {
  const prefix = group === '' ? `/api/${gv.version}` : `/apis/${group}/${gv.version}`;
  const stem = operationStem(group, gv.version);
  const paths: Record<string, Schema> = {
    [`${prefix}/`]: {
      get: {
        description: 'get available resources',
        operationId: `get${stem}APIResources`,
        tags: [tagOf(group, gv.version)],
        responses: { '200': respond('OK', `${META_PREFIX}APIResourceList`), '401': UNAUTHORIZED },
      },
    },
  };
  for (const resource of gv.resources) Object.assign(paths, resourcePaths(group, gv, resource));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: {
      schemas: { ...metaSchemas(served), ...gv.schemas },
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
    security: [{ BearerToken: [] }],
  };
}

/** JSON with object keys sorted at every level, so equal values give equal bytes. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => [key, sortKeys(record[key])]),
  );
}

export function openApiHash(json: string): string {
  return createHash('sha512').update(json).digest('hex').toUpperCase();
}

/** Every OpenAPI v3 document the model's group-versions make, serialised and hashed. */
export function openApiDocuments(model: DiscoveryModel): OpenApiDocument[] {
  const groups = [...(model.core !== undefined ? [model.core] : []), ...model.groups];
  const served: GroupVersion[] = groups.flatMap((g) => g.versions.filter((v) => v.resources.length > 0).map((v) => ({ group: g.name, version: v.version })));
  const documents: OpenApiDocument[] = [];
  for (const group of groups) {
    for (const gv of group.versions) {
      if (gv.resources.length === 0) continue;
      const json = stableStringify(groupVersionOpenApi(group.name, gv, served));
      documents.push({ path: group.name === '' ? `api/${gv.version}` : `apis/${group.name}/${gv.version}`, json, hash: openApiHash(json) });
    }
  }
  return documents;
}

/** `GET /openapi/v3`: each document's path (no leading slash) → its hashed URL. */
export function openApiIndex(documents: readonly OpenApiDocument[]) {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const doc of [...documents].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    paths[doc.path] = { serverRelativeURL: `/openapi/v3/${doc.path}?hash=${doc.hash}` };
  }
  return { paths };
}
