// PriorityLevelConfiguration validation (pkg/apis/flowcontrol/validation), run on the *defaulted*
// object as kube-apiserver does. Order: ObjectMeta, the forbidden v1beta3 annotation, the spec,
// the mandatory-object check, the status. Rule ids in comments (P0..P7, L1..L3, LR1..LR3, Q1..Q6,
// M2, M3) are those of the APF semantics fact sheet, section 3.3.
//
// v1.32 accepts a zero limited.nominalConcurrencyShares on create and update (only negatives
// fail), and a borrowingLimitPercent of 0. Two messages keep Kubernetes' wording slips ("is not
// Limited" where "Queue" was meant) because clients match on the text.

import type {
  ExemptPriorityLevelConfiguration,
  LimitedPriorityLevelConfiguration,
  LimitResponse,
  PriorityLevelConfiguration,
  PriorityLevelConfigurationSpec,
  QueuingConfiguration,
} from './types.ts';
import { PRESERVE_ZERO_CONCURRENCY_SHARES_ANNOTATION_KEY, PRIORITY_LEVEL_KIND, PRIORITY_LEVEL_NAME_CATCH_ALL, PRIORITY_LEVEL_NAME_EXEMPT } from './types.ts';
import type { FieldError } from './field-errors.ts';
import { FieldPath, addFieldError, addFieldErrors, forbidden, invalid, notSupported, required } from './field-errors.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.ts';
import { validateConditions } from './status-validation.ts';
import { mandatoryObject } from './bootstrap.ts';
import { defaultPriorityLevelConfiguration } from './defaults.ts';
import { priorityLevelSpecsEqual } from './spec-equality.ts';
// As in Kubernetes, validation asks the shuffle-sharding package what a dealer can accept.
import { MAX_HASH_BITS, requiredEntropyBits } from '../shuffle-sharding.ts';

/** Upper bound on `queuing.queues` (10^7). */
export const QUEUES_MAX = 10_000_000;
/** Shuffle sharding draws a hand from 64-bit hashes; validation keeps a margin below that. */

export function validatePriorityLevelConfiguration(plc: PriorityLevelConfiguration): FieldError[] {
  const name = plc.metadata?.name ?? '';
  const spec: PriorityLevelConfigurationSpec = plc.spec ?? {};
  const specPath = FieldPath.root('spec');
  const errors = validateObjectMeta(plc.metadata, 'metadata');
  const annotations = plc.metadata?.annotations;
  if (annotations !== undefined && annotations !== null && Object.hasOwn(annotations, PRESERVE_ZERO_CONCURRENCY_SHARES_ANNOTATION_KEY)) {
    // P0: the v1beta3 round-trip marker must never reach a stored object.
    addFieldError(
      errors,
      forbidden(FieldPath.root('metadata').child('annotations'), `annotation '${PRESERVE_ZERO_CONCURRENCY_SHARES_ANNOTATION_KEY}' is forbidden`),
    );
  }
  addFieldErrors(errors, validateSpec(spec, name, specPath));
  addFieldErrors(errors, validateMandatory(name, spec, specPath));
  addFieldErrors(errors, validateConditions(plc.status));
  return errors;
}

/** Update: the ObjectMeta update rules, then the whole object again (Kubernetes has no spec immutability here). */
export function validatePriorityLevelConfigurationUpdate(plc: PriorityLevelConfiguration, old: PriorityLevelConfiguration): FieldError[] {
  return addFieldErrors(validateObjectMetaUpdate(plc.metadata, old.metadata, 'metadata'), validatePriorityLevelConfiguration(plc));
}

/** `/status` update: the ObjectMeta update rules and the status alone. */
export function validatePriorityLevelConfigurationStatusUpdate(plc: PriorityLevelConfiguration, old: PriorityLevelConfiguration): FieldError[] {
  return addFieldErrors(validateObjectMetaUpdate(plc.metadata, old.metadata, 'metadata'), validateConditions(plc.status));
}

function validateSpec(spec: PriorityLevelConfigurationSpec, name: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const type = spec.type ?? '';
  if ((name === PRIORITY_LEVEL_NAME_EXEMPT) !== (type === 'Exempt')) {
    addFieldError(errors, invalid(path.child('type'), type, "type must be 'Exempt' if and only if name is 'exempt'")); // P1
  }
  switch (type) {
    case 'Exempt':
      if (isSet(spec.limited)) addFieldError(errors, forbidden(path.child('limited'), 'must be nil if the type is not Limited')); // P2
      if (isSet(spec.exempt)) addFieldErrors(errors, validateExempt(spec.exempt, path.child('exempt')));
      break;
    case 'Limited':
      if (isSet(spec.exempt)) addFieldError(errors, forbidden(path.child('exempt'), 'must be nil if the type is Limited')); // P5
      if (isSet(spec.limited)) addFieldErrors(errors, validateLimited(spec.limited, path.child('limited')));
      else addFieldError(errors, required(path.child('limited'), 'must not be empty when type is Limited')); // P6
      break;
    default:
      addFieldError(errors, notSupported(path.child('type'), type, ['Exempt', 'Limited'])); // P7
  }
  return errors;
}

