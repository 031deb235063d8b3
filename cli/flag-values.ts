// A flag's text → its typed value. The forms accepted are pflag's (so kube-apiserver command lines
// work unchanged); the errors are plain words that say what would work, never the Go library's
// (`strconv.ParseInt: parsing "abc": invalid syntax`).
import { isIP } from 'node:net';
import { goDurationToMs, parseGoDuration } from '../engine/go-duration.ts';
import type { FlagType, FlagTypes } from './flag-table.ts';

export type FlagValueParse<T extends FlagType> = { ok: true; value: FlagTypes[T] } | { ok: false; problem: string };

const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Parses `text` as a value of `type`; a problem is a phrase about the value (`"abc" is not a number`). */
export function parseFlagValue<T extends FlagType>(type: T, text: string): FlagValueParse<T> {
  return parse(type, text) as FlagValueParse<T>;
}

function parse(type: FlagType, text: string): FlagValueParse<FlagType> {
  const quoted = JSON.stringify(text);
  switch (type) {
    case 'string':
      return { ok: true, value: text };
    case 'strings':
      return { ok: true, value: text === '' ? [] : text.split(',') };
    case 'stringArray':
      return { ok: true, value: [text] };
    case 'bool':
      if (TRUE_WORDS.has(text)) return { ok: true, value: true };
      if (FALSE_WORDS.has(text)) return { ok: true, value: false };
      return { ok: false, problem: `${quoted} is not true or false` };
    case 'int': {
      const value = parseGoInt(text);
      if (value === undefined) {
        if (/^[+-]?0\d+$/.test(text)) return { ok: false, problem: `${quoted} is not a number: a leading 0 makes it octal (digits 0 to 7)` };
        return { ok: false, problem: `${quoted} is not a ${/^[+-]?\d*\.?\d+(e[+-]?\d+)?$/i.test(text) ? 'whole ' : ''}number` };
      }
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) return { ok: false, problem: `${quoted} is too large` };
      return { ok: true, value: Number(value) };
    }
    case 'duration': {
      const duration = parseGoDuration(text);
      if (duration.ok) return { ok: true, value: goDurationToMs(duration.nanoseconds) };
      const missingUnit = /^[+-]?\d+(\.\d*)?$/.test(text);
      return { ok: false, problem: `${quoted} is not a duration${missingUnit ? ' (it needs a unit)' : ''}: write e.g. 30s, 1m30s, 250ms or 2h` };
    }
    case 'ip': {
      const trimmed = text.trim();
      if (trimmed === '' || isIP(trimmed) === 0)
        return { ok: false, problem: `${quoted} is not an IP address (a host name is not taken): write e.g. 127.0.0.1, 0.0.0.0 or ::1` };
      return { ok: true, value: trimmed };
    }
  }
}

/**
 * Go's `strconv.ParseInt(s, 0, 64)` forms, as pflag's int flags take them: an optional sign,
 * 0x/0o/0b prefixes, a leading 0 for octal, `_` between digits. Undefined when not an integer.
 */
function parseGoInt(text: string): bigint | undefined {
  const negative = text.startsWith('-');
  const unsigned = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  if (unsigned === '') return undefined;
  let base = 10;
  let digits = unsigned;
  if (unsigned.length > 1 && unsigned[0] === '0') {
    const prefix = unsigned[1]!.toLowerCase();
    base = prefix === 'x' ? 16 : prefix === 'b' ? 2 : 8;
    digits = 'xbo'.includes(prefix) ? unsigned.slice(2) : unsigned.slice(1);
  }
  if (unsigned.includes('_') && !underscoresBetweenDigits(unsigned)) return undefined;
  digits = digits.replaceAll('_', '');
  if (digits === '') return undefined;
  let magnitude = 0n;
  for (const ch of digits.toLowerCase()) {
    const digit = Number.parseInt(ch, 36);
    if (Number.isNaN(digit) || digit >= base) return undefined;
    magnitude = magnitude * BigInt(base) + BigInt(digit);
  }
  return negative ? -magnitude : magnitude;
}

/** Go's `underscoreOK`: each `_` follows a digit or the base prefix and is followed by a digit. */
function underscoresBetweenDigits(unsigned: string): boolean {
  let saw: 'start' | 'digit' | 'underscore' | 'other' = 'start';
  let i = 0;
  const hex = /^0[xX]/.test(unsigned);
  if (/^0[xXoObB]/.test(unsigned)) {
    i = 2;
    saw = 'digit';
  }
  for (; i < unsigned.length; i++) {
    const ch = unsigned[i]!;
    if (/[0-9]/.test(ch) || (hex && /[a-fA-F]/.test(ch))) saw = 'digit';
    else if (ch === '_') {
      if (saw !== 'digit') return false;
      saw = 'underscore';
    } else {
      if (saw === 'underscore') return false;
      saw = 'other';
    }
  }
  return saw !== 'underscore';
}
