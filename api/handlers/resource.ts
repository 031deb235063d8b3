// The REST handler of the flowcontrol resources: dispatches on the RequestInfo verb and
// subresource, parses query and body, calls the kind's registry (engine/registry), and writes the response.
// Requests for anything else under the group (other resources, subresources, versions) get the
// same 404/405 kube-apiserver's router gives.
import type { ListOptions } from '../../engine/store/store-types.ts';
import type { Answered, Handler, RequestContext } from '../request/http-context.ts';
import { ApiError, nameMismatch, routeMethodNotAllowed, routeNotFound } from '../../engine/status/errors.ts';
import { PATCH_MEDIA_TYPES, negotiateInput } from '../request/content-negotiation.ts';
import type { Logger } from '../log.ts';
import { parseBody, readBody } from './body.ts';
import type { YamlDecoder } from '../../workers/decode-yaml.ts';
import { decodeObject } from '../../engine/request/decode.ts';
import { checkNestingDepth } from './nesting-depth.ts';
import type { ObjectRegistry } from '../../engine/registry/kind-registry.ts';
import type { Subresource } from '../../engine/patch/patch-applier.ts';
import type { Requester } from '../../engine/registry/requester.ts';
import { checkResourceVersion, defaultFieldManager, parseDeleteOptions, parsePatchOptions, parseWriteOptions, QueryReader, type DeleteBody } from './query.ts';
import { addWarnings, sendError, sendObject } from '../request/respond.ts';
import type { Representation } from '../../engine/render/serializer.ts';
import { negotiate, sendList, sendStoredObject, type Output, type OutputContext } from './resource-output.ts';
import { MIN_REQUEST_TIMEOUT_MS, parseWatchOptions, serveWatch } from './watch.ts';
import type { WatchLimiter } from './watch-limit.ts';
import { internString } from '../../engine/interned-string.ts';

export interface ResourceRoute {
  registry: ObjectRegistry;
  out: OutputContext;
}

export interface ResourceHandlerDeps {
  /** Routes by plural resource name. */
  routes: ReadonlyMap<string, ResourceRoute>;
  group: string;
  version: string;
  metaGroup: string;
  apiDomain?: string | undefined;
  /** Reads YAML bodies (workers/decode-yaml.ts); absent: on the main thread. */
  decodeYaml?: YamlDecoder;
  minRequestTimeoutMs?: number | undefined;
  /** --max-watches-per-user; absent means no limit. */
  watchLimiter?: WatchLimiter;
  /** A watch was closed because its client stopped reading. */
  onWatchTerminated?: (group: string, resource: string) => void;
  logger?: Logger;
}

// What each kind of request may be answered as (a Table only for reads), made once rather than per request.
const READ = { conversions: true } as const;
const WATCH = { conversions: true, watch: true } as const;
const WRITE = { conversions: false } as const;

