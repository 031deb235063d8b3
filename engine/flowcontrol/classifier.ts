// Classification: request → FlowSchema → priority level → flow. This is the part of the APF
// controller that digests the configuration objects into an ordered FlowSchema sequence, and the
// matching the filter does per request (Kubernetes' apf_controller.go and rule.go).
//
// Pure: no clock, no IO. The controller rebuilds a Classifier on every config change; a Classifier
// never changes after it is built.
//
// Two quirks of Kubernetes kept on purpose:
// - A FlowSchema is usable only if its priority level exists among the *real*, non-broken
//   PriorityLevelConfigurations. The mandatory levels the controller imagines when `exempt` or
//   `catch-all` is missing come later, so a suggested FlowSchema pointing at a missing `exempt`
//   level is dangling even though requests can still reach an (imagined) exempt level through the
//   mandatory exempt FlowSchema.
// - List matching treats `*` as "everything" only when it is the whole list; it is never a
//   pattern, and `*` among other values matches only a literal `*`. Validation forbids that mix.

import type { Condition, FlowSchema, PriorityLevelConfiguration, ResourcePolicyRule, NonResourcePolicyRule, Subject } from '../resources/types.ts';
import {
  API_GROUP_ALL,
  FLOW_SCHEMA_CONDITION_DANGLING,
  FLOW_SCHEMA_NAME_CATCH_ALL,
  FLOW_SCHEMA_NAME_EXEMPT,
  NAME_ALL,
  NAMESPACE_EVERY,
  NON_RESOURCE_ALL,
  PRIORITY_LEVEL_NAME_EXEMPT,
  RESOURCE_ALL,
  VERB_ALL,
} from '../resources/types.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from '../resources/bootstrap.ts';
import { formatRfc3339 } from '../clock.ts';
import { hashFlowId, dealerParameterError } from '../shuffle-sharding.ts';
import { BoundedCache } from '../bounded-cache.ts';
import type { RequestDigest } from './request-digest.ts';
import type { FlowKey } from './queue-set.ts';
import type { RequestInfo } from '../request/request-info.ts';
import type { UserInfo } from '../auth/user-info.ts';

export interface Classification extends FlowKey {
  flowSchema: FlowSchema;
  priorityLevel: PriorityLevelConfiguration;
  /** `""` unless the level queues with more than one queue (see `flowDistinguisher`). */
  flowDistinguisher: string;
  /** Shuffle-sharding hash of (FlowSchema name, distinguisher); `0n` whenever the distinguisher is not computed. */
  hashValue: bigint;
  /**
   * True when no FlowSchema matched and the catch-all schema was taken anyway (Kubernetes logs a
   * warning then). It happens for a user in neither `system:authenticated` nor `system:unauthenticated`.
   */
  fallback: boolean;
  /**
   * The names and the level's type, read once here: a classification serves many requests, and
   * the controller needs them for each.
   */
  flowSchemaName: string;
  priorityLevelName: string;
  exempt: boolean;
  /** The controller's memo: the level it admitted this flow's requests to, and the version of its levels then (controller.ts). */
  admittedTo?: { readonly version: number; readonly level: unknown } | undefined;
}

const CLASSIFICATION = Symbol('fairway.classification');
type MemoizedDigest = RequestDigest & { [CLASSIFICATION]?: { readonly by: Classifier; readonly classification: Classification } };

export interface Classifier {
  /** The FlowSchemas in matching order, the mandatory ones included when they had to be supplied. */
  readonly flowSchemas: readonly FlowSchema[];
  /** Every usable priority level by name: the non-broken inputs plus any imagined mandatory ones. */
  readonly priorityLevels: ReadonlyMap<string, PriorityLevelConfiguration>;
  /** Names of input FlowSchemas left out because their priority level is missing or broken. */
  readonly danglingFlowSchemas: ReadonlySet<string>;
  classify(digest: RequestDigest): Classification;
}

export interface ClassifierOptions {
  /** The apiVersion domain of the imagined mandatory objects; `k8s.io` by default. */
  apiDomain?: string | undefined;
}

/**
 * Digests FlowSchemas and PriorityLevelConfigurations (already defaulted, as stored) into a
 * Classifier. Broken levels are ignored; FlowSchemas naming a missing or broken level are
 * dangling. When a name appears twice, the first object wins (the store cannot produce that).
 */
