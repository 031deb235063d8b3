// Durations in scenario files, audit annotations and `?timeout=` parameters are Go durations
// (`40ms`, `2s`, `1m30s`), parsed exactly as Go does (engine/go-duration.ts); the
// simulator works in (possibly fractional) milliseconds.

import { goDurationToMs, parseGoDuration } from '../engine/go-duration.ts';

export type DurationParse = { ok: true; ms: number } | { ok: false; message: string };

export function parseDurationMs(text: string): DurationParse {
  const parsed = parseGoDuration(text);
  return parsed.ok ? { ok: true, ms: goDurationToMs(parsed.nanoseconds) } : { ok: false, message: parsed.error };
}
