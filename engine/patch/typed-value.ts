// Schema-driven walks over plain JSON objects, as structured-merge-diff's typed values do them:
// the field set an object sets, the comparison of two objects (added / modified / removed paths),
// the merge of an applied configuration into a live object, and the removal of owned paths.
// `undefined` means "absent"; `null` is a present value, exactly as Go sees a JSON null.

import { FieldSet, fieldElement, indexElement, keyElement, valueElement, type FieldPath, type PathElement } from './field-set.ts';
import { childSchema, fieldSchema, type ListNode, type SchemaNode } from './schema.ts';
import { isRecord, ownValue, setOwn, type JsonRecord } from '../own-property.ts';

export type JsonObject = JsonRecord;

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keysA = presentKeys(a);
    const keysB = presentKeys(b);
    return (
      keysA.length === keysB.length &&
      keysA.every((key) => {
        const other = ownValue(b, key);
        return other !== undefined && deepEqual(a[key], other);
      })
    );
  }
  return false;
}

/** Keys whose value is not `undefined` (TypeScript-built objects may carry undefined members). */
export function presentKeys(object: JsonObject): string[] {
  return Object.keys(object).filter((key) => object[key] !== undefined);
}

/** The element naming a list item, or the reason structured-merge-diff refuses the item. */
export function listItemElement(list: ListNode, item: unknown, index: number): PathElement | { error: string } {
  if (list.listType === 'atomic') return indexElement(index);
  if (list.listType === 'map') {
    if (item === null) return { error: 'associative list with keys may not have a null element' };
    if (!isRecord(item)) return { error: 'associative list with keys may not have non-map elements' };
    const key: JsonObject = {};
    for (const name of list.keys ?? []) {
      if (ownValue(item, name) === undefined)
        return { error: `associative list with keys has an element that omits key field "${name}" (and doesn't have default value)` };
      setOwn(key, name, item[name]);
    }
    return keyElement(key);
  }
  if (isRecord(item)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
  if (item === null) return { error: "associative list without keys has an element that's an explicit null" };
  return valueElement(item);
}

/** Items of a non-atomic list by element, first occurrence winning, in list order. */
function indexItems(list: ListNode, items: readonly unknown[] | undefined): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  (items ?? []).forEach((item, i) => {
    const element = listItemElement(list, item, i);
    if (typeof element === 'string' && !out.has(element)) out.set(element, item);
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// ToFieldSet

/**
 * The paths a (partial) object sets. Leaves are owned; a list item is owned with its contents; a
 * struct field is owned itself only when its value is null or an empty object, so an applied
 * configuration never claims `spec` just for having one.
 */
export function toFieldSet(node: SchemaNode, value: unknown): FieldSet {
  const set = new FieldSet();
  walkFieldSet(node, value, [], set);
  return set;
}

function walkFieldSet(node: SchemaNode | undefined, value: unknown, path: FieldPath, set: FieldSet): void {
  if (node === undefined || node.kind === 'scalar') {
    set.insert(path);
    return;
  }
  if (node.kind === 'list') {
    if (node.listType === 'atomic') {
      set.insert(path);
      return;
    }
    if (!Array.isArray(value)) return;
    value.forEach((item, i) => {
      const element = listItemElement(node, item, i);
      if (typeof element !== 'string') return;
      walkFieldSet(node.items, item, [...path, element], set);
      set.insert([...path, element]);
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const key of presentKeys(value)) {
    const child = value[key];
    const childPath = [...path, fieldElement(key)];
    const declared = node.kind === 'struct' && fieldSchema(node, key) !== undefined;
    walkFieldSet(childSchema(node, fieldElement(key)), child, childPath, set);
    if (child === null || (isRecord(child) && presentKeys(child).length === 0) || !declared) set.insert(childPath);
  }
}

// ---------------------------------------------------------------------------------------------
// Compare

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs`, path by path, as `TypedValue.Compare` reports it. */
export function compareTyped(node: SchemaNode, lhs: unknown, rhs: unknown): Comparison {
  const result: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(node, lhs, rhs, [], result);
  return result;
}

function walkCompare(node: SchemaNode | undefined, lhs: unknown, rhs: unknown, path: FieldPath, result: Comparison): void {
  const leaf = (): void => {
    if (lhs === undefined) result.added.insert(path);
    else if (rhs === undefined) result.removed.insert(path);
    else if (!deepEqual(lhs, rhs)) result.modified.insert(path);
  };
  if (node === undefined || node.kind === 'scalar') return leaf();
  if (node.kind === 'list') {
    const left = Array.isArray(lhs) ? lhs : undefined;
    const right = Array.isArray(rhs) ? rhs : undefined;
    if (node.listType === 'atomic' || ((left ?? []).length === 0 && (right ?? []).length === 0)) return leaf();
    const leftItems = indexItems(node, left);
    const rightItems = indexItems(node, right);
    for (const element of new Set([...leftItems.keys(), ...rightItems.keys()])) {
      walkCompare(node.items, leftItems.get(element), rightItems.get(element), [...path, element], result);
    }
  } else {
    const left = isRecord(lhs) ? lhs : undefined;
    const right = isRecord(rhs) ? rhs : undefined;
    const leftKeys = left === undefined ? [] : presentKeys(left);
    const rightKeys = right === undefined ? [] : presentKeys(right);
    if (leftKeys.length === 0 && rightKeys.length === 0) return leaf();
    for (const key of new Set([...leftKeys, ...rightKeys])) {
      const element = fieldElement(key);
      walkCompare(
        childSchema(node, element),
        left === undefined ? undefined : ownValue(left, key),
        right === undefined ? undefined : ownValue(right, key),
        [...path, element],
        result,
      );
    }
  }
  // A map or list node that exists on one side only is itself added or removed.
  if (lhs === undefined) result.added.insert(path);
  else if (rhs === undefined) result.removed.insert(path);
}

// ---------------------------------------------------------------------------------------------
// Merge (server-side apply: the applied configuration over the live object)

export function mergeTyped(node: SchemaNode | undefined, lhs: unknown, rhs: unknown): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined || node === undefined || node.kind === 'scalar') return rhs;
  if (node.kind === 'list') {
    if (node.listType === 'atomic' || !Array.isArray(lhs) || !Array.isArray(rhs)) return rhs;
    if (lhs.length === 0 && rhs.length === 0) return rhs;
    return mergeListItems(node, lhs, rhs);
  }
  const left = isRecord(lhs) ? lhs : {};
  const right = isRecord(rhs) ? rhs : {};
  // Both empty: a leaf, so `{}` and `null` stay distinct. A null over a non-empty map keeps the map.
  if (presentKeys(left).length === 0 && presentKeys(right).length === 0) return rhs;
  const out: JsonObject = {};
  for (const key of presentKeys(left)) setOwn(out, key, mergeTyped(childSchema(node, fieldElement(key)), left[key], ownValue(right, key)));
  for (const key of presentKeys(right)) {
    if (!Object.hasOwn(out, key)) setOwn(out, key, right[key]);
  }
  return out;
}

/**
 * Items keep the live order; an applied item the live list lacks goes in where the applied
 * order puts it relative to the items both share (structured-merge-diff's interleaving).
 */
function mergeListItems(node: ListNode, lhs: readonly unknown[], rhs: readonly unknown[]): unknown[] {
  const left = indexItems(node, lhs);
  const right = indexItems(node, rhs);
  const leftOrder = [...left.keys()];
  const rightOrder = [...right.keys()];
  const sharedOrder = rightOrder.filter((element) => left.has(element));
  let nextShared = sharedOrder.shift();
  const mergedRight = new Set<PathElement>();
  const out: unknown[] = [];
  let l = 0;
  let r = 0;
  while (l < leftOrder.length || r < rightOrder.length) {
    if (l < leftOrder.length && r < rightOrder.length) {
      const element = leftOrder[l]!;
      if (element === rightOrder[r]) {
        mergedRight.add(element);
        out.push(mergeTyped(node.items, left.get(element), right.get(element)));
        l++;
        r++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (right.has(element) && nextShared !== undefined && nextShared !== element) {
        l++; // a shared item, but not the one due now: the applied order places it later
        continue;
      }
    }
    if (l < leftOrder.length) {
      const element = leftOrder[l]!;
      if (!right.has(element)) {
        out.push(left.get(element));
        l++;
        continue;
      }
      if (mergedRight.has(element)) {
        l++;
        continue;
      }
    }
    if (r < rightOrder.length) {
      const element = rightOrder[r]!;
      mergedRight.add(element);
      out.push(mergeTyped(node.items, left.get(element), right.get(element)));
      r++;
      if (nextShared === element) nextShared = sharedOrder.shift();
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// RemoveItems

/** The value with every path of `set` (and what lies below it) removed; `undefined` when nothing is left. */
export function removeItems(node: SchemaNode | undefined, value: unknown, set: FieldSet): unknown {
  if (node === undefined || node.kind === 'scalar') return value;
  if (node.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0 || node.listType === 'atomic') return undefined;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const element = listItemElement(node, item, i);
      if (typeof element !== 'string') return void out.push(item);
      if (set.members.has(element)) return;
      const below = set.children.get(element);
      const kept = below === undefined ? item : removeItems(node.items, item, below);
      if (kept !== undefined) out.push(kept);
    });
    return out.length > 0 ? out : undefined;
  }
  if (!isRecord(value) || presentKeys(value).length === 0) return undefined;
  const out: JsonObject = {};
  for (const key of presentKeys(value)) {
    const element = fieldElement(key);
    if (set.members.has(element)) continue;
    const below = set.children.get(element);
    const kept = below === undefined ? value[key] : removeItems(childSchema(node, element), value[key], below);
    if (kept !== undefined) setOwn(out, key, kept);
  }
  return presentKeys(out).length > 0 ? out : undefined;
}

/** Adds as members the struct fields that only have children (Go `EnsureNamedFieldsAreMembers`). */
export function ensureNamedFieldsAreMembers(set: FieldSet, node: SchemaNode | undefined): FieldSet {
  const out = set.union(new FieldSet());
  const walk = (target: FieldSet, schema: SchemaNode | undefined): void => {
    for (const [element, child] of target.children) {
      if (schema?.kind === 'struct' && element.startsWith('f:') && fieldSchema(schema, element.slice(2)) !== undefined) target.members.add(element);
      walk(child, childSchema(schema, element));
    }
  };
  walk(out, node);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Go's view of an object

/**
 * The object as a decode-and-encode through Go structs shows it to the field manager: non-pointer
 * structs exist even when empty, and fields without `omitempty` carry their zero value.
 */
export function withGoZeroValues(node: SchemaNode | undefined, value: unknown): unknown {
  if (node === undefined) return value;
  if (node.kind === 'list') {
    if (!Array.isArray(value) || node.items.kind !== 'struct') return value;
    return value.map((item) => withGoZeroValues(node.items, item));
  }
  if (node.kind !== 'struct') return value;
  if (!isRecord(value)) return value;
  const out: JsonObject = { ...value };
  for (const [name, field] of Object.entries(node.fields)) {
    // A JSON null decodes to Go's zero: gone again for an omitempty field, the zero value otherwise.
    if (out[name] === null) delete out[name];
    // Go's omitempty drops empty maps and slices.
    if (!field.goAlways && (field.type.kind === 'map' || field.type.kind === 'list') && isEmptyContainer(out[name])) delete out[name];
    if (out[name] === undefined && field.goAlways) out[name] = zeroOf(field.type);
    if (out[name] !== undefined) out[name] = withGoZeroValues(field.type, out[name]);
  }
  return out;
}

function isEmptyContainer(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : isRecord(value) && presentKeys(value).length === 0;
}

function zeroOf(node: SchemaNode): unknown {
  if (node.kind === 'struct') return {};
  if (node.kind === 'scalar') return node.scalar === 'string' ? '' : node.scalar === 'integer' ? 0 : node.scalar === 'boolean' ? false : null;
  return undefined;
}