export function buildClassifier(
  flowSchemas: readonly FlowSchema[],
  priorityLevels: readonly PriorityLevelConfiguration[],
  options: ClassifierOptions = {},
): Classifier {
  const { levels, sequence, dangling, catchAll } = usableConfiguration(flowSchemas, priorityLevels, options);

  // A digest is immutable once handed in, and a Classifier never changes, so a digest seen again
  // (the simulator reuses one per flow) is answered from the memo it carries. On the digest itself,
  // not in a WeakMap: the server makes a digest per request, and a WeakMap entry per request cost
  // more than classifying. The server's digests are new each time but their parts repeat: a frozen
  // RequestInfo is shared by every request to one target, and authenticators hand out one UserInfo
  // per credential (never changed once handed out), so a classification is kept per such pair.
  const byTarget = new WeakMap<RequestInfo, WeakMap<UserInfo, Classification>>();
  // The last pair answered from those WeakMaps: a stream of requests to one target by one client
  // (a controller's GETs, a load test) costs two pointer comparisons instead of two lookups.
  let lastInfo: RequestInfo | undefined;
  let lastUser: UserInfo | undefined;
  let lastKept: Classification | undefined;
  const keep = (info: RequestInfo, user: UserInfo, classification: Classification): Classification => {
    lastInfo = info;
    lastUser = user;
    lastKept = classification;
    return classification;
  };
  /** The classifications made so far, by flow (schema, distinguisher, and whether it was the fallback). */
  const flows = new BoundedCache<string, Classification>(4_096);
  const classifier: Classifier = {
    flowSchemas: sequence,
    priorityLevels: levels,
    danglingFlowSchemas: dangling,
    classify(digest) {
      // A digest classified before carries its answer: one property read, before any WeakMap
      // lookup (a fresh digest of the server's misses it as cheaply).
      const memo = (digest as MemoizedDigest)[CLASSIFICATION];
      if (memo !== undefined && memo.by === classifier) return memo.classification;
      const info = digest.requestInfo;
      const user = digest.user;
      if (info === lastInfo && user === lastUser) return lastKept!;
      // Only frozen RequestInfos are kept, and a frozen object stays frozen, so a RequestInfo found
      // here needs no Object.isFrozen (which costs more than the lookup: it checks every property).
      let byUser = byTarget.get(info);
      const known = byUser?.get(user);
      if (known !== undefined) return keep(info, user, known);
      if (byUser !== undefined || Object.isFrozen(info)) {
        const classification = classifyOnce(digest);
        if (byUser === undefined) byTarget.set(info, (byUser = new WeakMap()));
        byUser.set(user, classification);
        return keep(info, user, classification);
      }
      const classification = classifyOnce(digest);
      (digest as MemoizedDigest)[CLASSIFICATION] = { by: classifier, classification };
      return classification;
    },
  };
  return classifier;

  function classifyOnce(digest: RequestDigest): Classification {
    let matched: FlowSchema | undefined;
    for (const fs of sequence) {
      if (matchesFlowSchema(digest, fs)) {
        matched = fs;
        break;
      }
    }
    const flowSchema = matched ?? catchAll;
    const priorityLevel = levels.get(flowSchema.spec?.priorityLevelConfiguration?.name ?? '');
    if (priorityLevel === undefined) {
      // Unreachable: only schemas with a usable level are in the sequence, and the mandatory
      // schemas' levels are imagined when missing.
      throw new Error(`classifier: FlowSchema "${flowSchema.metadata?.name}" has no priority level`);
    }
    const { flowDistinguisher, hashValue } = flowOf(digest, flowSchema, priorityLevel);
    // One object per flow: requests that miss the memos above (a RequestInfo of its own, as a
    // request with a query has) still hand the queue set the same flow key, so its hands are found
    // by identity instead of being dealt and remembered again for every request.
    const flowId = `${matched === undefined ? '!' : ''}${flowSchema.metadata?.name ?? ''}\u0000${flowDistinguisher}`;
    const known = flows.peek(flowId);
    if (known !== undefined) return known;
    const classification: Classification = {
      flowSchema,
      priorityLevel,
      flowDistinguisher,
      hashValue,
      fallback: matched === undefined,
      flowSchemaName: flowSchema.metadata?.name ?? '',
      priorityLevelName: priorityLevel.metadata?.name ?? '',
      exempt: priorityLevel.spec?.type === 'Exempt',
      // The memos others keep on it, present from the start so that every classification has one shape.
      admittedTo: undefined,
      hand: undefined,
      handDealer: undefined,
    };
    flows.set(flowId, classification);
    return classification;
  }
}

