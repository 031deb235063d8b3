// Which registered watches a mutating request will wake (apf-semantics 7.5): the mutating work
// estimator charges extra seats per ten interested watches. Pure bookkeeping, no I/O.

import type { RequestInfo } from '../request/request-info.ts';

/** The RequestInfo fields the registry reads. */
export type WatchTarget = Pick<RequestInfo, 'verb' | 'apiGroup' | 'resource' | 'namespace' | 'name'>;

/** Verbs that cannot emit watch events. */
export const READ_ONLY_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch', 'proxy']);

/**
 * The one built-in index: pods by node. A watch on one exact node is not counted against pod
 * writes. Keyed by resource name alone, whatever the group, as upstream keys it.
 */
const INDEXED_FIELDS: ReadonlyMap<string, string> = new Map([['pods', 'spec.nodeName']]);

function watchKey(apiGroup: string, resource: string, namespace: string, name: string): string {
  return `${apiGroup}\u0000${resource}\u0000${namespace}\u0000${name}`;
}

export class InterestedWatches {
  private readonly counts = new Map<string, number>();

  /**
   * Count a watch that has started executing. Non-watch requests and watches narrowed to one
   * value of an indexed field are ignored. Returns the matching `forget`, safe to call twice.
   */
  register(info: WatchTarget, fieldSelector = ''): () => void {
    const key = this.countedKey(info, fieldSelector);
    if (key === undefined) return noop;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let forgotten = false;
    return () => {
      if (forgotten) return;
      forgotten = true;
      this.decrement(key);
    };
  }

  /** Undo one `register` with the same arguments (for callers that do not keep the closure). */
  unregister(info: WatchTarget, fieldSelector = ''): void {
    const key = this.countedKey(info, fieldSelector);
    if (key !== undefined) this.decrement(key);
  }

  /**
   * Watches a write to this target would notify: those on the whole resource, on its namespace
   * and on the object itself. Reads notify nobody.
   */
  countInterested(info: WatchTarget): number {
    if (READ_ONLY_VERBS.has(info.verb)) return 0;
    const { apiGroup: g, resource: r } = info;
    const ns = info.namespace;
    let total = this.counts.get(watchKey(g, r, '', '')) ?? 0;
    if (ns !== '') total += this.counts.get(watchKey(g, r, ns, '')) ?? 0;
    if (info.name !== '') total += this.counts.get(watchKey(g, r, ns, info.name)) ?? 0;
    return total;
  }

  /** Total number of counted watches. */
  get size(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  private countedKey(info: WatchTarget, fieldSelector: string): string | undefined {
    if (info.verb !== 'watch') return undefined;
    const indexedField = INDEXED_FIELDS.get(info.resource);
    if (indexedField !== undefined) {
      const value = exactFieldMatch(fieldSelector, indexedField);
      if (value !== undefined && value !== '') return undefined;
    }
    return watchKey(info.apiGroup, info.resource, info.namespace, info.name);
  }

  private decrement(key: string): void {
    const n = (this.counts.get(key) ?? 0) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}

function noop(): void {}

/**
 * The value a field selector requires `field` to equal (`field=v` or `field==v`), like
 * `fields.Selector.RequiresExactMatch`; `undefined` when it does not pin the field or does not
 * parse. Terms are sorted first, as the upstream parser does, so the first match is deterministic.
 */
export function exactFieldMatch(selector: string, field: string): string | undefined {
  const terms = splitUnescaped(selector, ',').sort();
  let found: string | undefined;
  for (const term of terms) {
    if (term === '') continue;
    const parsed = splitTerm(term);
    if (parsed === undefined) return undefined;
    const value = unescapeValue(parsed.rhs);
    if (value === undefined) return undefined;
    if (found === undefined && parsed.lhs === field && parsed.op !== '!=') found = value;
  }
  return found;
}

/** Split on `sep` where it is not preceded by a backslash escape; escapes are kept for later. */
function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === sep) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(s: string): string | undefined {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      if (c === ',' || c === '=') return undefined; // unescaped special characters are invalid
      out += c;
      continue;
    }
    const next = s[i + 1];
    if (next !== '\\' && next !== ',' && next !== '=') return undefined;
    out += next;
    i++;
  }
  return out;
}