export function createResourceHandler(options: ResourceHandlerDeps): Handler {
  // Every request's group, version and resource (interned when its target is kept) are compared with
  // these: interned too, the comparisons and the lookup are by pointer (engine/interned-string.ts).
  const deps: ResourceHandlerDeps = {
    ...options,
    group: internString(options.group),
    version: internString(options.version),
    routes: new Map([...options.routes].map(([resource, route]) => [internString(resource), route])),
  };
  // Shared by every watch of this handler: an open watch keeps no closure of its own for these.
  const releaseWatchSlot = (context: RequestContext) => deps.watchLimiter?.release(context.user?.name ?? '');
  const onWatchTerminated =
    deps.onWatchTerminated === undefined ? undefined : (context: RequestContext) => deps.onWatchTerminated?.(deps.group, context.requestInfo.resource);
  // Every failure is answered here, negotiated as the request's response would have been once that is known.
  const answerError = (context: RequestContext, error: unknown, representation: Representation | undefined): void =>
    sendError(context, error, deps.logger, representation);

  /**
   * GET by name with no promise and no async frame when the watch cache can answer now and the
   * object's JSON is cached (one write): undefined once the response is complete. A read that must
   * wait (the store opening, catching up, a resourceVersion not reached) and a body still being
   * sent continue in `finishGet`.
   */
  const getByName = (context: RequestContext): Answered => {
    let representation: Representation | undefined;
    try {
      const route = routeOf(context, deps);
      const output = negotiate(context, deps.metaGroup, READ);
      representation = output;
      const resourceVersion = checkResourceVersion(context.query.get('resourceVersion') ?? undefined) ?? '';
      const name = context.requestInfo.name;
      const object = route.registry.store.getNow(name, resourceVersion);
      if (object === undefined) {
        const sent = route.registry.store.get(name, { resourceVersion }).then((read) => sendStoredObject(context, route.out, output, 200, read));
        return finishGet(context, sent, output);
      }
      const sending = sendStoredObject(context, route.out, output, 200, object);
      return sending === undefined ? undefined : finishGet(context, sending, output);
    } catch (error) {
      answerError(context, error, representation);
      return undefined;
    }
  };

  const finishGet = async (context: RequestContext, sending: Promise<unknown>, representation: Representation): Promise<void> => {
    try {
      await sending;
    } catch (error) {
      answerError(context, error, representation);
    }
  };

  // Every other verb.
  const serve = async (context: RequestContext): Promise<void> => {
    let representation: Representation | undefined;
    try {
      const info = context.requestInfo;
      const route = routeOf(context, deps);
      const query = new QueryReader(context.query);
      const subresource = info.subresource as Subresource;
      switch (info.verb) {
        case 'list': {
          if (subresource !== '') throw new ApiError(routeNotFound());
          const output = negotiate(context, deps.metaGroup, READ);
          representation = output;
          query.int('timeoutSeconds'); // validated, then not needed: lists never take that long
          const list = await route.registry.store.list(listOptions(query));
          await sendList(context, route.out, output, list);
          return;
        }
        case 'watch': {
          if (subresource !== '') throw new ApiError(routeNotFound());
          const output = negotiate(context, deps.metaGroup, WATCH);
          representation = output;
          const options = parseWatchOptions(query, info.name, deps.minRequestTimeoutMs ?? MIN_REQUEST_TIMEOUT_MS);
          const limiter = deps.watchLimiter;
          limiter?.acquire(context.user?.name ?? '');
          try {
            await serveWatch(context, { store: route.registry.store, out: route.out, onTerminated: onWatchTerminated }, output, options);
          } finally {
            // A detached watch frees its slot when it ends.
            if (limiter !== undefined) {
              if (context.detached) context.onEnd(releaseWatchSlot);
              else releaseWatchSlot(context);
            }
          }
          return;
        }
        case 'create':
          if (info.name !== '') throw new ApiError(routeMethodNotAllowed());
          representation = negotiate(context, deps.metaGroup, WRITE);
          await create(context, route, query, representation as Output, deps);
          return;
        case 'update':
          // PUT and PATCH exist only on an object's path: on the collection kube's router answers 405.
          if (info.name === '') throw new ApiError(routeMethodNotAllowed());
          representation = negotiate(context, deps.metaGroup, WRITE);
          await update(context, route, query, representation as Output, subresource, deps);
          return;
        case 'patch':
          if (info.name === '') throw new ApiError(routeMethodNotAllowed());
          representation = negotiate(context, deps.metaGroup, WRITE);
          await patch(context, route, query, representation as Output, subresource, deps);
          return;
        case 'delete':
          if (subresource !== '') throw new ApiError(routeMethodNotAllowed());
          representation = negotiate(context, deps.metaGroup, WRITE);
          await remove(context, route, query, representation as Output, deps);
          return;
        case 'deletecollection':
          if (subresource !== '') throw new ApiError(routeMethodNotAllowed());
          representation = negotiate(context, deps.metaGroup, WRITE);
          await removeCollection(context, route, query, representation as Output, deps);
          return;
        default:
          throw new ApiError(routeMethodNotAllowed());
      }
    } catch (error) {
      answerError(context, error, representation);
    }
  };

  return (context) => (context.requestInfo.verb === 'get' ? getByName(context) : serve(context));
}

/** The route of a resource request; 404 for anything else under the group, as kube's router. */
function routeOf(context: RequestContext, deps: ResourceHandlerDeps): ResourceRoute {
  const info = context.requestInfo;
  const route = info.apiGroup === deps.group && info.apiVersion === deps.version && info.namespace === '' ? deps.routes.get(info.resource) : undefined;
  if (route === undefined || (info.subresource !== '' && info.subresource !== 'status')) throw new ApiError(routeNotFound());
  return route;
}

function listOptions(query: QueryReader): ListOptions {
  const options: { -readonly [K in keyof ListOptions]: ListOptions[K] } = {};
  const resourceVersion = checkResourceVersion(query.string('resourceVersion'));
  if (resourceVersion !== undefined) options.resourceVersion = resourceVersion;
  const match = query.string('resourceVersionMatch');
  if (match !== undefined) options.resourceVersionMatch = match;
  const limit = query.int('limit');
  if (limit !== undefined) options.limit = limit;
  const token = query.string('continue');
  if (token !== undefined) options.continue = token;
  const labelSelector = query.string('labelSelector');
  if (labelSelector !== undefined) options.labelSelector = labelSelector;
  const fieldSelector = query.string('fieldSelector');
  if (fieldSelector !== undefined) options.fieldSelector = fieldSelector;
  const initial = query.bool('sendInitialEvents');
  if (initial !== undefined) options.sendInitialEvents = initial;
  return options;
}

/** The writer of this request as the registry's admission step sees it; admission's warnings become `Warning` headers. */
export function requesterOf(context: RequestContext): Requester {
  const info = context.requestInfo;
  return {
    user: context.user ?? { name: '', groups: [] },
    resource: { group: info.apiGroup, version: info.apiVersion, resource: info.resource },
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    dryRun: context.query.getAll('dryRun').length > 0,
    warn: (warnings) => addWarnings(context.res, warnings),
  };
}