/** The levels that are not broken (the mandatory ones imagined when missing), the usable FlowSchemas in matching order, and the dangling ones. */
function usableConfiguration(
  flowSchemas: readonly FlowSchema[],
  priorityLevels: readonly PriorityLevelConfiguration[],
  options: ClassifierOptions,
): { levels: Map<string, PriorityLevelConfiguration>; sequence: readonly FlowSchema[]; dangling: Set<string>; catchAll: FlowSchema } {
  const levels = new Map<string, PriorityLevelConfiguration>();
  for (const plc of priorityLevels) {
    const name = plc.metadata?.name ?? '';
    if (levels.has(name) || isPriorityLevelBroken(plc)) continue;
    levels.set(name, plc);
  }

  const usable: FlowSchema[] = [];
  const dangling = new Set<string>();
  const seen = new Set<string>();
  for (const fs of flowSchemas) {
    const name = fs.metadata?.name ?? '';
    if (seen.has(name)) continue;
    seen.add(name);
    if (levels.has(fs.spec?.priorityLevelConfiguration?.name ?? '')) usable.push(fs);
    else dangling.add(name);
  }
  usable.sort(compareFlowSchemas);

  const mandatory = mandatoryFlowSchemas(options.apiDomain);
  if (!usable.some((fs) => fs.metadata?.name === FLOW_SCHEMA_NAME_EXEMPT)) usable.unshift(byName(mandatory, FLOW_SCHEMA_NAME_EXEMPT));
  if (!usable.some((fs) => fs.metadata?.name === FLOW_SCHEMA_NAME_CATCH_ALL)) usable.push(byName(mandatory, FLOW_SCHEMA_NAME_CATCH_ALL));

  for (const plc of mandatoryPriorityLevels(options.apiDomain)) {
    const name = plc.metadata?.name ?? '';
    if (!levels.has(name)) levels.set(name, plc);
  }

  // The catch-all schema is always in the sequence: the input's when usable, else the mandatory one.
  const catchAll = usable.find((fs) => fs.metadata?.name === FLOW_SCHEMA_NAME_CATCH_ALL)!;
  return { levels, sequence: usable, dangling, catchAll };
}

/**
 * Whether the controller ignores this level as broken: a union that does not match its
 * discriminator, an exempt type on a level not named `exempt` (or the reverse), a limit response
 * whose `queuing` disagrees with its type, or queuing parameters no shuffle-sharding dealer accepts.
 */
export function isPriorityLevelBroken(plc: PriorityLevelConfiguration): boolean {
  // Objects are not changed once stored; a digest asks again about thousands of them.
  let broken = brokenLevels.get(plc);
  if (broken === undefined) {
    broken = checkPriorityLevelBroken(plc);
    brokenLevels.set(plc, broken);
  }
  return broken;
}

const brokenLevels = new WeakMap<PriorityLevelConfiguration, boolean>();

function checkPriorityLevelBroken(plc: PriorityLevelConfiguration): boolean {
  const spec = plc.spec ?? {};
  const isLimited = spec.type === 'Limited';
  const isExempt = spec.type === 'Exempt';
  if (isLimited !== isPresent(spec.limited)) return true;
  if (isExempt !== isPresent(spec.exempt)) return true;
  if (isExempt !== (plc.metadata?.name === PRIORITY_LEVEL_NAME_EXEMPT)) return true;
  if (isPresent(spec.limited)) {
    const response = spec.limited.limitResponse ?? {};
    if ((response.type === 'Reject') !== !isPresent(response.queuing)) return true;
    const queuing = response.queuing;
    // Zero (or fewer) queues means "no queuing" to the queue set, so no dealer is needed.
    if (isPresent(queuing) && (queuing.queues ?? 0) > 0) {
      if (dealerParameterError(queuing.queues ?? 0, queuing.handSize ?? 0) !== undefined) return true;
    }
  }
  return false;
}

