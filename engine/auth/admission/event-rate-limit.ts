// EventRateLimit, with Kubernetes' configuration schema (eventratelimit.admission.k8s.io/v1alpha1
// `Configuration`: `limits[]` of `{type, qps, burst, cacheSize}`), validation texts and 429 text.
//
// Scope differs from upstream on purpose: Kubernetes applies it to core Events; Fairway serves no
// Events, so it applies to writes (CREATE, UPDATE, DELETE) of the flowcontrol resources, where a
// client hammering FlowSchema/PriorityLevelConfiguration writes is the thing to stop. Dry-run
// requests are skipped, as upstream skips them.
//
// Each limit is a token bucket (rate `qps`, capacity `burst`, starting full) per key: one shared
// bucket for Server, one per namespace, per user name, or per object for SourceAndObject (an object
// here has no event source, so the key is its kind, namespace, name, uid and apiVersion run
// together, as upstream runs the event's fields together). Per-key buckets live in an LRU of
// `cacheSize` (0 means 4096); an evicted key comes back with a full bucket. Every limit is
// consulted on every request, so each consumes a token.
import type { Clock } from '../../clock.ts';
import type { FieldError } from '../../resources/field-errors.ts';
import { FieldPath, invalid, notSupported } from '../../resources/field-errors.ts';
import type { AdmissionAttributes, AdmissionResult, ValidatingAdmissionPlugin } from './admission.ts';
import { admitted } from './admission.ts';

export const EVENT_RATE_LIMIT_PLUGIN = 'EventRateLimit';
export const EVENT_RATE_LIMIT_CONFIG = { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration' } as const;
export const LIMIT_TYPES = ['Namespace', 'Server', 'SourceAndObject', 'User'] as const;
export const DEFAULT_CACHE_SIZE = 4096;

export type LimitType = (typeof LIMIT_TYPES)[number];

export interface Limit {
  type: LimitType;
  qps: number;
  burst: number;
  cacheSize: number;
}

export interface EventRateLimitConfiguration {
  limits: Limit[];
}

/** Kubernetes' ValidateConfiguration, with its paths and texts. */
export function validateEventRateLimitConfiguration(config: { limits?: Partial<Record<keyof Limit, unknown>>[] }): FieldError[] {
  const errors: FieldError[] = [];
  const limitsPath = FieldPath.root('limits');
  if (config.limits === undefined || config.limits.length === 0) {
    errors.push(invalid(limitsPath, config.limits ?? null, 'must not be empty'));
    return errors;
  }
  config.limits.forEach((limit, i) => {
    const path = limitsPath.index(i);
    if (!(LIMIT_TYPES as readonly unknown[]).includes(limit.type)) errors.push(notSupported(path.child('type'), limit.type ?? '', LIMIT_TYPES));
    const qps = (limit.qps as number | undefined) ?? 0;
    const burst = (limit.burst as number | undefined) ?? 0;
    const cacheSize = (limit.cacheSize as number | undefined) ?? 0;
    if (qps <= 0) errors.push(invalid(path.child('qps'), qps, 'must be positive'));
    if (burst <= 0) errors.push(invalid(path.child('burst'), burst, 'must be positive'));
    if (limit.type !== 'Server' && cacheSize < 0) errors.push(invalid(path.child('cacheSize'), cacheSize, 'must not be negative'));
  });
  return errors;
}

/** golang.org/x/time/rate's bucket: refills continuously at `qps`, holds at most `burst`. */
class TokenBucket {
  private tokens: number;
  private lastMs: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.lastMs = nowMs;
  }

  tryAccept(nowMs: number): boolean {
    const elapsedMs = Math.max(0, nowMs - this.lastMs);
    this.lastMs = Math.max(this.lastMs, nowMs);
    this.tokens = Math.min(this.burst, this.tokens + (elapsedMs / 1000) * this.qps);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

interface Enforcer {
  type: LimitType;
  accept(attributes: AdmissionAttributes, nowMs: number): { ok: true } | { ok: false; key: string };
}

function createEnforcer(limit: Limit): Enforcer {
  const capacity = limit.cacheSize === 0 ? DEFAULT_CACHE_SIZE : limit.cacheSize;
  // Map order is recency order: a hit moves to the end, eviction takes the first.
  const buckets = new Map<string, TokenBucket>();
  const bucketFor = (key: string, nowMs: number): TokenBucket => {
    let bucket = buckets.get(key);
    if (bucket !== undefined) buckets.delete(key);
    else bucket = new TokenBucket(limit.qps, limit.burst, nowMs);
    buckets.set(key, bucket);
    if (limit.type !== 'Server' && buckets.size > capacity) buckets.delete(buckets.keys().next().value!);
    return bucket;
  };
  return {
    type: limit.type,
    accept(attributes, nowMs) {
      const key = bucketKey(limit.type, attributes);
      return bucketFor(key, nowMs).tryAccept(nowMs) ? { ok: true } : { ok: false, key };
    },
  };
}

function bucketKey(type: LimitType, attributes: AdmissionAttributes): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return attributes.namespace;
    case 'User':
      return attributes.user.name;
    case 'SourceAndObject': {
      const object = attributes.object ?? attributes.oldObject ?? {};
      const metadata = (object.metadata ?? {}) as Record<string, unknown>;
      const text = (value: unknown) => (typeof value === 'string' ? value : '');
      return ['', '', text(object.kind), attributes.namespace, attributes.name || text(metadata.name), text(metadata.uid), text(object.apiVersion)].join('');
    }
  }
}

const HANDLED = new Set(['CREATE', 'UPDATE', 'DELETE']);

/** The plugin for a validated configuration; `appliesTo` picks the resources (flowcontrol group). */
export function createEventRateLimit(
  config: EventRateLimitConfiguration,
  options: { clock: Clock; appliesTo: (attributes: AdmissionAttributes) => boolean },
): ValidatingAdmissionPlugin {
  const enforcers = config.limits.map(createEnforcer);
  return {
    name: EVENT_RATE_LIMIT_PLUGIN,
    validate(attributes): AdmissionResult {
      if (!HANDLED.has(attributes.operation) || attributes.dryRun || !options.appliesTo(attributes)) return admitted();
      const nowMs = options.clock.now();
      const rejections: string[] = [];
      for (const enforcer of enforcers) {
        const outcome = enforcer.accept(attributes, nowMs);
        if (!outcome.ok) rejections.push(`Too many requests: limit reached on type ${enforcer.type} for key ${outcome.key}`);
      }
      if (rejections.length === 0) return admitted();
      const message = rejections.length === 1 ? rejections[0]! : `[${rejections.join(', ')}]`;
      return { allowed: false, rejection: { kind: 'rate-limited', message }, warnings: [] };
    },
  };
}
