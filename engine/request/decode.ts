// Decoding a request's object the way kube-apiserver's codec does before anything else looks at it:
// the apiVersion and kind must be the endpoint's (or absent), every field must have the Go type,
// and unknown or duplicate fields are handled by `fieldValidation`: Strict fails with 400,
// Warn (the default) drops them and returns one warning per field, Ignore drops them silently.
import type { Shape } from '../resources/schema-decoder.ts';
import type { FieldError } from '../resources/field-errors.ts';
import { decodeShape } from '../resources/schema-decoder.ts';
import { isRecord } from '../own-property.ts';
import { flowcontrolKind } from '../resources/kinds.ts';
import { decodingShape } from '../resources/schema/decoding-shape.ts';
import type { KubeObject } from '../resources/types.ts';
import { FLOWCONTROL_VERSION } from '../resources/api-domain.ts';
import { ApiError, badRequest, malformedBody, strictDecoding } from '../status/errors.ts';
import { goQuote } from '../go-format.ts';
import { goJsonTypeName } from '../go-json.ts';

/** `fieldValidation`: what decoding does with unknown and duplicate fields. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface DecodeTarget {
  kind: string;
  /** `flowcontrol.apiserver.k8s.io/v1`. */
  apiVersion: string;
}

export interface Decoded {
  object: KubeObject;
  /** Warning texts for `fieldValidation=Warn`. */
  warnings: string[];
}

export interface DecodeInput {
  value: unknown;
  /** Repeated keys the body's text held, worded for strict decoding (body.ts ParsedBody). */
  duplicates?: readonly string[];
  yamlDuplicates?: readonly string[];
  /** How numbers were written in JSON text, where that differs from their value (body.ts ParsedBody). */
  numberLiterals?: ReadonlyMap<string, string>;
}

/** The decoding shape of a served kind, from its table. */
export function shapeOf(kind: string): Shape {
  const info = flowcontrolKind(kind);
  if (info === undefined) throw new Error(`no table for kind ${kind}`);
  return decodingShape(info.table.struct);
}

/** The typed object in `input` (unknown fields dropped), or a 400 Status. */
export function decodeObject(input: DecodeInput, target: DecodeTarget, fieldValidation: FieldValidation): Decoded {
  const { value } = input;
  if (value === undefined) throw new ApiError(badRequest("couldn't get version/kind; json parse error: unexpected end of JSON input"));
  if (!isRecord(value)) {
    const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    throw new ApiError(
      badRequest(
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${type} into Go value of type struct { APIVersion string ` +
          '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
      ),
    );
  }
  checkTypeMeta(value, target);

  const { value: decoded, errors } = decodeShape(value, shapeOf(target.kind), '', input.numberLiterals);
  const unknown = errors.filter(isUnknownField).map((e) => `unknown field ${goQuote(e.field)}`);
  const typeError = firstTypeError(target.kind, errors, input.numberLiterals);
  if (typeError !== undefined) throw new ApiError(malformedBody(target.kind, FLOWCONTROL_VERSION, typeError));
  // go-yaml's text comes first, then what the JSON decoder finds, as in apimachinery's strict decoding.
  const problems = [...(input.yamlDuplicates ?? []), ...unknown, ...(input.duplicates ?? [])];
  if (problems.length > 0 && fieldValidation === 'Strict') throw new ApiError(strictDecoding(target.kind, FLOWCONTROL_VERSION, problems));
  const object = decoded as KubeObject;
  object.kind = target.kind;
  object.apiVersion = target.apiVersion;
  // go-yaml's text spans lines, which a Warning header cannot carry (Kubernetes drops that warning):
  // it goes out on one line.
  return { object, warnings: fieldValidation === 'Warn' ? problems.map((p) => p.replace(/\n\s*/g, ' ')) : [] };
}

const isUnknownField = (e: FieldError): boolean => e.type === 'FieldValueForbidden' && e.detail === 'unknown field';

/**
 * Go's json wording for the first field of the wrong type among `errors` (decodeShape's), e.g.
 * `json: cannot unmarshal string into Go struct field PriorityLevelConfiguration.spec.limited.nominalConcurrencyShares of type int32`,
 * or undefined when every field has its type. A number bound for an integer field is named as it
 * was written (`number 5e3`), as Go names it; `numberLiterals` has the literals that differ from
 * JavaScript's own rendering.
 */
export function firstTypeError(kind: string, errors: readonly FieldError[], numberLiterals?: ReadonlyMap<string, string>): string | undefined {
  const first = errors.find((e) => !isUnknownField(e));
  if (first === undefined) return undefined;
  // A value of the right JSON type that its Go type's decoder refused (a time that does not parse): its own words.
  if (first.type === 'FieldValueInvalid') return first.detail;
  const goType = first.detail.replace(/^must be of type /, '');
  let got = goJsonTypeName(first.value);
  if (typeof first.value === 'number' && /^u?int/.test(goType)) got = `number ${numberLiterals?.get(first.field) ?? String(first.value)}`;
  return `json: cannot unmarshal ${got} into Go struct field ${kind}.${first.field} of type ${goType}`;
}

/** The body's apiVersion and kind, when given, must be the endpoint's. */
function checkTypeMeta(value: Record<string, unknown>, target: DecodeTarget): void {
  const { apiVersion, kind } = value;
  if (apiVersion !== undefined && apiVersion !== null && apiVersion !== '' && apiVersion !== target.apiVersion) {
    throw new ApiError(badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${target.apiVersion})`));
  }
  if (kind !== undefined && kind !== null && kind !== '' && kind !== target.kind) {
    const version = target.apiVersion.split('/').pop()!;
    throw new ApiError(
      badRequest(
        `${String(kind)} in version ${goQuote(version)} cannot be handled as a ${target.kind}: converting (${version}.${String(kind)}) to (${version}` +
          `.${target.kind}): unknown conversion`,
      ),
    );
  }
}
