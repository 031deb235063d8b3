// OpenAPI v3 as kubectl needs it. `create`, `apply`, `replace` and `edit` first look for a PATCH
// operation tagged with the kind's GVK that declares a `fieldValidation` query parameter inline;
// without it they refuse to run (or fall back to protobuf OpenAPI v2, which Fairway does not
// serve). kubectl stops at the first such PATCH operation it meets and Go maps iterate in random
// order, so both `/{name}` and `/{name}/status` PATCH operations declare it. `explain` and
// client-side apply read the component schemas (openapi-schemas.ts).
//
// Documents are serialised with sorted keys, so the bytes, and the `hash` in the index that
// kubectl uses as a cache key, are the same on every start.
import { createHash } from 'node:crypto';
import { apiGroupsFor, FLOWCONTROL_VERSION } from '../engine/resources/api-domain.ts';
import { FLOW_SCHEMA_KIND, FLOW_SCHEMA_RESOURCE, PRIORITY_LEVEL_KIND, PRIORITY_LEVEL_RESOURCE } from '../engine/resources/types.ts';
import { FLOWCONTROL_PREFIX, META_PREFIX, flowcontrolSchemas, schemaRef, type Schema } from './openapi-schemas.ts';
import { PATCH_MEDIA_TYPES } from './content-negotiation.ts';
import { AUTHENTICATION_PREFIX, AUTHORIZATION_PREFIX, authenticationReviewSchemas, authorizationReviewSchemas } from './openapi-review-schemas.ts';

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
  allowWatchBookmarks: query('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events on a watch. Servers may send them at their discretion; clients must not assume any particular interval.'),
  continue: query('continue', 'string', 'The token from a previous chunked list, to fetch the next chunk from the same snapshot. An expired token gives 410.'),
  dryRun: query('dryRun', 'string', 'When `All`, the request is processed fully but nothing is persisted. Any other value is invalid.'),
  fieldManager: query('fieldManager', 'string', 'The name of the actor making the change, recorded in managedFields. At most 128 printable characters. Required for apply patches.'),
  fieldSelector: query('fieldSelector', 'string', 'Restrict the returned objects by their fields, e.g. `metadata.name=x`.'),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'What to do with unknown or duplicate fields in the body: `Ignore` drops them silently, `Warn` drops them and adds a warning header per field (the default), `Strict` fails the request with 400.',
  ),
  force: query('force', 'boolean', 'For apply patches: take ownership of fields other managers own instead of failing with a conflict. Must be unset for other patch types.'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 means at once. Unset uses the kind\'s default.'),
  labelSelector: query('labelSelector', 'string', 'Restrict the returned objects by their labels, e.g. `tier=gold,env!=dev`.'),
  limit: query('limit', 'integer', 'The most items to return in one response; when more remain, the list carries a continue token.'),
  pretty: query('pretty', 'string', 'If `true`, indent the output.'),
  propagationPolicy: query('propagationPolicy', 'string', 'How dependents are garbage collected: `Orphan`, `Background` or `Foreground`.'),
  resourceVersion: query('resourceVersion', 'string', 'Which version of the data a list or watch starts from. Unset: the latest (consistent read); `0`: any; otherwise not older than this.'),
  resourceVersionMatch: query('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: `NotOlderThan` or `Exact`. Requires resourceVersion.'),
  sendInitialEvents: query('sendInitialEvents', 'boolean', 'With watch=true: start the stream with synthetic ADDED events for the current state, then a bookmark marking its end.'),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Time limit for the list or watch call.'),
  watch: query('watch', 'boolean', 'Stream changes (ADDED, MODIFIED, DELETED) instead of returning a list.'),
} as const;

const nameParameter = (kind: string): Schema => ({ name: 'name', in: 'path', description: `name of the ${kind}`, required: true, schema: { type: 'string', uniqueItems: true } });

// --- responses --------------------------------------------------------------------------------

const content = (name: string, mediaTypes: readonly string[]) =>
  Object.fromEntries(mediaTypes.map((mediaType) => [mediaType, { schema: { $ref: schemaRef(name) } }]));
const OBJECT_MEDIA = ['application/json', 'application/yaml'];
const LIST_MEDIA = ['application/json', 'application/json;stream=watch', 'application/yaml'];
const respond = (description: string, name: string, mediaTypes = OBJECT_MEDIA) => ({ description, content: content(name, mediaTypes) });
const UNAUTHORIZED = { description: 'Unauthorized' };
const body = (name: string, mediaTypes: readonly string[], required: boolean) => ({ content: content(name, mediaTypes), ...(required ? { required: true } : {}) });

