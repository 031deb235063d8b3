// The routes of the served resources: each kind's registry over its store (with the execution
// plane's PATCH and the admission chain access control built), the REST and watch handler in front
// of them with the kept encodings of stored objects, and the self-review routes beside them.
import { randomInt, randomUUID } from 'node:crypto';
import { Gauge, type Counter, type Registry } from 'prom-client';
import type { ManagedFieldsRecorder } from '../../engine/patch/patch-applier.ts';
import { KindRegistry, type ObjectRegistry } from '../../engine/registry/kind-registry.ts';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import { apiGroupsFor, flowcontrolApiVersion, FLOWCONTROL_VERSION } from '../../engine/resources/api-domain.ts';
import { FLOW_SCHEMA, PRIORITY_LEVEL } from '../../engine/resources/kinds.ts';
import type { ResourceStore } from '../../engine/store/store-types.ts';
import { executorYamlDecoder } from '../../workers/decode-yaml.ts';
import type { Executor } from '../../workers/executor.ts';
import { executorPatchApplier } from '../../workers/patch-stage.ts';
import { agedTableRows, DEFAULT_ENCODING_CACHE_BYTES, EncodingBudget, protobufItems, tableRows, yamlItems } from '../handlers/encoded-items.ts';
import { createResourceHandler, type ResourceRoute } from '../handlers/resource.ts';
import { withReviewRoutes } from '../handlers/review.ts';
import { DEFAULT_MAX_WATCHES_PER_USER, WatchLimiter } from '../handlers/watch-limit.ts';
import type { Logger } from '../log.ts';
import type { Handler } from '../request/http-context.ts';
import type { AccessControl } from '../security/access-control.ts';

export interface ResourceRoutesOptions {
  priorityLevels: ResourceStore;
  flowSchemas: ResourceStore;
  apiDomain?: string | undefined;
  nowMs: () => number;
  logger: Logger;
  /** Where stages of admitted requests run (PATCH, YAML bodies, rendering). */
  executor: Executor;
  recorder: ManagedFieldsRecorder;
  access: Pick<AccessControl, 'admission' | 'reviews'>;
  /** Where the kept encodings' gauge is registered. */
  registry: Registry;
  /** Counted per resource when a watch is closed for not reading (apiserver_terminated_watchers_total). */
  terminatedWatchers: Counter<'group' | 'resource'>;
  /** --encoding-cache-bytes: what the kept YAML items of stored objects may hold (api/handlers/encoded-items.ts). */
  encodingCacheBytes?: number | undefined;
  /** Watches without timeoutSeconds last 1–2× this (kube's --min-request-timeout). */
  minRequestTimeoutMs?: number | undefined;
  /** --max-watches-per-user (0: no limit); absent: the default (handlers/watch-limit.ts). */
  maxWatchesPerUser?: number | undefined;
}

/** The handler of every resource request: the flowcontrol kinds', and the self reviews when access control serves them. */
export function createResourceRoutes(options: ResourceRoutesOptions): Handler {
  const { apiDomain, nowMs, executor, access } = options;
  const groups = apiGroupsFor(apiDomain);
  const apiVersion = flowcontrolApiVersion(apiDomain);
  const encodingBudget = new EncodingBudget(options.encodingCacheBytes ?? DEFAULT_ENCODING_CACHE_BYTES);
  const keptYaml = yamlItems(encodingBudget);
  const keptProtobuf = protobufItems(encodingBudget);
  const agedTableRow = agedTableRows(encodingBudget);
  new Gauge({
    name: 'fairway_encoding_cache_bytes',
    help: "Bytes held by stored objects' kept encodings besides JSON (YAML list items, protobuf messages, Table rows), against --encoding-cache-bytes.",
    registers: [options.registry],
    collect() {
      this.set(encodingBudget.usedBytes);
    },
  });
  const out = (kind: FlowcontrolKind, listKind: string) => ({
    kind,
    listKind,
    apiVersion,
    metaGroup: groups.meta,
    nowMs,
    executor,
    apiDomain,
    yamlItems: keptYaml,
    protobufItems: keptProtobuf,
    tableRows: tableRows(encodingBudget, kind, apiDomain),
    agedTableRow,
  });
  const registryDeps = {
    apiVersion,
    group: groups.flowcontrol,
    newUid: randomUUID,
    randomInt,
    nowMs,
    managedFields: options.recorder,
    applyPatch: executorPatchApplier(executor, groups.flowcontrol),
    ...(access.admission !== undefined ? { admission: access.admission } : {}),
  };
  const registries: readonly ObjectRegistry[] = [
    new KindRegistry({ ...registryDeps, store: options.priorityLevels, kind: PRIORITY_LEVEL }),
    new KindRegistry({ ...registryDeps, store: options.flowSchemas, kind: FLOW_SCHEMA }),
  ];
  const decodeYaml = executorYamlDecoder(executor);
  const routes = new Map<string, ResourceRoute>(registries.map((registry) => [registry.resource, { registry, out: out(registry.kind, registry.listKind) }]));
  const resources = createResourceHandler({
    routes,
    group: groups.flowcontrol,
    version: FLOWCONTROL_VERSION,
    metaGroup: groups.meta,
    apiDomain,
    decodeYaml,
    minRequestTimeoutMs: options.minRequestTimeoutMs,
    watchLimiter: new WatchLimiter(options.maxWatchesPerUser ?? DEFAULT_MAX_WATCHES_PER_USER),
    onWatchTerminated: (group, resource) => options.terminatedWatchers.inc({ group, resource }),
    logger: options.logger,
  });
  return access.reviews.length > 0 ? withReviewRoutes(resources, access.reviews, decodeYaml) : resources;
}