function validateExempt(exempt: ExemptPriorityLevelConfiguration, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const shares = exempt.nominalConcurrencyShares;
  if (isSet(shares) && shares < 0) addFieldError(errors, invalid(path.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer')); // P3
  const lendable = exempt.lendablePercent;
  if (isSet(lendable) && !(lendable >= 0 && lendable <= 100)) {
    addFieldError(errors, invalid(path.child('lendablePercent'), lendable, 'must be between 0 and 100, inclusive')); // P4
  }
  return errors;
}

function validateLimited(limited: LimitedPriorityLevelConfiguration, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  // The internal type holds a plain int32, so a (never defaulted) nil reads as 0.
  const shares = limited.nominalConcurrencyShares ?? 0;
  if (shares < 0) addFieldError(errors, invalid(path.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer')); // L1
  addFieldErrors(errors, validateLimitResponse(limited.limitResponse ?? {}, path.child('limitResponse')));
  const lendable = limited.lendablePercent;
  if (isSet(lendable) && !(lendable >= 0 && lendable <= 100)) {
    addFieldError(errors, invalid(path.child('lendablePercent'), lendable, 'must be between 0 and 100, inclusive')); // L2
  }
  const borrowing = limited.borrowingLimitPercent;
  if (isSet(borrowing) && borrowing < 0) {
    addFieldError(errors, invalid(path.child('borrowingLimitPercent'), borrowing, 'if specified, must be a non-negative integer')); // L3
  }
  return errors;
}

function validateLimitResponse(response: LimitResponse, path: FieldPath): FieldError[] {
  switch (response.type) {
    case 'Reject':
      return isSet(response.queuing) ? [forbidden(path.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited')] : []; // LR1
    case 'Queue':
      return isSet(response.queuing)
        ? validateQueuing(response.queuing, path.child('queuing'))
        : [required(path.child('queuing'), 'must not be empty if limited.limitResponse.type is Limited')]; // LR2
    default:
      return [notSupported(path.child('type'), response.type ?? '', ['Queue', 'Reject'])]; // LR3
  }
}

function validateQueuing(queuing: QueuingConfiguration, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const queueLengthLimit = queuing.queueLengthLimit ?? 0;
  const queues = queuing.queues ?? 0;
  const handSize = queuing.handSize ?? 0;
  if (queueLengthLimit <= 0) addFieldError(errors, invalid(path.child('queueLengthLimit'), queueLengthLimit, 'must be positive')); // Q1
  // The queue count and the hand size are judged separately: one spec may break both.
  if (queues <= 0)
    addFieldError(errors, invalid(path.child('queues'), queues, 'must be positive')); // Q2
  else if (queues > QUEUES_MAX) addFieldError(errors, invalid(path.child('queues'), queues, `must not be greater than ${QUEUES_MAX}`)); // Q3
  if (handSize <= 0)
    addFieldError(errors, invalid(path.child('handSize'), handSize, 'must be positive')); // Q4
  else if (handSize > queues)
    addFieldError(errors, invalid(path.child('handSize'), handSize, `should not be greater than queues (${queues})`)); // Q5
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    addFieldError(
      errors,
      invalid(
        path.child('handSize'),
        handSize,
        `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`,
      ),
    ); // Q6
  }
  return errors;
}

function validateMandatory(name: string, spec: PriorityLevelConfigurationSpec, path: FieldPath): FieldError[] {
  const mandatory = mandatoryObject(PRIORITY_LEVEL_KIND, name);
  if (mandatory === undefined) return [];
  const fixed = defaultPriorityLevelConfiguration(mandatory).spec;
  if (name === PRIORITY_LEVEL_NAME_EXEMPT) {
    // Operators may tune spec.exempt of the exempt level; everything else is fixed.
    if (!priorityLevelSpecsEqual(fixed, { ...spec, exempt: fixed?.exempt ?? null })) {
      return [invalid(path, spec, `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`)]; // M2
    }
    return [];
  }
  if (name === PRIORITY_LEVEL_NAME_CATCH_ALL && !priorityLevelSpecsEqual(fixed, spec)) {
    return [invalid(path, spec, `spec of '${name}' must equal the fixed value`)]; // M3
  }
  return [];
}

function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
