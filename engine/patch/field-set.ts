// Sets of field paths, as structured-merge-diff keeps them for server-side apply and as the
// `fieldsV1` of a managedFields entry encodes them. A path element is kept in its fieldsV1 spelling,
// so a set prints back byte for byte:
//   `f:<name>`   a struct field or a map key
//   `k:<json>`   an item of a map-type list, by its key fields (`k:{"type":"Dangling"}`)
//   `v:<json>`   an item of a set-type list, by value
//   `i:<n>`      an item of a positional list
// A set is a tree. `members` are the elements owned at this level; `children` hold the owned paths
// below an element. An element can be both (fieldsV1 writes that as `".": {}` inside the child).
// Order matters only on output, and follows Go: field names, then keys, then values, then indexes,
// each ascending; strings compare as Go compares them (bytewise UTF-8).

import { isRecord, ownValue, setOwn } from '../own-property.ts';

export type PathElement = string;
export type FieldPath = readonly PathElement[];

export class FieldsV1Error extends Error {
  override readonly name = 'FieldsV1Error';
}

export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  static of(paths: Iterable<FieldPath>): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** Adds one path; the set is built in place (the algebra below returns new sets). */
  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const element = path[i]!;
      let child = node.children.get(element);
      if (child === undefined) {
        child = new FieldSet();
        node.children.set(element, child);
      }
      node = child;
    }
    node.members.add(path[path.length - 1]!);
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node !== undefined; i++) node = node.children.get(path[i]!);
    return node?.members.has(path[path.length - 1]!) ?? false;
  }

  /** The subtree under one element (empty when there is none). */
  withPrefix(element: PathElement): FieldSet {
    return this.children.get(element) ?? new FieldSet();
  }

  isEmpty(): boolean {
    if (this.members.size > 0) return false;
    for (const child of this.children.values()) if (!child.isEmpty()) return false;
    return true;
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const m of other.members) out.members.add(m);
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      out.setChild(element, theirs === undefined ? child.union(new FieldSet()) : child.union(theirs));
    }
    for (const [element, child] of other.children) {
      if (!this.children.has(element)) out.setChild(element, child.union(new FieldSet()));
    }
    return out;
  }

  /** Members owned by both, at every level. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      if (theirs !== undefined) out.setChild(element, child.intersection(theirs));
    }
    return out;
  }

  /** Removes the other's members level by level; a removed member keeps its children (Go `Difference`). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      out.setChild(element, theirs === undefined ? child.union(new FieldSet()) : child.difference(theirs));
    }
    return out;
  }

  /** Like `difference`, but a member of the other also removes everything below it (Go `RecursiveDifference`). */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [element, child] of this.children) {
      if (other.members.has(element)) continue;
      const theirs = other.children.get(element);
      out.setChild(element, theirs === undefined ? child.union(new FieldSet()) : child.recursiveDifference(theirs));
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(other.toFieldsV1());
  }

  /** Every owned path, in the order structured-merge-diff iterates them: members first, then children. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (set: FieldSet, prefix: FieldPath): void => {
      for (const m of sortElements(set.members)) out.push([...prefix, m]);
      for (const element of sortElements(set.children.keys())) walk(set.children.get(element)!, [...prefix, element]);
    };
    walk(this, []);
    return out;
  }

  /** The `fieldsV1` JSON object, keys in Go's order. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const elements = new Set<PathElement>([...this.members, ...this.children.keys()]);
    for (const element of sortElements(elements)) {
      const child = this.children.get(element);
      const node: Record<string, unknown> = {};
      if (this.members.has(element) && child !== undefined && !child.isEmpty()) node['.'] = {};
      if (child !== undefined) Object.assign(node, child.toFieldsV1());
      if (!this.members.has(element) && Object.keys(node).length === 0) continue;
      setOwn(out, element, node);
    }
    return out;
  }

  /** Reads a `fieldsV1` object; throws FieldsV1Error on anything structured-merge-diff would refuse. */
  static fromFieldsV1(value: unknown): FieldSet {
    const set = new FieldSet();
    if (!isRecord(value)) throw new FieldsV1Error(`expected an object, got ${describe(value)}`);
    for (const [key, child] of Object.entries(value)) {
      if (key === '.') continue;
      checkElement(key);
      if (!isRecord(child)) throw new FieldsV1Error(`expected an object for ${key}, got ${describe(child)}`);
      const entries = Object.keys(child);
      if (entries.length === 0) {
        set.members.add(key);
        continue;
      }
      if (Object.hasOwn(child, '.')) set.members.add(key);
      set.setChild(key, FieldSet.fromFieldsV1(child));
    }
    return set;
  }

  private setChild(element: PathElement, child: FieldSet): void {
    if (!child.isEmpty()) this.children.set(element, child);
  }
}

