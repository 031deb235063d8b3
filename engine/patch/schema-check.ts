// Checks of a JSON object against a kind's schema, in the two wordings clients see:
//   - server-side apply turns the applied configuration into a typed value first and fails on
//     anything the schema does not allow (`.spec.bogus: field not declared in schema`,
//     `.status.conditions: duplicate entries for key [type="X"]`);
//   - decoding a patched object reports unknown fields for fieldValidation (`unknown field
//     "spec.bogus"`), and drops them when it is not Strict.

import { pathToString } from './field-set.ts';
import { goFormatValue } from './go-json.ts';
import { fieldSchema, type SchemaNode } from './schema.ts';
import { listItemElement, presentKeys, type JsonObject } from './typed-value.ts';
import { isRecord, setOwn } from '../own-property.ts';

/** structured-merge-diff's validation errors for an applied configuration; empty when it is valid. */
export function validateApplyConfig(node: SchemaNode, value: unknown): string[] {
  const errors: string[] = [];
  walkValidate(node, value, '', errors);
  return errors;
}

/** `ValidationErrors.Error()`: one error as is, several under an `errors:` heading. */
export function formatValidationErrors(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : ['errors:', ...errors.map((error) => `  ${error}`)].join('\n');
}

function walkValidate(node: SchemaNode, value: unknown, path: string, errors: string[]): void {
  if (value === null || value === undefined) return;
  const fail = (message: string): void => void errors.push(`${path}: ${message}`);
  switch (node.kind) {
    case 'scalar': {
      if (node.scalar === 'string' && typeof value !== 'string') fail(`expected string, got ${unstructured(value)}`);
      if (node.scalar === 'integer' && typeof value !== 'number') fail(`expected numeric (int or float), got ${goTypeOf(value)}`);
      if (node.scalar === 'boolean' && typeof value !== 'boolean') fail(`expected boolean, got ${unstructured(value)}`);
      return;
    }
    case 'struct':
    case 'map': {
      if (!isRecord(value)) return fail(`expected map, got ${unstructured(value)}`);
      for (const key of presentKeys(value)) {
        const child = node.kind === 'struct' ? fieldSchema(node, key) : node.values;
        if (child === undefined) errors.push(`${path}.${key}: field not declared in schema`);
        else walkValidate(child, value[key], `${path}.${key}`, errors);
      }
      return;
    }
    case 'list': {
      if (!Array.isArray(value)) return fail(`expected list, got ${unstructured(value)}`);
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const element = listItemElement(node, item, i);
        if (typeof element !== 'string') return fail(`element ${i}: ${element.error}`);
        if (node.listType !== 'atomic') {
          if (seen.has(element)) fail(`duplicate entries for key ${pathToString([element])}`);
          seen.add(element);
        }
        walkValidate(node.items, item, `${path}${pathToString([element])}`, errors);
      });
    }
  }
}

/** Go's `%#v` of a structured-merge-diff unstructured value, as its scalar errors print it. */
function unstructured(value: unknown): string {
  const shown = typeof value === 'string' ? JSON.stringify(value) : goFormatValue(value);
  return `&value.valueUnstructured{Value:${shown}}`;
}

function goTypeOf(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isRecord(value)) return 'map[string]interface {}';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

// ---------------------------------------------------------------------------------------------
// Unknown fields (fieldValidation)

/** Paths of fields the schema does not declare, as strict decoding names them (`spec.rules[0].bogus`). */
export function unknownFieldPaths(node: SchemaNode, value: unknown): string[] {
  const out: string[] = [];
  const walk = (schema: SchemaNode, current: unknown, path: string): void => {
    if (schema.kind === 'list') {
      if (Array.isArray(current)) current.forEach((item, i) => walk(schema.items, item, `${path}[${i}]`));
      return;
    }
    if ((schema.kind !== 'struct' && schema.kind !== 'map') || !isRecord(current)) return;
    for (const key of presentKeys(current)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      const child = schema.kind === 'struct' ? fieldSchema(schema, key) : schema.values;
      if (child === undefined) out.push(childPath);
      else walk(child, current[key], childPath);
    }
  };
  walk(node, value, '');
  return out;
}

/** A copy without the fields the schema does not declare (what decoding into Go structs keeps). */
export function dropUnknownFields(node: SchemaNode, value: unknown): unknown {
  if (node.kind === 'list') return Array.isArray(value) ? value.map((item) => dropUnknownFields(node.items, item)) : value;
  if ((node.kind !== 'struct' && node.kind !== 'map') || !isRecord(value)) return value;
  const out: JsonObject = {};
  for (const key of presentKeys(value)) {
    const child = node.kind === 'struct' ? fieldSchema(node, key) : node.values;
    if (child !== undefined) setOwn(out, key, dropUnknownFields(child, value[key]));
  }
  return out;
}
