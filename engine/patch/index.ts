// PATCH as kube-apiserver's patch handler runs it for the flowcontrol kinds, minus storage: pick the
// mechanism by Content-Type, check the PatchOptions, apply the patch to the current object, decode
// the result (unknown fields per fieldValidation, defaulting), check the name, and keep the
// managedFields. The caller still runs the strategy, validation and the store's optimistic
// concurrency, using the returned object's `metadata.resourceVersion` as the precondition (a JSON
// patch may set it on purpose, as kubectl's managedFields migration does).

import { flowcontrolApiVersion } from '../resources/api-domain.ts';
import { forbidden, invalid, required, tooLong, type FieldError } from '../resources/field-errors.ts';
import { FLOW_SCHEMA_RESOURCE, PRIORITY_LEVEL_RESOURCE, type KubeObject, type ManagedFieldsEntry, type Status } from '../resources/types.ts';
import { badRequest, conflict, invalid as invalidStatus, nameMismatch, notFound, unsupportedMediaType } from '../status/errors.ts';
import { decodeApplyBody, strictYamlError } from './apply-body.ts';
import { goFormatValue, goJsonTypeName } from './go-json.ts';
import { applyJsonPatch, type FieldValidation } from './json-patch.ts';
import { FIELD_MANAGER_MAX_LENGTH, managedFieldsAfterUpdate, prefixFromUserAgent } from './managed-fields.ts';
import { applyMergePatch } from './merge-patch.ts';
import { dropUnknownFields, unknownFieldPaths } from './schema-check.ts';
import type { FlowcontrolKind } from '../resources/types.ts';
import { schemaFor } from './schema.ts';
import { serverSideApply } from './server-side-apply.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';
import { isRecord } from '../own-property.ts';

export { updateManagedFields, type UpdateManagedFieldsOptions } from './managed-fields.ts';
export type { FieldValidation } from './json-patch.ts';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';
/** In the order kube-apiserver lists them in its 415. */
export const PATCH_CONTENT_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH] as const;
export type PatchContentType = (typeof PATCH_CONTENT_TYPES)[number];

export interface ApplyPatchInput {
  /** The request's Content-Type header; anything from the first `;` on is ignored, nothing else is normalised. */
  contentType: string;
  patchBody: string | Uint8Array;
  /** The stored object; undefined when it does not exist (apply then creates it). */
  current: KubeObject | undefined;
  kind: FlowcontrolKind;
  /** The `fieldManager` query parameter. */
  fieldManager?: string;
  /** Names the manager of a non-apply patch sent without fieldManager. */
  userAgent?: string;
  /** The `force` query parameter; leave undefined when the request had none (any value is refused on a non-apply patch). */
  force?: boolean;
  /** RFC 3339 time for managedFields entries. */
  nowTime: string;
  /** `status` for PATCH …/status. */
  subresource?: string;
  /** Defaults to `flowcontrol.apiserver.k8s.io/v1`. */
  apiVersion?: string;
  /** The object name from the URL: used for 404s and to refuse a patch that renames the object. */
  name?: string;
  /** Unset on the server means Warn. */
  fieldValidation?: FieldValidation;
  /** The kind's v1 defaulting, run on the decoded result as kube-apiserver's decoder does. */
  defaulter?: (object: KubeObject) => KubeObject;
}

export type ApplyPatchResult =
  | {
      object: KubeObject;
      managedFields: ManagedFieldsEntry[];
      created: boolean;
      warnings: string[];
      /** How numbers a JSON patch put into the object were written, where Go keeps that spelling (json-patch.ts). */
      numberLiterals?: ReadonlyMap<string, string>;
    }
  | { status: Status };

export function patchContentType(header: string): PatchContentType | undefined {
  const semicolon = header.indexOf(';');
  const mediaType = semicolon > 0 ? header.slice(0, semicolon) : header;
  return (PATCH_CONTENT_TYPES as readonly string[]).includes(mediaType) ? (mediaType as PatchContentType) : undefined;
}

