// Checks of list and watch options, with kube-apiserver's wording: the handler's ListOptions
// validation (422 Invalid), resourceVersion parsing (strconv.ParseUint), selectors (400), and the
// continue/resourceVersion combination rule (400).

import { forbidden, notSupported, type FieldError } from '../resources/field-errors.ts';
import { goParseUint64 } from '../go-integer.ts';
import { EVERYTHING_FIELDS, parseFieldSelector, type FieldSelector } from './field-selector.ts';
import { EVERYTHING_LABELS, parseLabelSelector, type LabelSelector } from './label-selector.ts';
import { badRequestError, invalidListOptionsError, invalidResourceVersionError } from './store-errors.ts';
import type { ListOptions, WatchOptions } from './store-types.ts';
import type { ObjectFilter } from './watcher.ts';

/** "" and "0" are 0; otherwise a decimal uint64 (Go's ParseUint rules: no sign, no spaces). */
export function parseResourceVersion(value: string | undefined): number {
  if (value === undefined || value === '' || value === '0') return 0;
  const parsed = goParseUint64(value);
  if (typeof parsed !== 'bigint') throw invalidResourceVersionError(value, parsed === 'value out of range');
  // Versions past 2^53 cannot be exact here, but they are above every revision this store will
  // reach, which is all that matters (they wait, then time out as "too large").
  return Number(parsed);
}

export function validateListOptions(options: ListOptions, metaGroup?: string): void {
  const errors: FieldError[] = [];
  const match = options.resourceVersionMatch ?? '';
  if (match.length > 0) {
    if ((options.resourceVersion ?? '') === '') {
      errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if ((options.continue ?? '') !== '') {
      errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errors.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && options.resourceVersion === '0') {
      errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (options.sendInitialEvents !== undefined) errors.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (errors.length > 0) throw invalidListOptionsError(errors, metaGroup);
  const rv = options.resourceVersion ?? '';
  if ((options.continue ?? '') !== '' && rv !== '' && rv !== '0') {
    throw badRequestError('FW_ERR_STORE_BAD_CONTINUE', 'specifying resource version is not allowed when using continue');
  }
}

export function validateWatchOptions(options: WatchOptions, metaGroup?: string): void {
  const errors: FieldError[] = [];
  const match = options.resourceVersionMatch ?? '';
  if (options.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errors.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match.length > 0) {
    if (options.sendInitialEvents === undefined) {
      errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errors.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
  }
  if (errors.length > 0) throw invalidListOptionsError(errors, metaGroup);
}

export interface Selection {
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  /** undefined when everything matches. */
  readonly filter: ObjectFilter;
}

export function parseSelection(labelSelector: string | undefined, fieldSelector: string | undefined): Selection {
  const labels = labelSelector === undefined || labelSelector === '' ? EVERYTHING_LABELS : parseLabelSelector(labelSelector);
  const fields = fieldSelector === undefined || fieldSelector === '' ? EVERYTHING_FIELDS : parseFieldSelector(fieldSelector);
  if (labels.empty && fields.empty) return { labels, fields, filter: undefined };
  return {
    labels,
    fields,
    filter: (cached) =>
      (labels.empty || labels.matches(cached.labels)) &&
      (fields.empty || fields.matches({ name: cached.name, namespace: cached.object.metadata?.namespace ?? '' })),
  };
}
