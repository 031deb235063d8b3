// Typed reads from an untyped, parsed document with errors that name the field: each `read*`
// returns the value (or a fallback) and records `path: message` when the input is wrong, so a
// whole file is checked in one pass and every problem is reported, not just the first.

import { parseDurationMs } from './duration.ts';
import { formatPath, type PathSegment } from './yaml-source.ts';

export interface FieldProblem {
  path: PathSegment[];
  message: string;
}

export type Plain = Record<string, unknown>;

export function isPlain(value: unknown): value is Plain {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

export class FieldReader {
  readonly problems: FieldProblem[] = [];

  fail(path: readonly PathSegment[], message: string): void {
    this.problems.push({ path: [...path], message });
  }

  /** A mapping with only the `known` keys; undefined (and a problem) otherwise. */
  mapping(value: unknown, path: readonly PathSegment[], known: readonly string[]): Plain | undefined {
    if (!isPlain(value)) {
      this.fail(path, `must be a mapping, got ${describe(value)}`);
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) this.fail([...path, key], `unknown field (known fields: ${known.join(', ')})`);
    }
    return value;
  }

  list(value: unknown, path: readonly PathSegment[]): unknown[] | undefined {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(path, `must be a list, got ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  string(map: Plain, key: string, path: readonly PathSegment[], options: { required?: boolean; fallback?: string; allowEmpty?: boolean } = {}): string {
    const value = map[key];
    const at = [...path, key];
    if (value === undefined || value === null) {
      if (options.required === true) this.fail(at, 'required');
      return options.fallback ?? '';
    }
    if (typeof value !== 'string') {
      this.fail(at, `must be a string, got ${describe(value)}`);
      return options.fallback ?? '';
    }
    if (value === '' && options.required === true && options.allowEmpty !== true) this.fail(at, 'must not be empty');
    return value;
  }

  oneOf<T extends string>(map: Plain, key: string, path: readonly PathSegment[], allowed: readonly T[], fallback?: T): T {
    const at = [...path, key];
    const value = map[key];
    if ((value === undefined || value === null) && fallback !== undefined) return fallback;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    this.fail(at, value === undefined ? `required: one of ${allowed.join(', ')}` : `must be one of ${allowed.join(', ')}, got ${describe(value)}`);
    return fallback ?? allowed[0]!;
  }

  /** A finite number satisfying `check` (which returns the complaint, or undefined). */
  number(
    map: Plain,
    key: string,
    path: readonly PathSegment[],
    options: { required?: boolean; fallback: number; integer?: boolean; min?: number; positive?: boolean; max?: number },
  ): number {
    const at = [...path, key];
    const value = map[key];
    if (value === undefined || value === null) {
      if (options.required === true) this.fail(at, 'required');
      return options.fallback;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(at, `must be a number, got ${describe(value)}`);
      return options.fallback;
    }
    if (options.integer === true && !Number.isSafeInteger(value)) return this.bad(at, value, 'must be a whole number', options.fallback);
    if (options.positive === true && !(value > 0)) return this.bad(at, value, 'must be greater than 0', options.fallback);
    if (options.min !== undefined && value < options.min) return this.bad(at, value, `must be at least ${options.min}`, options.fallback);
    if (options.max !== undefined && value > options.max) return this.bad(at, value, `must be at most ${options.max}`, options.fallback);
    return value;
  }

  boolean(map: Plain, key: string, path: readonly PathSegment[], fallback: boolean): boolean {
    const value = map[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') {
      this.fail([...path, key], `must be true or false, got ${describe(value)}`);
      return fallback;
    }
    return value;
  }

  /** A Go duration string (`120s`, `40ms`, `1m30s`); `0` is accepted for zero. */
  duration(map: Plain, key: string, path: readonly PathSegment[], options: { required?: boolean; fallbackMs: number; positive?: boolean }): number {
    const at = [...path, key];
    const value = map[key];
    if (value === undefined || value === null) {
      if (options.required === true) this.fail(at, 'required');
      return options.fallbackMs;
    }
    if (value === 0) return this.checkDuration(at, 0, options);
    if (typeof value !== 'string') {
      this.fail(at, `must be a duration such as "40ms", "2s" or "1m30s", got ${describe(value)}`);
      return options.fallbackMs;
    }
    const parsed = parseDurationMs(value);
    if (!parsed.ok) {
      this.fail(at, `must be a duration such as "40ms", "2s" or "1m30s": ${parsed.message}`);
      return options.fallbackMs;
    }
    return this.checkDuration(at, parsed.ms, options);
  }

  /** Bytes as a number or a Kubernetes quantity with a binary or decimal suffix (`4Ki`, `16Gi`, `2G`). */
  bytes(map: Plain, key: string, path: readonly PathSegment[], options: { fallback: number; positive?: boolean }): number {
    const at = [...path, key];
    const value = map[key];
    if (value === undefined || value === null) return options.fallback;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' ? quantityBytes(value) : undefined;
    if (parsed === undefined || !Number.isFinite(parsed) || parsed < 0)
      return this.bad(at, value, 'must be a size in bytes such as 4096, "4Ki", "512Mi" or "16Gi"', options.fallback);
    if (options.positive === true && parsed === 0) return this.bad(at, value, 'must be greater than 0', options.fallback);
    // As Kubernetes reads a quantity's value: a fraction of a byte rounds up, so a positive size stays positive.
    return Math.ceil(parsed);
  }

  stringList(map: Plain, key: string, path: readonly PathSegment[], fallback: string[]): string[] {
    const at = [...path, key];
    const value = map[key];
    if (value === undefined || value === null) return fallback;
    if (!Array.isArray(value)) {
      this.fail(at, `must be a list of strings, got ${describe(value)}`);
      return fallback;
    }
    const out: string[] = [];
    value.forEach((item, i) => {
      if (typeof item === 'string') out.push(item);
      else this.fail([...at, i], `must be a string, got ${describe(item)}`);
    });
    return out;
  }

  stringMap(map: Plain, key: string, path: readonly PathSegment[]): Record<string, string> {
    const at = [...path, key];
    const value = map[key];
    if (value === undefined || value === null) return {};
    if (!isPlain(value)) {
      this.fail(at, `must be a mapping of strings, got ${describe(value)}`);
      return {};
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
      else this.fail([...at, k], `must be a string, got ${describe(v)}`);
    }
    return out;
  }

  private checkDuration(at: PathSegment[], ms: number, options: { positive?: boolean; fallbackMs: number }): number {
    if (ms < 0) return this.bad(at, ms, 'must not be negative', options.fallbackMs);
    if (options.positive === true && ms === 0) return this.bad(at, ms, 'must be longer than 0', options.fallbackMs);
    return ms;
  }

  private bad(at: PathSegment[], value: unknown, detail: string, fallback: number): number {
    this.fail(at, `${detail}, got ${describe(value)}`);
    return fallback;
  }
}

const QUANTITY = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/;
const SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

function quantityBytes(text: string): number | undefined {
  const m = QUANTITY.exec(text);
  return m === null ? undefined : Number(m[1]) * (m[2] === undefined ? 1 : SUFFIX[m[2]]!);
}

export { formatPath };