export function applyPatch(input: ApplyPatchInput): ApplyPatchResult {
  const patchType = patchContentType(input.contentType);
  if (patchType === undefined) return { status: unsupportedMediaType(PATCH_CONTENT_TYPES) };
  const apiVersion = input.apiVersion ?? flowcontrolApiVersion();
  const group = apiVersion.split('/')[0] ?? '';
  const optionErrors = validatePatchOptions(patchType, input);
  if (optionErrors.length > 0) return { status: invalidStatus({ group: metaGroupFor(group), kind: 'PatchOptions' }, '', optionErrors) };
  const gr = { group, resource: input.kind === 'FlowSchema' ? FLOW_SCHEMA_RESOURCE : PRIORITY_LEVEL_RESOURCE };
  const name = input.name ?? '';
  const subresource = input.subresource ?? '';
  if (input.current === undefined && (patchType !== APPLY_PATCH || subresource !== '')) return { status: notFound(gr, name) };

  const body = typeof input.patchBody === 'string' ? input.patchBody : new TextDecoder().decode(input.patchBody);
  const fieldValidation = input.fieldValidation ?? 'Warn';
  const node = schemaFor(input.kind);

  if (patchType === APPLY_PATCH) {
    const decoded = decodeApplyBody(body);
    if ('status' in decoded) return decoded;
    const applied = serverSideApply({
      kind: input.kind,
      apiVersion,
      current: input.current,
      config: decoded.config,
      manager: input.fieldManager ?? '',
      force: input.force ?? false,
      subresource,
      time: input.nowTime,
    });
    if ('status' in applied) return applied;
    const warnings: string[] = [];
    if (decoded.duplicateKeys.length > 0 && fieldValidation !== 'Ignore') {
      const problem = strictYamlError(decoded.duplicateKeys);
      if (fieldValidation === 'Strict') return { status: badRequest(`error strict decoding YAML: ${problem}`) };
      warnings.push(problem);
    }
    let object = applied.object;
    if (applied.changed && input.defaulter !== undefined) object = input.defaulter(object);
    const uid = object.metadata?.uid;
    if (applied.created && typeof uid === 'string' && uid !== '') {
      return { status: conflict(gr, name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`) };
    }
    const renamed = checkName(object, input.name);
    if (renamed !== undefined) return { status: renamed };
    return { object, managedFields: applied.managedFields, created: applied.created, warnings };
  }

  const current = input.current!;
  let patched: unknown;
  let duplicates: string[] = [];
  let numberLiterals: ReadonlyMap<string, string> | undefined;
  let shown: () => string;
  if (patchType === JSON_PATCH) {
    const result = applyJsonPatch(current, body, fieldValidation);
    if ('status' in result) return result;
    ({ value: patched, numberLiterals } = result);
    shown = () => JSON.stringify(patched);
  } else if (patchType === MERGE_PATCH) {
    const result = applyMergePatch(current, body, fieldValidation);
    if ('status' in result) return result;
    ({ value: patched, duplicates } = result);
    shown = () => JSON.stringify(patched);
  } else {
    const result = applyStrategicMergePatch(current, body, node);
    if ('status' in result) return result;
    ({ value: patched, duplicates } = result);
    // kube-apiserver quotes the patch map here, in Go's %+v.
    shown = () => goFormatValue(JSON.parse(body) as unknown);
  }
  if (!isRecord(patched)) {
    return {
      status: invalidStatus({ group: '', kind: '' }, '', [
        invalid(
          'patch',
          JSON.stringify(patched),
          `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonTypeName(patched)} into Go value of type struct { APIVersion ` +
            'string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
        ),
      ]),
    };
  }

  const problems = [
    ...(fieldValidation === 'Ignore' ? [] : duplicates.map((path) => `duplicate field "${path}"`)),
    ...(fieldValidation === 'Ignore' ? [] : unknownFieldPaths(node, patched).map((path) => `unknown field "${path}"`)),
  ];
  if (problems.length > 0 && fieldValidation === 'Strict') {
    return { status: invalidStatus({ group: '', kind: '' }, '', [invalid('patch', shown(), `strict decoding error: ${problems.join(', ')}`)]) };
  }
  let object = dropUnknownFields(node, patched) as KubeObject;
  if (input.defaulter !== undefined) object = input.defaulter(object);
  const renamed = checkName(object, input.name);
  if (renamed !== undefined) return { status: renamed };

  const manager = input.fieldManager || prefixFromUserAgent(input.userAgent ?? '');
  const managedFields = managedFieldsAfterUpdate(node, current, object, { manager, operation: 'Update', apiVersion, subresource }, input.nowTime);
  object.metadata = { ...(object.metadata ?? {}) };
  if (managedFields.length > 0) object.metadata.managedFields = managedFields;
  else delete object.metadata.managedFields;
  return {
    object,
    managedFields,
    created: false,
    warnings: fieldValidation === 'Warn' ? problems : [],
    ...(numberLiterals !== undefined && numberLiterals.size > 0 ? { numberLiterals } : {}),
  };
}

/** `ValidatePatchOptions`: force only with apply, a fieldManager for apply, at most 128 printable bytes. */
function validatePatchOptions(patchType: PatchContentType, input: ApplyPatchInput): FieldError[] {
  const errors: FieldError[] = [];
  const manager = input.fieldManager ?? '';
  if (patchType !== APPLY_PATCH) {
    if (input.force !== undefined) errors.push(forbidden('force', 'may not be specified for non-apply patch'));
  } else if (manager === '') {
    errors.push(required('fieldManager', 'is required for apply patch'));
  }
  if (Buffer.byteLength(manager, 'utf8') > FIELD_MANAGER_MAX_LENGTH) errors.push(tooLong('fieldManager', manager, FIELD_MANAGER_MAX_LENGTH));
  let offset = 0;
  for (const ch of manager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errors.push(invalid('fieldManager', manager, `invalid character U+${code} (at position ${offset})`));
    }
    offset += Buffer.byteLength(ch, 'utf8');
  }
  return errors;
}

/** The meta group beside the flowcontrol group (`meta.k8s.io` unless another apiDomain is served). */
function metaGroupFor(flowcontrolGroup: string): string {
  const prefix = 'flowcontrol.apiserver.';
  return flowcontrolGroup.startsWith(prefix) ? `meta.${flowcontrolGroup.slice(prefix.length)}` : 'meta.k8s.io';
}

function checkName(object: KubeObject, urlName: string | undefined): Status | undefined {
  if (urlName === undefined) return undefined;
  const objectName = typeof object.metadata?.name === 'string' ? object.metadata.name : '';
  return objectName === urlName ? undefined : nameMismatch(objectName, urlName);
}