/**
 * The `Dangling` condition the controller wants on a FlowSchema, given whether its priority level
 * exists (present and not broken). `lastTransitionTime` is `nowMs`; the controller writes the
 * condition only when `danglingConditionDiffers` says so.
 */
export function danglingCondition(fs: FlowSchema, plcExists: boolean, nowMs: number): Condition {
  return danglingConditionAt(fs, plcExists, formatRfc3339(nowMs));
}

/** The same with the time already formatted (one timestamp for many schemas). */
export function danglingConditionAt(fs: FlowSchema, plcExists: boolean, lastTransitionTime: string): Condition {
  const plName = JSON.stringify(fs.spec?.priorityLevelConfiguration?.name ?? '');
  return {
    type: FLOW_SCHEMA_CONDITION_DANGLING,
    status: plcExists ? 'False' : 'True',
    lastTransitionTime,
    reason: plcExists ? 'Found' : 'NotFound',
    message: plcExists
      ? `This FlowSchema references the PriorityLevelConfiguration object named ${plName} and it exists`
      : `This FlowSchema references the PriorityLevelConfiguration object named ${plName} but there is no such object`,
  };
}

/** Whether `desired` must be written: status, reason or message differ from the current condition (time is ignored). */
export function danglingConditionDiffers(fs: FlowSchema, desired: Condition): boolean {
  const current = fs.status?.conditions?.find((c) => c.type === FLOW_SCHEMA_CONDITION_DANGLING);
  return current?.status !== desired.status || current?.reason !== desired.reason || current?.message !== desired.message;
}

// ---------------------------------------------------------------------------------------------
// Matching (rule.go)

// Matching runs for every request against every schema ahead of the matching one, so it is
// written as plain loops: no closures or arrays are allocated per request.
export function matchesFlowSchema(digest: RequestDigest, fs: FlowSchema): boolean {
  const rules = fs.spec?.rules;
  if (rules === undefined) return false;
  const info = digest.requestInfo;
  for (const rule of rules) {
    if (!anySubjectMatches(digest.user, rule.subjects)) continue;
    if (info.isResourceRequest) {
      for (const r of rule.resourceRules ?? NONE) if (matchesResourceRule(info, r)) return true;
    } else {
      for (const r of rule.nonResourceRules ?? NONE) if (matchesNonResourceRule(info, r)) return true;
    }
  }
  return false;
}

const NONE: readonly never[] = [];

function anySubjectMatches(user: UserInfo, subjects: readonly Subject[] | undefined): boolean {
  if (subjects === undefined) return false;
  for (const subject of subjects) if (matchesSubject(user, subject)) return true;
  return false;
}

const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';

