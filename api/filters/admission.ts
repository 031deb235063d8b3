// Admission, the last filter before the handlers. Validating admission needs the object as it will
// be stored (decoded, defaulted, patched, merged with the stored one), which only the write handler
// has, so this filter does not look at the body: it attaches the admission chain to the request,
// and the create/update/patch/delete handlers call `admit(context, ...)` at the point where
// kube-apiserver runs validating admission (after validation, just before the store write). A
// refusal is thrown as the ApiError kube-apiserver would answer with; warnings (policy `Warn`
// actions) become `Warning` headers.
//
// Without this filter in the chain (admission not configured), `admit` does nothing.
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation, AdmissionRejection } from '../../engine/auth/admission/admission.ts';
import type { Status } from '../../engine/resources/types.ts';
import type { Filter, RequestContext } from '../server/http-context.ts';
import { ApiError, admissionPolicyDenied, admissionRateLimited } from '../errors.ts';
import { addWarnings } from '../handlers/respond.ts';

const chains = new WeakMap<RequestContext, AdmissionChain>();

// Reads never reach `admit`: they skip the bookkeeping.
const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

export function createAdmissionFilter(chain: AdmissionChain): Filter {
  return (context, next) => {
    if (!READ_VERBS.has(context.requestInfo.verb)) chains.set(context, chain);
    return next();
  };
}

export interface AdmitRequest {
  operation: AdmissionOperation;
  /** The object's kind, e.g. `{group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema'}`. */
  kind: { group: string; version: string; kind: string };
  /** The object after the change; absent for DELETE. */
  object?: Record<string, unknown>;
  /** The stored object, for UPDATE and DELETE. */
  oldObject?: Record<string, unknown>;
  /** Defaults to the name in the URL, else the object's metadata.name. */
  name?: string;
}

/**
 * Runs validating admission for a write the handler is about to store. Throws an ApiError when a
 * plugin refuses; returns quietly otherwise (also when no admission filter ran).
 */
export function admit(context: RequestContext, request: AdmitRequest): void {
  const chain = chains.get(context);
  if (chain === undefined) return;
  const attributes = admissionAttributes(context, request);
  const result = chain.validate(attributes);
  addWarnings(context.res, result.warnings);
  if (!result.allowed) throw new ApiError(rejectionStatus(result.rejection, attributes));
}

/**
 * The callback the write path calls (flowcontrol-rest's WriteContext.admit): binds the request
 * context and the object's kind, so the storage code need not know about HTTP.
 */
export function admissionHook(
  context: RequestContext,
  kind: { group: string; version: string; kind: string },
): (operation: AdmissionOperation, object: object | undefined, oldObject: object | undefined) => void {
  return (operation, object, oldObject) =>
    admit(context, {
      operation,
      kind,
      ...(object !== undefined ? { object: object as Record<string, unknown> } : {}),
      ...(oldObject !== undefined ? { oldObject: oldObject as Record<string, unknown> } : {}),
    });
}

export function admissionAttributes(context: RequestContext, request: AdmitRequest): AdmissionAttributes {
  const info = context.requestInfo;
  const metadata = (request.object?.metadata ?? request.oldObject?.metadata) as { name?: unknown } | undefined;
  const name = request.name ?? (info.name !== '' ? info.name : typeof metadata?.name === 'string' ? metadata.name : '');
  const attributes: AdmissionAttributes = {
    operation: request.operation,
    user: context.user ?? { name: '', groups: [] },
    resource: { group: info.apiGroup, version: info.apiVersion, resource: info.resource },
    subresource: info.subresource,
    kind: request.kind,
    namespace: info.namespace,
    name,
    dryRun: context.query.getAll('dryRun').length > 0,
  };
  if (request.object !== undefined) attributes.object = request.object;
  if (request.oldObject !== undefined) attributes.oldObject = request.oldObject;
  return attributes;
}

export function rejectionStatus(rejection: AdmissionRejection, attributes: AdmissionAttributes): Status {
  if (rejection.kind === 'rate-limited') return admissionRateLimited(rejection.message);
  return admissionPolicyDenied({ group: attributes.resource.group, resource: attributes.resource.resource }, attributes.name, rejection);
}