// ---------------------------------------------------------------------------------------------
// Path elements

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const indexElement = (index: number): PathElement => `i:${index}`;
export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`;

/** A map-list item's element: its key fields, sorted by name, as one JSON object. */
export function keyElement(fields: Readonly<Record<string, unknown>>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(fields).sort(compareGoStrings)) setOwn(sorted, name, fields[name]);
  return `k:${JSON.stringify(sorted)}`;
}

/** `fieldpath.Path.String()`: `.spec.limited.lendablePercent`, `.status.conditions[type="Dangling"]`. */
export function pathToString(path: FieldPath): string {
  let out = '';
  for (const element of path) {
    const body = element.slice(2);
    switch (element.slice(0, 2)) {
      case 'f:':
        out += `.${body}`;
        break;
      case 'k:': {
        const fields = JSON.parse(body) as Record<string, unknown>;
        out += `[${Object.entries(fields)
          .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
          .join(',')}]`;
        break;
      }
      case 'v:':
        out += `[=${body}]`;
        break;
      default:
        out += `[${body}]`;
    }
  }
  return out;
}

const RANK: Record<string, number> = { 'f:': 0, 'k:': 1, 'v:': 2, 'i:': 3 };

export function compareElements(a: PathElement, b: PathElement): number {
  const rankA = ownValue(RANK, a.slice(0, 2)) ?? 4;
  const rankB = ownValue(RANK, b.slice(0, 2)) ?? 4;
  if (rankA !== rankB) return rankA - rankB;
  const bodyA = a.slice(2);
  const bodyB = b.slice(2);
  switch (rankA) {
    case 0:
      return compareGoStrings(bodyA, bodyB);
    case 1:
      return compareFieldLists(JSON.parse(bodyA) as Record<string, unknown>, JSON.parse(bodyB) as Record<string, unknown>);
    case 2:
      return compareValues(JSON.parse(bodyA), JSON.parse(bodyB));
    case 3:
      return Number(bodyA) - Number(bodyB);
    default:
      return compareGoStrings(a, b);
  }
}

function sortElements(elements: Iterable<PathElement>): PathElement[] {
  return [...elements].sort(compareElements);
}

function compareFieldLists(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const left = Object.entries(a);
  const right = Object.entries(b);
  for (let i = 0; ; i++) {
    if (i >= left.length || i >= right.length) return left.length - right.length;
    const byName = compareGoStrings(left[i]![0], right[i]![0]);
    if (byName !== 0) return byName;
    const byValue = compareValues(left[i]![1], right[i]![1]);
    if (byValue !== 0) return byValue;
  }
}

/** structured-merge-diff's value order: numbers, then strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown): number =>
    typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : typeof v === 'boolean' ? 2 : Array.isArray(v) ? 3 : v === null ? 5 : 4;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareGoStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return compareGoStrings(JSON.stringify(a), JSON.stringify(b));
}

/** Go's string order (bytewise UTF-8, i.e. code point order), not JavaScript's UTF-16 order. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 and code point order disagree only where a surrogate meets U+E000..U+FFFF.
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

function checkElement(key: string): void {
  const prefix = key.slice(0, 2);
  const body = key.slice(2);
  if (prefix === 'f:') return;
  if (prefix === 'i:') {
    if (!/^-?\d+$/.test(body)) throw new FieldsV1Error(`invalid index in ${key}`);
    return;
  }
  if (prefix === 'k:' || prefix === 'v:') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new FieldsV1Error(`invalid JSON in ${key}`);
    }
    if (prefix === 'k:' && !isRecord(parsed)) throw new FieldsV1Error(`key of ${key} is not an object`);
    return;
  }
  throw new FieldsV1Error(`unknown path element ${JSON.stringify(key)}`);
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
