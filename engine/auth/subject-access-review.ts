// SubjectAccessReview (authorization.k8s.io) on the wire, as the webhook authorizer sends and reads
// it. v1 and v1beta1 differ only in the JSON name of the groups list (`groups` / `group`) and in
// apiVersion. Every spec field is omitempty; objects are written in Go's field order and map keys
// sorted (Go's encoding/json), because the v1 spec's JSON text is also the decision-cache key.
import { parseGoJson } from '../go-json.ts';
import { isRecord } from '../own-property.ts';
import type { AuthorizationAttributes, SelectorRequirement } from './authorizer.ts';

export type SubjectAccessReviewVersion = 'v1' | 'v1beta1';

export interface SelectorAttributes {
  rawSelector?: string;
  requirements?: SelectorRequirement[];
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** The v1 spec (field names as in v1). */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** The spec kube-apiserver builds for a request (selectors only when asked for and present). */
export function specFromAttributes(attributes: AuthorizationAttributes, options: { includeSelectors?: boolean } = {}): SubjectAccessReviewSpec {
  const { user } = attributes;
  const spec: SubjectAccessReviewSpec = {};
  if (attributes.isResourceRequest) {
    const resource: ResourceAttributes = {
      namespace: attributes.namespace,
      verb: attributes.verb,
      group: attributes.apiGroup,
      version: attributes.apiVersion,
      resource: attributes.resource,
      subresource: attributes.subresource,
      name: attributes.name,
    };
    if (options.includeSelectors !== false) {
      if (attributes.fieldSelector !== undefined && attributes.fieldSelector.length > 0) resource.fieldSelector = { requirements: attributes.fieldSelector };
      if (attributes.labelSelector !== undefined && attributes.labelSelector.length > 0) resource.labelSelector = { requirements: attributes.labelSelector };
    }
    spec.resourceAttributes = resource;
  } else {
    spec.nonResourceAttributes = { path: attributes.path, verb: attributes.verb };
  }
  spec.user = user.name;
  spec.groups = [...user.groups];
  if (user.extra !== undefined) spec.extra = user.extra;
  if (user.uid !== undefined) spec.uid = user.uid;
  return spec;
}

/** Go's `json.Marshal(spec)` of the v1 spec: the cache key. */
export function specJson(spec: SubjectAccessReviewSpec): string {
  return JSON.stringify(wireSpec(spec, 'v1'));
}

/** The request body: `{"kind","apiVersion","metadata","spec","status"}` as a Go client writes it. */
export function requestBody(spec: SubjectAccessReviewSpec, version: SubjectAccessReviewVersion, authorizationGroup = 'authorization.k8s.io'): string {
  return JSON.stringify({
    kind: 'SubjectAccessReview',
    apiVersion: `${authorizationGroup}/${version}`,
    metadata: { creationTimestamp: null },
    spec: wireSpec(spec, version),
    status: { allowed: false },
  });
}

/** The spec in `version`'s JSON names, omitempty applied, in Go's field order. */
export function wireSpec(spec: SubjectAccessReviewSpec, version: SubjectAccessReviewVersion): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (spec.resourceAttributes !== undefined) out.resourceAttributes = wireResourceAttributes(spec.resourceAttributes);
  if (spec.nonResourceAttributes !== undefined) {
    out.nonResourceAttributes = omitEmpty({ path: spec.nonResourceAttributes.path, verb: spec.nonResourceAttributes.verb });
  }
  if (spec.user) out.user = spec.user;
  if (spec.groups !== undefined && spec.groups.length > 0) out[version === 'v1' ? 'groups' : 'group'] = spec.groups;
  if (spec.extra !== undefined && Object.keys(spec.extra).length > 0) {
    out.extra = Object.fromEntries(
      Object.keys(spec.extra)
        .sort()
        .map((key) => [key, spec.extra![key]]),
    );
  }
  if (spec.uid) out.uid = spec.uid;
  return out;
}

