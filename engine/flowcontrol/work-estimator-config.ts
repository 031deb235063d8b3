// The work estimator's tunables: Kubernetes' `WorkEstimatorConfig`
// (k8s.io/apiserver/pkg/util/flowcontrol/request/config.go). kube-apiserver compiles in
// DefaultWorkEstimatorConfig() and offers no flag; Fairway reads the same struct, in its JSON
// form, from `--apf-work-estimator-config-file` and from a scenario's `server.workEstimator`.
// A field left out keeps Kubernetes' default. Pure: decoding returns field errors, no I/O.

import type { FieldError } from '../resources/field-errors.ts';
import { FieldPath, forbidden, invalid, typeInvalid } from '../resources/field-errors.ts';
import { goDurationToMs, parseGoDuration } from '../go-duration.ts';

export interface WorkEstimatorConfig {
  /** MinimumSeats: the fewest seats a request occupies. */
  minimumSeats: number;
  /** MaximumSeatsLimit: no request occupies more, whatever its level's maxSeats. */
  maximumSeatsLimit: number;
  /** ListWorkEstimatorConfig.ObjectsPerSeat: objects a LIST touches per seat. */
  objectsPerSeat: number;
  /** MutatingWorkEstimatorConfig.Enabled: writes are charged for the watch events they cause. */
  mutatingEnabled: boolean;
  /** MutatingWorkEstimatorConfig.EventAdditionalDuration: the time one event holds a seat. */
  eventAdditionalDurationMs: number;
  /** MutatingWorkEstimatorConfig.WatchesPerSeat: watchers per extra seat. */
  watchesPerSeat: number;
}

/** DefaultWorkEstimatorConfig(). */
export const DEFAULT_WORK_ESTIMATOR_CONFIG: Readonly<WorkEstimatorConfig> = Object.freeze({
  minimumSeats: 1,
  maximumSeatsLimit: 10,
  objectsPerSeat: 100,
  mutatingEnabled: true,
  eventAdditionalDurationMs: 5,
  watchesPerSeat: 10,
});

/** Seats are uint64 in Go; anything beyond this would not be a sensible seat count anyway. */
const MAX_SEATS = 1_000_000;

/**
 * Decodes the JSON form (Go's field tags):
 * `{minimumSeats, maximumSeatsLimit, listWorkEstimatorConfig: {objectsPerSeat},
 *   mutatingWorkEstimatorConfig: {enable, eventAdditionalDurationMs, watchesPerSeat}}`.
 * `eventAdditionalDurationMs` is a metav1.Duration despite its name: a Go duration string ("5ms").
 * Field paths start at `root`.
 */
export function decodeWorkEstimatorConfig(value: unknown, root = ''): { config: WorkEstimatorConfig; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const config: WorkEstimatorConfig = { ...DEFAULT_WORK_ESTIMATOR_CONFIG };
  const path = FieldPath.root(root);
  const top = object(value, path, errors, ['minimumSeats', 'maximumSeatsLimit', 'listWorkEstimatorConfig', 'mutatingWorkEstimatorConfig']);
  if (top === undefined) return { config, errors };

  config.minimumSeats = seatCount(top, 'minimumSeats', path, errors) ?? config.minimumSeats;
  config.maximumSeatsLimit = seatCount(top, 'maximumSeatsLimit', path, errors) ?? config.maximumSeatsLimit;
  if (config.maximumSeatsLimit < config.minimumSeats) {
    errors.push(invalid(path.child('maximumSeatsLimit'), config.maximumSeatsLimit, `must not be less than minimumSeats (${config.minimumSeats})`));
  }

  const listPath = path.child('listWorkEstimatorConfig');
  const list = object(top.listWorkEstimatorConfig, listPath, errors, ['objectsPerSeat']);
  if (list !== undefined) config.objectsPerSeat = positive(list, 'objectsPerSeat', listPath, errors) ?? config.objectsPerSeat;

  const mutatingPath = path.child('mutatingWorkEstimatorConfig');
  const mutating = object(top.mutatingWorkEstimatorConfig, mutatingPath, errors, ['enable', 'eventAdditionalDurationMs', 'watchesPerSeat']);
  if (mutating !== undefined) {
    if (mutating.enable !== undefined) {
      if (typeof mutating.enable === 'boolean') config.mutatingEnabled = mutating.enable;
      else errors.push(typeInvalid(mutatingPath.child('enable'), mutating.enable, 'must be of type boolean'));
    }
    const duration = mutating.eventAdditionalDurationMs;
    if (duration !== undefined) {
      const at = mutatingPath.child('eventAdditionalDurationMs');
      const parsed = typeof duration === 'string' ? parseGoDuration(duration) : undefined;
      if (parsed === undefined) errors.push(typeInvalid(at, duration, 'must be a duration string such as "5ms"'));
      else if (!parsed.ok) errors.push(invalid(at, duration, parsed.error));
      else if (parsed.nanoseconds < 0n) errors.push(invalid(at, duration, 'must not be negative'));
      else config.eventAdditionalDurationMs = goDurationToMs(parsed.nanoseconds);
    }
    config.watchesPerSeat = positive(mutating, 'watchesPerSeat', mutatingPath, errors) ?? config.watchesPerSeat;
  }
  return { config, errors };
}

function object(value: unknown, path: FieldPath, errors: FieldError[], known: readonly string[]): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    errors.push(typeInvalid(path, value, 'must be of type object'));
    return undefined;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!known.includes(key)) errors.push(forbidden(path.child(key), 'unknown field'));
  return record;
}

function seatCount(record: Record<string, unknown>, key: string, path: FieldPath, errors: FieldError[]): number | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_SEATS) {
    errors.push(invalid(path.child(key), value, `must be an integer from 1 to ${MAX_SEATS}`));
    return undefined;
  }
  return value as number;
}

function positive(record: Record<string, unknown>, key: string, path: FieldPath, errors: FieldError[]): number | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    errors.push(invalid(path.child(key), value, 'must be a number greater than 0'));
    return undefined;
  }
  return value;
}