// --- paths ------------------------------------------------------------------------------------

interface KindInfo {
  kind: string;
  resource: string;
}

function operationsFor(group: string, { kind, resource }: KindInfo): Record<string, Schema> {
  const base = `/apis/${group}/${FLOWCONTROL_VERSION}/${resource}`;
  const gvk = { group, version: FLOWCONTROL_VERSION, kind };
  const model = `${FLOWCONTROL_PREFIX}${kind}`;
  const listModel = `${model}List`;
  const status = `${META_PREFIX}Status`;
  const idSuffix = `FlowcontrolApiserverV1${kind}`;
  const op = (operationId: string, action: string, description: string, fields: Schema): Schema => ({
    description,
    operationId,
    tags: ['flowcontrolApiserver_v1'],
    ...fields,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const writeParameters = [P.dryRun, P.fieldManager, P.fieldValidation];
  const patchOperation = (operationId: string, what: string) =>
    op(operationId, 'patch', `partially update ${what}`, {
      parameters: [...writeParameters, P.force],
      requestBody: body(`${META_PREFIX}Patch`, PATCH_MEDIA_TYPES, true),
      responses: { '200': respond('OK', model), '201': respond('Created', model), '401': UNAUTHORIZED },
    });
  const replaceOperation = (operationId: string, what: string) =>
    op(operationId, 'put', `replace ${what}`, {
      parameters: writeParameters,
      requestBody: body(model, ['*/*'], true),
      responses: { '200': respond('OK', model), '201': respond('Created', model), '401': UNAUTHORIZED },
    });

  return {
    [base]: {
      get: op(`list${idSuffix}`, 'list', `list or watch objects of kind ${kind}`, {
        parameters: [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch],
        responses: { '200': respond('OK', listModel, LIST_MEDIA), '401': UNAUTHORIZED },
      }),
      post: op(`create${idSuffix}`, 'post', `create a ${kind}`, {
        parameters: writeParameters,
        requestBody: body(model, ['*/*'], true),
        responses: { '200': respond('OK', model), '201': respond('Created', model), '202': respond('Accepted', model), '401': UNAUTHORIZED },
      }),
      delete: op(`deleteFlowcontrolApiserverV1Collection${kind}`, 'deletecollection', `delete collection of ${kind}`, {
        parameters: [P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.labelSelector, P.limit, P.propagationPolicy, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds],
        requestBody: body(`${META_PREFIX}DeleteOptions`, ['*/*'], false),
        responses: { '200': respond('OK', status), '401': UNAUTHORIZED },
      }),
      parameters: [P.pretty],
    },
    [`${base}/{name}`]: {
      get: op(`read${idSuffix}`, 'get', `read the specified ${kind}`, { responses: { '200': respond('OK', model), '401': UNAUTHORIZED } }),
      put: replaceOperation(`replace${idSuffix}`, `the specified ${kind}`),
      patch: patchOperation(`patch${idSuffix}`, `the specified ${kind}`),
      delete: op(`delete${idSuffix}`, 'delete', `delete a ${kind}`, {
        parameters: [P.dryRun, P.gracePeriodSeconds, P.propagationPolicy],
        requestBody: body(`${META_PREFIX}DeleteOptions`, ['*/*'], false),
        responses: { '200': respond('OK', status), '202': respond('Accepted', status), '401': UNAUTHORIZED },
      }),
      parameters: [nameParameter(kind), P.pretty],
    },
    [`${base}/{name}/status`]: {
      get: op(`read${idSuffix}Status`, 'get', `read status of the specified ${kind}`, { responses: { '200': respond('OK', model), '401': UNAUTHORIZED } }),
      put: replaceOperation(`replace${idSuffix}Status`, `status of the specified ${kind}`),
      patch: patchOperation(`patch${idSuffix}Status`, `status of the specified ${kind}`),
      parameters: [nameParameter(kind), P.pretty],
    },
  };
}

/** The `/openapi/v3/apis/flowcontrol.apiserver.<domain>/v1` document as a value. */
export function flowcontrolOpenApi(apiDomain?: string): Schema {
  const group = apiGroupsFor(apiDomain).flowcontrol;
  const kinds: KindInfo[] = [
    { kind: FLOW_SCHEMA_KIND, resource: FLOW_SCHEMA_RESOURCE },
    { kind: PRIORITY_LEVEL_KIND, resource: PRIORITY_LEVEL_RESOURCE },
  ];
  const paths: Record<string, Schema> = {
    [`/apis/${group}/${FLOWCONTROL_VERSION}/`]: {
      get: {
        description: 'get available resources',
        operationId: 'getFlowcontrolApiserverV1APIResources',
        tags: ['flowcontrolApiserver_v1'],
        responses: { '200': respond('OK', `${META_PREFIX}APIResourceList`), '401': UNAUTHORIZED },
      },
    },
  };
  for (const kind of kinds) Object.assign(paths, operationsFor(group, kind));
  return {
    openapi: '3.0.0',
    info: { title: 'Fairway', version: 'v1.32.0' },
    paths,
    components: {
      schemas: flowcontrolSchemas(apiDomain),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
    security: [{ BearerToken: [] }],
  };
}

// --- the self reviews -------------------------------------------------------------------------

interface ReviewInfo {
  kind: string;
  resource: string;
}

/** A group-version that serves only create-only reviews: its resource list and one POST per review. */
function reviewOpenApi(group: string, tag: string, idPrefix: string, reviews: readonly ReviewInfo[], prefix: string, schemas: Record<string, Schema>): Schema {
  const paths: Record<string, Schema> = {
    [`/apis/${group}/v1/`]: {
      get: { description: 'get available resources', operationId: `get${idPrefix}APIResources`, tags: [tag], responses: { '200': respond('OK', `${META_PREFIX}APIResourceList`), '401': UNAUTHORIZED } },
    },
  };
  for (const { kind, resource } of reviews) {
    const model = `${prefix}${kind}`;
    paths[`/apis/${group}/v1/${resource}`] = {
      post: {
        description: `create a ${kind}`,
        operationId: `create${idPrefix}${kind}`,
        tags: [tag],
        parameters: [P.dryRun, P.fieldManager, P.fieldValidation],
        requestBody: body(model, ['*/*'], true),
        responses: { '200': respond('OK', model), '201': respond('Created', model), '202': respond('Accepted', model), '401': UNAUTHORIZED },
        'x-kubernetes-action': 'post',
        'x-kubernetes-group-version-kind': { group, version: 'v1', kind },
      },
      parameters: [P.pretty],
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Fairway', version: 'v1.32.0' },
    paths,
    components: { schemas, securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } } },
    security: [{ BearerToken: [] }],
  };
}

/** `/openapi/v3/apis/authorization.<domain>/v1`: SelfSubjectAccessReview and SelfSubjectRulesReview. */
export function authorizationOpenApi(apiDomain?: string): Schema {
  const reviews = [
    { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews' },
    { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews' },
  ];
  return reviewOpenApi(apiGroupsFor(apiDomain).authorization, 'authorization_v1', 'AuthorizationV1', reviews, AUTHORIZATION_PREFIX, authorizationReviewSchemas(apiDomain));
}

/** `/openapi/v3/apis/authentication.<domain>/v1`: SelfSubjectReview. */
export function authenticationOpenApi(apiDomain?: string): Schema {
  const reviews = [{ kind: 'SelfSubjectReview', resource: 'selfsubjectreviews' }];
  return reviewOpenApi(apiGroupsFor(apiDomain).authentication, 'authentication_v1', 'AuthenticationV1', reviews, AUTHENTICATION_PREFIX, authenticationReviewSchemas(apiDomain));
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

/** Every OpenAPI v3 document Fairway serves, serialised and hashed (the self reviews' groups when they are served). */
export function openApiDocuments(apiDomain?: string, options: { selfReviews?: boolean } = {}): OpenApiDocument[] {
  const groups = apiGroupsFor(apiDomain);
  const document = (path: string, value: Schema): OpenApiDocument => {
    const json = stableStringify(value);
    return { path, json, hash: openApiHash(json) };
  };
  const documents = [document(`apis/${groups.flowcontrol}/${FLOWCONTROL_VERSION}`, flowcontrolOpenApi(apiDomain))];
  if (options.selfReviews === true) {
    documents.push(document(`apis/${groups.authorization}/v1`, authorizationOpenApi(apiDomain)), document(`apis/${groups.authentication}/v1`, authenticationOpenApi(apiDomain)));
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