/** Reads a spec in either version's JSON names (the groups list under `groups` or `group`). */
export function specFromWire(value: unknown, version: SubjectAccessReviewVersion): SubjectAccessReviewSpec {
  const raw = (isRecord(value) ? value : {}) as Record<string, unknown>;
  const spec: SubjectAccessReviewSpec = {};
  if (isRecord(raw.resourceAttributes)) spec.resourceAttributes = raw.resourceAttributes as ResourceAttributes;
  if (isRecord(raw.nonResourceAttributes)) spec.nonResourceAttributes = raw.nonResourceAttributes as NonResourceAttributes;
  if (typeof raw.user === 'string') spec.user = raw.user;
  const groups = raw[version === 'v1' ? 'groups' : 'group'];
  if (Array.isArray(groups)) spec.groups = groups.filter((g): g is string => typeof g === 'string');
  if (isRecord(raw.extra)) spec.extra = raw.extra as Record<string, string[]>;
  if (typeof raw.uid === 'string') spec.uid = raw.uid;
  return spec;
}

export type ParsedReview = { ok: true; status: SubjectAccessReviewStatus } | { ok: false; error: string };

/**
 * Decodes a webhook's answer. Only `status` is read; `apiVersion` (and `kind`), when present, must
 * be the version that was sent, since the client only knows that one.
 */
export function parseReviewResponse(body: string, version: SubjectAccessReviewVersion, authorizationGroup = 'authorization.k8s.io'): ParsedReview {
  const read = parseGoJson(body);
  if ('error' in read) return { ok: false, error: `couldn't get version/kind; json parse error: ${read.error}` };
  const value = read.value;
  if (!isRecord(value)) return { ok: false, error: `couldn't get version/kind; json parse error: expected an object` };
  const expected = `${authorizationGroup}/${version}`;
  if (value.apiVersion !== undefined && value.apiVersion !== expected) {
    return { ok: false, error: `no kind "SubjectAccessReview" is registered for version ${JSON.stringify(String(value.apiVersion))}: expected ${expected}` };
  }
  if (value.kind !== undefined && value.kind !== 'SubjectAccessReview') {
    return { ok: false, error: `no kind ${JSON.stringify(String(value.kind))} is registered for version ${JSON.stringify(expected)}` };
  }
  const status = value.status ?? {};
  if (!isRecord(status)) return { ok: false, error: 'json: cannot unmarshal status into Go struct field SubjectAccessReview.status' };
  for (const [field, type] of [
    ['allowed', 'boolean'],
    ['denied', 'boolean'],
    ['reason', 'string'],
    ['evaluationError', 'string'],
  ] as const) {
    if (status[field] !== undefined && status[field] !== null && typeof status[field] !== type) {
      return {
        ok: false,
        error:
          `json: cannot unmarshal ${typeof status[field]} into Go struct field SubjectAccessReviewStatus.status.${field} of type ` +
          `${type === 'boolean' ? 'bool' : 'string'}`,
      };
    }
  }
  const parsed: SubjectAccessReviewStatus = { allowed: status.allowed === true };
  if (status.denied === true) parsed.denied = true;
  if (typeof status.reason === 'string' && status.reason !== '') parsed.reason = status.reason;
  if (typeof status.evaluationError === 'string' && status.evaluationError !== '') parsed.evaluationError = status.evaluationError;
  return { ok: true, status: parsed };
}

function wireResourceAttributes(attributes: ResourceAttributes): Record<string, unknown> {
  const out = omitEmpty({
    namespace: attributes.namespace,
    verb: attributes.verb,
    group: attributes.group,
    version: attributes.version,
    resource: attributes.resource,
    subresource: attributes.subresource,
    name: attributes.name,
  });
  if (attributes.fieldSelector !== undefined) out.fieldSelector = wireSelector(attributes.fieldSelector);
  if (attributes.labelSelector !== undefined) out.labelSelector = wireSelector(attributes.labelSelector);
  return out;
}

function wireSelector(selector: SelectorAttributes): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (selector.rawSelector) out.rawSelector = selector.rawSelector;
  if (selector.requirements !== undefined && selector.requirements.length > 0) {
    out.requirements = selector.requirements.map((r) => {
      const requirement: Record<string, unknown> = { key: r.key, operator: r.operator };
      if (r.values !== undefined && r.values.length > 0) requirement.values = r.values;
      return requirement;
    });
  }
  return out;
}

function omitEmpty(fields: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== '') out[key] = value;
  return out;
}