export function matchesSubject(user: UserInfo, subject: Subject): boolean {
  switch (subject.kind) {
    case 'User':
      return isPresent(subject.user) && (subject.user.name === NAME_ALL || subject.user.name === user.name);
    case 'Group':
      return isPresent(subject.group) && (subject.group.name === NAME_ALL || user.groups.includes(subject.group.name ?? ''));
    case 'ServiceAccount': {
      if (!isPresent(subject.serviceAccount)) return false;
      const { namespace = '', name = '' } = subject.serviceAccount;
      // Cheap rejection first: most users are not service accounts at all.
      if (!user.name.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return false;
      const namespacePrefix = `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:`;
      // `*` takes every service account of the namespace: anything after `...:<ns>:` will do.
      if (name === NAME_ALL) return user.name.startsWith(namespacePrefix);
      return user.name === `${namespacePrefix}${name}`;
    }
    default:
      return false;
  }
}

export function matchesResourceRule(info: RequestInfo, rule: ResourcePolicyRule): boolean {
  if (!listContains(rule.verbs, info.verb, VERB_ALL)) return false;
  if (!listContains(rule.resources, info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`, RESOURCE_ALL)) return false;
  if (!listContains(rule.apiGroups, info.apiGroup, API_GROUP_ALL)) return false;
  // Cluster-scoped and all-namespaces requests match only cluster-scope rules; `*` in namespaces
  // never covers them.
  if (info.namespace === '') return rule.clusterScope === true;
  return listContains(rule.namespaces, info.namespace, NAMESPACE_EVERY);
}

export function matchesNonResourceRule(info: RequestInfo, rule: NonResourcePolicyRule): boolean {
  if (!listContains(rule.verbs, info.verb, VERB_ALL)) return false;
  for (const url of rule.nonResourceURLs ?? NONE) if (matchesNonResourceUrl(url, info.path)) return true;
  return false;
}

/** `*`, the exact path, or a path prefix ending in `/`: `/healthz` and `/healthz/*` both cover `/healthz/etcd`. */
export function matchesNonResourceUrl(ruleUrl: string, path: string): boolean {
  if (ruleUrl === NON_RESOURCE_ALL || ruleUrl === path) return true;
  let prefix = ruleUrl.endsWith('*') ? ruleUrl.slice(0, -1) : ruleUrl;
  if (!prefix.endsWith('/')) prefix += '/';
  return path.startsWith(prefix);
}

function listContains(list: readonly string[] | undefined, value: string, wildcard: string): boolean {
  if (list === undefined) return false;
  if (list.length === 1 && list[0] === wildcard) return true;
  return list.includes(value);
}

// ---------------------------------------------------------------------------------------------
// Flow

/** The flow distinguisher and its hash, computed only when the level can spread flows over queues. */
/**
 * SHA-256 per request is a measurable share of admission; flows repeat, so their hashes are
 * memoised per FlowSchema name, then distinguisher (no key strings built per request). When the
 * memo holds too many flows it starts over.
 */
const flowHashes = new Map<string, Map<string, bigint>>();
let flowHashCount = 0;
const FLOW_HASH_CAPACITY = 16_384;

function memoisedFlowHash(fsName: string, distinguisher: string): bigint {
  let byDistinguisher = flowHashes.get(fsName);
  if (byDistinguisher === undefined) flowHashes.set(fsName, (byDistinguisher = new Map()));
  let hash = byDistinguisher.get(distinguisher);
  if (hash === undefined) {
    if (flowHashCount >= FLOW_HASH_CAPACITY) {
      flowHashes.clear();
      flowHashCount = 0;
      flowHashes.set(fsName, byDistinguisher);
      byDistinguisher.clear();
    }
    hash = hashFlowId(fsName, distinguisher);
    byDistinguisher.set(distinguisher, hash);
    flowHashCount++;
  }
  return hash;
}

function flowOf(digest: RequestDigest, fs: FlowSchema, plc: PriorityLevelConfiguration): { flowDistinguisher: string; hashValue: bigint } {
  const response = plc.spec?.type === 'Exempt' ? undefined : plc.spec?.limited?.limitResponse;
  const queues = response?.type === 'Queue' ? (response.queuing?.queues ?? 0) : 0;
  if (queues <= 1) return { flowDistinguisher: '', hashValue: 0n };
  const flowDistinguisher = flowDistinguisherOf(digest, fs);
  const fsName = fs.metadata?.name ?? '';
  return { flowDistinguisher, hashValue: memoisedFlowHash(fsName, flowDistinguisher) };
}

function flowDistinguisherOf(digest: RequestDigest, fs: FlowSchema): string {
  switch (fs.spec?.distinguisherMethod?.type) {
    case 'ByUser':
      return digest.user.name;
    case 'ByNamespace':
      return digest.requestInfo.namespace;
    default:
      return '';
  }
}

// ---------------------------------------------------------------------------------------------

/** Precedence ascending, then name in byte order (Go compares UTF-8 bytes, i.e. code points). */
function compareFlowSchemas(a: FlowSchema, b: FlowSchema): number {
  const byPrecedence = (a.spec?.matchingPrecedence ?? 0) - (b.spec?.matchingPrecedence ?? 0);
  if (byPrecedence !== 0) return byPrecedence;
  return compareCodePoints(a.metadata?.name ?? '', b.metadata?.name ?? '');
}

/**
 * UTF-8 byte order without encoding: it is code-point order, which differs from UTF-16 unit order
 * only where a surrogate meets a unit at U+E000 or above, so those are shifted before comparing.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

function byName<T extends { metadata?: { name?: string } }>(objects: readonly T[], name: string): T {
  const found = objects.find((o) => o.metadata?.name === name);
  if (found === undefined) throw new Error(`bootstrap: no mandatory object named "${name}"`);
  return found;
}

function isPresent<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}
