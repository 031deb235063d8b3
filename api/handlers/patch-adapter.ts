// The seam between the REST handlers and api/patch: PATCH bodies applied to the stored object
// (json, merge, strategic merge, server-side apply), and managedFields bookkeeping for every other
// write. api/patch decodes, defaults and checks the name; the kind's registry (engine/registry)
// then runs the strategy, validation, admission and the store's optimistic concurrency.
import { flowcontrolKind } from '../../engine/resources/kinds.ts';
import { defaulted } from '../../engine/resources/defaults.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import { conflictError } from '../../engine/store/store-errors.ts';
import { decodeShape } from '../../engine/config/object-shape.ts';
import { invalid as invalidField } from '../../engine/resources/field-errors.ts';
import { ApiError, invalid } from '../errors.ts';
import { firstTypeError, shapeOf } from './decode.ts';
import { applyPatch, updateManagedFields, type FlowcontrolKind } from '../patch/index.ts';
import type { ManagedFieldsRecorder, Subresource } from '../../engine/registry/kind-registry.ts';
import type { PatchApplier, PatchRequest } from './resource.ts';

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

/** PATCH through api/patch; failures become the Status api/patch words. */
export function patchApplier(group: string): PatchApplier {
  return (request: PatchRequest) => {
    const kind = flowcontrolKind(request.kind);
    const name = request.current?.metadata?.name ?? request.name;
    const result = applyPatch({
      contentType: request.contentType,
      patchBody: request.body,
      // Stored objects are deeply frozen and shared; api/patch gets its own copy to work on.
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
    return { object, warnings: result.warnings, managedFieldsSet: true };
  };
}
