// v1 defaulting of the flowcontrol kinds (pkg/apis/flowcontrol/v1/defaults.go). kube-apiserver
// applies it to every object it decodes, before validation and before storing, so a stored
// object always carries these values. Both functions return a defaulted deep copy and leave the
// input alone.
//
// Only nil means "use the default": an explicit limited.nominalConcurrencyShares of 0 stays 0 (a
// level that runs on borrowed seats only). Neither spec.type nor limitResponse.type is defaulted,
// and a type Exempt level without spec.exempt keeps it nil.

import type { FlowSchema, PriorityLevelConfiguration } from './types.ts';

export const FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE = 1000;
export const PRIORITY_LEVEL_DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30;
export const PRIORITY_LEVEL_DEFAULT_QUEUES = 64;
export const PRIORITY_LEVEL_DEFAULT_HAND_SIZE = 8;
export const PRIORITY_LEVEL_DEFAULT_QUEUE_LENGTH_LIMIT = 50;

export function defaultFlowSchema(obj: FlowSchema): FlowSchema {
  const copy = structuredClone(obj);
  if (!isObject(copy)) return copy;
  // The spec is a struct, not a pointer, in Go: it always exists and always gets the default.
  if (isNil(copy.spec)) copy.spec = {};
  const spec = copy.spec;
  if (!isObject(spec)) return copy; // not a spec at all: validation reports it
  if (isZero(spec.matchingPrecedence)) spec.matchingPrecedence = FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE;
  return copy;
}

export function defaultPriorityLevelConfiguration(obj: PriorityLevelConfiguration): PriorityLevelConfiguration {
  const copy = structuredClone(obj);
  if (!isObject(copy)) return copy;
  const spec = copy.spec;
  if (!isObject(spec)) return copy;

  const limited = spec.limited;
  if (isObject(limited)) {
    if (isNil(limited.nominalConcurrencyShares)) limited.nominalConcurrencyShares = PRIORITY_LEVEL_DEFAULT_NOMINAL_CONCURRENCY_SHARES;
    if (isNil(limited.lendablePercent)) limited.lendablePercent = 0;
    const queuing = limited.limitResponse?.queuing;
    if (isObject(queuing)) {
      if (isZero(queuing.handSize)) queuing.handSize = PRIORITY_LEVEL_DEFAULT_HAND_SIZE;
      if (isZero(queuing.queues)) queuing.queues = PRIORITY_LEVEL_DEFAULT_QUEUES;
      if (isZero(queuing.queueLengthLimit)) queuing.queueLengthLimit = PRIORITY_LEVEL_DEFAULT_QUEUE_LENGTH_LIMIT;
    }
  }

  const exempt = spec.exempt;
  if (isObject(exempt)) {
    if (isNil(exempt.nominalConcurrencyShares)) exempt.nominalConcurrencyShares = 0;
    if (isNil(exempt.lendablePercent)) exempt.lendablePercent = 0;
  }
  return copy;
}

/** A pointer field that Go would see as nil. */
function isNil(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/** A plain int32 field that Go would see as 0 (missing and null decode to 0). */
function isZero(value: unknown): boolean {
  return isNil(value) || value === 0;
}

function isObject<T extends object>(value: T | null | undefined): value is T {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