async function readObject(context: RequestContext, route: ResourceRoute, fieldValidation: 'Ignore' | 'Warn' | 'Strict', deps: ResourceHandlerDeps) {
  const parsed = await parseBody(await readBody(context.req), context.req.headers['content-type'], { kind: route.registry.kind }, deps.decodeYaml);
  return decodeObject(
    { value: parsed.value, duplicates: parsed.duplicates, yamlDuplicates: parsed.yamlDuplicates, numberLiterals: parsed.numberLiterals },
    { kind: route.registry.kind, apiVersion: route.out.apiVersion },
    fieldValidation,
  );
}

async function create(context: RequestContext, route: ResourceRoute, query: QueryReader, output: Output, deps: ResourceHandlerDeps): Promise<void> {
  const options = parseWriteOptions(query, 'CreateOptions', deps.apiDomain);
  const { object, warnings } = await readObject(context, route, options.fieldValidation, deps);
  const manager = defaultFieldManager(options.fieldManager, context.req.headers['user-agent']);
  const created = await route.registry.create(object, { dryRun: options.dryRun, manager, requester: requesterOf(context) });
  addWarnings(context.res, warnings);
  await sendStoredObject(context, route.out, output, 201, created);
}

async function update(
  context: RequestContext,
  route: ResourceRoute,
  query: QueryReader,
  output: Output,
  subresource: Subresource,
  deps: ResourceHandlerDeps,
): Promise<void> {
  const options = parseWriteOptions(query, 'UpdateOptions', deps.apiDomain);
  const { object, warnings } = await readObject(context, route, options.fieldValidation, deps);
  const name = context.requestInfo.name;
  const bodyName = object.metadata?.name ?? '';
  if (bodyName !== name) throw new ApiError(nameMismatch(bodyName, name));
  const manager = defaultFieldManager(options.fieldManager, context.req.headers['user-agent']);
  const updated = await route.registry.update(name, subresource, route.registry.replaceWith(object), {
    dryRun: options.dryRun,
    manager,
    requester: requesterOf(context),
    signal: context.signal,
  });
  addWarnings(context.res, warnings);
  await sendStoredObject(context, route.out, output, 200, updated);
}

async function patch(
  context: RequestContext,
  route: ResourceRoute,
  query: QueryReader,
  output: Output,
  subresource: Subresource,
  deps: ResourceHandlerDeps,
): Promise<void> {
  const negotiated = negotiateInput(context.req.headers['content-type'], PATCH_MEDIA_TYPES, { requireContentType: true });
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  const contentType = negotiated.mediaType;
  const isApply = contentType === 'application/apply-patch+yaml';
  const options = parsePatchOptions(query, isApply, deps.apiDomain);
  const body = (await readBody(context.req)).toString('utf8');
  // An apply body is YAML: its depth is bounded with its other costs where it is read (the apply-patch stage).
  if (!isApply) checkNestingDepth(body);
  const manager = defaultFieldManager(options.fieldManager, context.req.headers['user-agent']);
  const outcome = await route.registry.patch(
    {
      contentType,
      body,
      name: context.requestInfo.name,
      fieldManager: manager,
      force: options.force,
      fieldValidation: options.fieldValidation,
      subresource,
    },
    { dryRun: options.dryRun, manager, requester: requesterOf(context), signal: context.signal },
  );
  addWarnings(context.res, outcome.warnings);
  await sendStoredObject(context, route.out, output, outcome.created ? 201 : 200, outcome.object);
}

async function readDeleteBody(context: RequestContext, deps: ResourceHandlerDeps): Promise<DeleteBody> {
  const parsed = await parseBody(await readBody(context.req), context.req.headers['content-type'], { kind: 'DeleteOptions', options: true }, deps.decodeYaml);
  return { value: parsed.value, numberLiterals: parsed.numberLiterals };
}

async function remove(context: RequestContext, route: ResourceRoute, query: QueryReader, output: Output, deps: ResourceHandlerDeps): Promise<void> {
  const options = parseDeleteOptions(query, await readDeleteBody(context, deps), deps.apiDomain);
  const outcome = await route.registry.delete(context.requestInfo.name, options, requesterOf(context));
  if (outcome.type === 'deleted') {
    // A success Status has no code; the response is 200.
    sendObject(context.res, 200, outcome.status, output, output.negotiated.contentType);
    return;
  }
  await sendStoredObject(context, route.out, output, outcome.accepted ? 202 : 200, outcome.object);
}

async function removeCollection(context: RequestContext, route: ResourceRoute, query: QueryReader, output: Output, deps: ResourceHandlerDeps): Promise<void> {
  const options = parseDeleteOptions(query, await readDeleteBody(context, deps), deps.apiDomain);
  query.int('timeoutSeconds');
  const result = await route.registry.deleteCollection(listOptions(query), options, requesterOf(context));
  await sendList(context, route.out, output, result);
}
