// Query parameters, decoded as kube-apiserver's parameter codec decodes them: the first value of a
// repeated parameter counts, integers parse as Go's strconv does (a value that does not parse is a
// 400 BadRequest carrying strconv's words), and booleans are lenient: only "0" and "false" are false. Then the options structs are validated
// as apimachinery validates CreateOptions, UpdateOptions, PatchOptions and DeleteOptions: 422
// Invalid naming the field. DeleteOptions bodies go through their decoding shape, as objects do.
import { forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../engine/resources/field-errors.ts';
import { apiGroupsFor } from '../../engine/resources/api-domain.ts';
import { ApiError, badRequest, invalid as invalidStatus } from '../../engine/status/errors.ts';
import { goQuote } from '../../engine/go-format.ts';
import { goParseInt64, goParseUint64 } from '../../engine/go-integer.ts';
import { queryBool } from '../request/request-info.ts';
import { DELETE_OPTIONS_SHAPE, type DeleteOptions, type PropagationPolicy } from '../../engine/registry/delete-options.ts';
import { decodeShape } from '../../engine/resources/schema-decoder.ts';
import { isRecord } from '../../engine/own-property.ts';
import { firstTypeError, type FieldValidation } from '../../engine/request/decode.ts';

/** Go's strconv.ParseInt(s, 10, 64) with its error text. */
export function parseGoInt64(text: string): number {
  const value = goParseInt64(text);
  if (typeof value !== 'bigint') throw new ApiError(badRequest(`strconv.ParseInt: parsing ${goQuote(text)}: ${value}`));
  return Number(value);
}

/** A query reader: `string`, `int`, `bool` return undefined when the parameter is absent. */
export class QueryReader {
  constructor(readonly params: URLSearchParams) {}

  string(name: string): string | undefined {
    return this.params.get(name) ?? undefined;
  }

  strings(name: string): string[] {
    return this.params.getAll(name);
  }

  int(name: string): number | undefined {
    const text = this.params.get(name);
    // An empty value decodes to the zero value, as Go's codec leaves an empty string alone.
    if (text === null || text === '') return undefined;
    return parseGoInt64(text);
  }

  /** Present means true unless it says "0" or "false" (any case); `?watch=` is true, as in Kubernetes. */
  bool(name: string): boolean | undefined {
    const text = this.params.get(name);
    return text === null ? undefined : queryBool(text);
  }
}

/** A resourceVersion the store can read: "" or a decimal uint64. */
export function checkResourceVersion(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return value;
  const parsed = goParseUint64(value);
  if (typeof parsed !== 'bigint') {
    throw new ApiError(badRequest(`resourceVersion: Invalid value: ${goQuote(value)}: strconv.ParseUint: parsing ${goQuote(value)}: ${parsed}`));
  }
  return value;
}

const FIELD_MANAGER_MAX_LENGTH = 128;
const FIELD_VALIDATION_VALUES = ['', 'Ignore', 'Strict', 'Warn'];

export function validateFieldManager(fieldManager: string): FieldError[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) errors.push(tooLong('fieldManager', fieldManager, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of fieldManager) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errors.push(invalid('fieldManager', fieldManager, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return errors;
}

function validateDryRun(dryRun: readonly string[]): FieldError[] {
  return dryRun.every((value) => value === 'All') ? [] : [notSupported('dryRun', dryRun, ['All'])];
}

function validateFieldValidation(value: string): FieldError[] {
  return FIELD_VALIDATION_VALUES.includes(value) ? [] : [notSupported('fieldValidation', value, FIELD_VALIDATION_VALUES)];
}

function optionsInvalid(kind: string, errors: FieldError[], apiDomain?: string): ApiError {
  return new ApiError(invalidStatus({ group: apiGroupsFor(apiDomain).meta, kind }, '', errors));
}

export interface WriteOptions {
  dryRun: boolean;
  /** As given; '' when absent (the handler then uses the User-Agent's product name). */
  fieldManager: string;
  fieldValidation: FieldValidation;
}

/** The manager recorded in managedFields when the request names none: the User-Agent up to the first `/`. */
export function defaultFieldManager(fieldManager: string, userAgent: string | undefined): string {
  return fieldManager !== '' ? fieldManager : (userAgent ?? '').split('/')[0]!;
}

/** CreateOptions / UpdateOptions from the query. */
export function parseWriteOptions(query: QueryReader, kind: 'CreateOptions' | 'UpdateOptions', apiDomain?: string): WriteOptions {
  const dryRun = query.strings('dryRun');
  const fieldManager = query.string('fieldManager') ?? '';
  const fieldValidation = query.string('fieldValidation') ?? '';
  const errors = [...validateDryRun(dryRun), ...validateFieldManager(fieldManager), ...validateFieldValidation(fieldValidation)];
  if (errors.length > 0) throw optionsInvalid(kind, errors, apiDomain);
  return { dryRun: dryRun.length > 0, fieldManager, fieldValidation: (fieldValidation || 'Warn') as FieldValidation };
}

export interface PatchOptions extends WriteOptions {
  force: boolean;
}

export function parsePatchOptions(query: QueryReader, isApply: boolean, apiDomain?: string): PatchOptions {
  const dryRun = query.strings('dryRun');
  const fieldManager = query.string('fieldManager') ?? '';
  const fieldValidation = query.string('fieldValidation') ?? '';
  const force = query.bool('force');
  const errors: FieldError[] = [];
  if (!isApply && force !== undefined) errors.push(forbidden('force', 'may not be specified for non-apply patch'));
  if (isApply && fieldManager === '') errors.push(required('fieldManager', 'is required for apply patch'));
  errors.push(...validateFieldManager(fieldManager), ...validateDryRun(dryRun), ...validateFieldValidation(fieldValidation));
  if (errors.length > 0) throw optionsInvalid('PatchOptions', errors, apiDomain);
  return { dryRun: dryRun.length > 0, fieldManager, fieldValidation: (fieldValidation || 'Warn') as FieldValidation, force: force ?? false };
}

/**
 * A delete body must be a DeleteOptions. Kubernetes registers DeleteOptions in every version of the
 * scheme it decodes the body with, so any apiVersion goes, but another kind does not; Kubernetes
 * then answers 500 (the decoder's error is not a Status), Fairway 400: it is the client's input.
 */
function checkDeleteOptionsKind(raw: Record<string, unknown>, metaGroup: string): void {
  const { kind, apiVersion } = raw;
  if (kind !== undefined && kind !== null && typeof kind !== 'string') {
    throw new ApiError(
      badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${typeof kind} into Go struct field .kind of type string`),
    );
  }
  if (kind === undefined || kind === null || kind === '' || kind === 'DeleteOptions') return;
  const version = typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion : `${metaGroup}/v1`;
  throw new ApiError(
    badRequest(`no kind ${goQuote(kind)} is registered for version ${goQuote(version)} in scheme "pkg/apis/meta/internalversion/scheme/register.go:27"`),
  );
}

/** A DELETE's decoded JSON/YAML body (undefined for none) and how its numbers were written (engine/go-json.ts). */
export interface DeleteBody {
  value: unknown;
  numberLiterals?: ReadonlyMap<string, string>;
}

/**
 * DeleteOptions from the body (when it has one) or else the query, as kube-apiserver reads them:
 * decoded through DeleteOptions' shape (Go's types; a field of the wrong type is the decoder's 400,
 * unknown fields are dropped), then validated (422 naming the field).
 */
export function parseDeleteOptions(query: QueryReader, { value: body, numberLiterals }: DeleteBody, apiDomain?: string): DeleteOptions {
  let raw: Record<string, unknown>;
  if (body !== undefined && body !== null) {
    if (!isRecord(body)) throw new ApiError(badRequest('json: cannot unmarshal non-object into Go value of type v1.DeleteOptions'));
    raw = body;
    checkDeleteOptionsKind(raw, apiGroupsFor(apiDomain).meta);
  } else {
    raw = {};
    const grace = query.int('gracePeriodSeconds');
    if (grace !== undefined) raw.gracePeriodSeconds = grace;
    const policy = query.string('propagationPolicy');
    if (policy !== undefined && policy !== '') raw.propagationPolicy = policy;
    const orphan = query.bool('orphanDependents');
    if (orphan !== undefined) raw.orphanDependents = orphan;
    const dryRun = query.strings('dryRun');
    if (dryRun.length > 0) raw.dryRun = dryRun;
  }
  const { value, errors: decodeErrors } = decodeShape(raw, DELETE_OPTIONS_SHAPE, '', numberLiterals);
  const typeError = firstTypeError('DeleteOptions', decodeErrors, numberLiterals);
  if (typeError !== undefined) throw new ApiError(badRequest(typeError));
  // The shape has checked every field's type.
  const decoded = value as Omit<DeleteOptions, 'dryRun' | 'propagationPolicy'> & { dryRun?: string[]; propagationPolicy?: string };
  const options: DeleteOptions = { dryRun: false };
  if (decoded.gracePeriodSeconds !== undefined) options.gracePeriodSeconds = decoded.gracePeriodSeconds;
  if (decoded.orphanDependents !== undefined) options.orphanDependents = decoded.orphanDependents;
  const errors: FieldError[] = [];
  const policy = decoded.propagationPolicy;
  if (policy !== undefined) {
    if (options.orphanDependents !== undefined)
      errors.push(invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
    if (isPropagationPolicy(policy)) options.propagationPolicy = policy;
    else errors.push(notSupported('propagationPolicy', policy, [...PROPAGATION_POLICIES, 'nil']));
  }
  if (decoded.dryRun !== undefined) {
    errors.push(...validateDryRun(decoded.dryRun));
    options.dryRun = decoded.dryRun.length > 0;
  }
  if (decoded.preconditions !== undefined) options.preconditions = decoded.preconditions;
  if (errors.length > 0) throw optionsInvalid('DeleteOptions', errors, apiDomain);
  return options;
}

const PROPAGATION_POLICIES: readonly PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];
const isPropagationPolicy = (value: string): value is PropagationPolicy => (PROPAGATION_POLICIES as readonly string[]).includes(value);
