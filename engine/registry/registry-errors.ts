// The registry's error registry. A write the registry refuses before the store sees it is a
// `RegistryError` with a stable code (`FW_ERR_REGISTRY_*`) and the facts the refusal rests on (the
// field errors, the admission plugin's rejection); how it reads on the wire (HTTP code, Status
// reason and wording) is the API edge's business (api/engine-errors.ts), as for the store's errors.
//
// Codes are never reused or renamed: docs/errors.md lists them. Add new codes at the end.
import type { AdmissionAttributes, AdmissionRejection } from '../auth/admission/admission.ts';
import { formatFieldErrors, type FieldError } from '../resources/field-errors.ts';

export type RegistryErrorFacts =
  /** Validation found field errors in the object about to be stored. */
  | { code: 'FW_ERR_REGISTRY_INVALID'; group: string; kind: string; name: string; errors: readonly FieldError[] }
  /** A create whose object names a resourceVersion. */
  | { code: 'FW_ERR_REGISTRY_RESOURCE_VERSION_ON_CREATE' }
  /** A validating admission plugin refused the write. */
  | { code: 'FW_ERR_REGISTRY_ADMISSION_REJECTED'; rejection: AdmissionRejection; attributes: AdmissionAttributes };

export type RegistryErrorCode = RegistryErrorFacts['code'];

export const REGISTRY_ERROR_CODES: readonly RegistryErrorCode[] = [
  'FW_ERR_REGISTRY_INVALID',
  'FW_ERR_REGISTRY_RESOURCE_VERSION_ON_CREATE',
  'FW_ERR_REGISTRY_ADMISSION_REJECTED',
];

const BRAND = Symbol.for('fairway.RegistryError');

export class RegistryError extends Error {
  readonly [BRAND] = true;
  readonly facts: RegistryErrorFacts;

  constructor(facts: RegistryErrorFacts) {
    super(describe(facts));
    this.name = 'RegistryError';
    this.facts = facts;
  }

  get code(): RegistryErrorCode {
    return this.facts.code;
  }
}

/** Identifies a RegistryError by brand, so it survives module duplication (as the store's errors do). */
export function isRegistryError(error: unknown): error is RegistryError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

function describe(facts: RegistryErrorFacts): string {
  switch (facts.code) {
    case 'FW_ERR_REGISTRY_INVALID':
      return `${facts.kind} ${JSON.stringify(facts.name)} is invalid: ${formatFieldErrors(facts.errors)}`;
    case 'FW_ERR_REGISTRY_RESOURCE_VERSION_ON_CREATE':
      return 'resourceVersion should not be set on objects to be created';
    case 'FW_ERR_REGISTRY_ADMISSION_REJECTED':
      return `admission refused ${facts.attributes.operation} of ${JSON.stringify(facts.attributes.name)}: ${facts.rejection.message}`;
  }
}
