// A PATCH as the registry's writes take it: the body applied to the stored object (json, merge,
// strategic merge, server-side apply) with its managedFields set, decoded as Go decodes the patched
// document; and managedFields bookkeeping for every other write. The patch package decodes, defaults
// and checks the name; the kind's registry (engine/registry) then runs the strategy, validation,
// admission and the store's optimistic concurrency. No HTTP here: the REST handler reads the request,
// the execution plane (workers/patch-stage.ts) decides which thread runs this.
import { flowcontrolKind } from '../resources/kinds.ts';
import { defaulted } from '../resources/defaults.ts';
import type { KubeObject } from '../resources/types.ts';
import { conflictError } from '../store/store-errors.ts';
import { decodeShape } from '../resources/schema-decoder.ts';
import { invalid as invalidField } from '../resources/field-errors.ts';
import { ApiError, invalid } from '../status/errors.ts';
import { firstTypeError, shapeOf } from '../request/decode.ts';
import type { FlowcontrolKind } from '../resources/types.ts';
import { applyPatch, updateManagedFields, type PatchContentType } from './index.ts';
import type { FieldValidation } from './json-patch.ts';

export type Subresource = '' | 'status';

/** managedFields bookkeeping for a non-apply write, as the registry takes it (`managedFieldsRecorder` below). */
export interface ManagedFieldsRecorder {
  /** `next` with managedFields updated for an Update by `manager` (previous undefined on create). */
  recordUpdate(previous: KubeObject | undefined, next: KubeObject, manager: string, subresource: Subresource): KubeObject;
}

/** What a PATCH computes: the caller's new object, managedFields set, before the strategy runs. */
export interface PatchResult {
  object: KubeObject;
  warnings: string[];
}

export interface PatchRequest {
  contentType: PatchContentType;
  body: string;
  /** undefined when the object does not exist (only apply may create). */
  current: KubeObject | undefined;
  kind: string;
  apiVersion: string;
  /** The object name from the URL. */
  name: string;
  fieldManager: string;
  force: boolean;
  fieldValidation: FieldValidation;
  subresource: Subresource;
  /** RFC 3339 time for managedFields entries. */
  nowTime: string;
}

export type PatchApplier = (request: PatchRequest) => PatchResult | Promise<PatchResult>;

/**
 * A PATCH as the kind's registry is given it (engine/registry/kind-registry.ts `patch`): the body and
 * its options. The registry adds what it owns: the stored object, its kind and apiVersion, the time.
 */
export type PatchCommand = Omit<PatchRequest, 'current' | 'kind' | 'apiVersion' | 'nowTime'>;

/** managedFields for POST and PUT (and their /status forms): an Update entry for the manager. */
export function managedFieldsRecorder(apiVersion: string, nowTime: () => string): ManagedFieldsRecorder {
  return {
    recordUpdate(previous: KubeObject | undefined, next: KubeObject, manager: string, subresource: Subresource): KubeObject {
      const entries = updateManagedFields(previous, next, { manager, subresource, time: nowTime(), apiVersion, kind: next.kind as FlowcontrolKind });
      const metadata = { ...(next.metadata ?? {}) };
      if (entries.length > 0) metadata.managedFields = entries;
      else delete metadata.managedFields;
      return { ...next, metadata };
    },
  };
}

/** PATCH through the patch package; failures become the Status it words (or the store's conflict). */
export function patchApplier(group: string): (request: PatchRequest) => PatchResult {
  return (request: PatchRequest) => {
    const kind = flowcontrolKind(request.kind);
    const name = request.current?.metadata?.name ?? request.name;
    const result = applyPatch({
      contentType: request.contentType,
      patchBody: request.body,
      // Stored objects are deeply frozen and shared; the patch package gets its own copy to work on.
      current: request.current === undefined ? undefined : structuredClone(request.current),
      kind: request.kind as FlowcontrolKind,
      fieldManager: request.fieldManager,
      ...(request.contentType === 'application/apply-patch+yaml' ? { force: request.force } : {}),
      nowTime: request.nowTime,
      subresource: request.subresource,
      apiVersion: request.apiVersion,
      name,
      fieldValidation: request.fieldValidation,
      ...(kind !== undefined ? { defaulter: (object: KubeObject) => defaulted(kind.table.struct, object) } : {}),
    });
    if ('status' in result) throw new ApiError(result.status);
    // A patch can put any JSON anywhere; like kube-apiserver decoding the patched document into its
    // Go type, a field of the wrong type is refused (422) before anything is stored.
    // Go's decoding also normalises what it reads (times to UTC seconds), so the decoded copy is kept.
    const decoded = decodeShape(result.object, shapeOf(request.kind), '', result.numberLiterals);
    const typeError = firstTypeError(request.kind, decoded.errors, result.numberLiterals);
    if (typeError !== undefined) {
      throw new ApiError(invalid({ group, kind: request.kind }, name, [invalidField('patch', JSON.stringify(result.object), typeError)]));
    }
    const patched = decoded.value as KubeObject;
    const object = { ...patched, metadata: { ...(patched.metadata ?? {}) } };
    if (result.managedFields.length > 0) object.metadata.managedFields = result.managedFields;
    else delete object.metadata.managedFields;
    // A patch that sets metadata.resourceVersion makes it a precondition (kubectl's managedFields
    // migration relies on that); otherwise the stored one stands.
    const wanted = object.metadata.resourceVersion;
    const current = request.current?.metadata?.resourceVersion;
    if (request.current !== undefined && wanted !== undefined && wanted !== '' && wanted !== current) {
      throw conflictError({ group, resource: kind?.resource ?? '', kind: request.kind }, name);
    }
    return { object, warnings: result.warnings };
  };
}
