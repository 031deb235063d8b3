// The kinds' tables (engine/resources/schema/) against everything derived from them: the decoding
// shape (unknown fields, types, canonical order), the patch/server-side apply schema, the OpenAPI
// component schemas served to kubectl, the protobuf pointer fields, and the TypeScript types the
// engine reads objects through. Every table field must appear in each artefact, in the way the
// table says, and nothing else may.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shape } from '../../engine/resources/schema-decoder.ts';
import { FLOWCONTROL_KINDS } from '../../engine/resources/kinds.ts';
import { decodingShape } from '../../engine/resources/schema/decoding-shape.ts';
import type { FieldNames, FieldType, Same, StructTable } from '../../engine/resources/schema/field-table.ts';
import { goAlwaysEncodes, reachableStructs } from '../../engine/resources/schema/field-table.ts';
import type * as fs from '../../engine/resources/schema/flow-schema.ts';
import { LIST_META, listStruct, MANAGED_FIELDS_ENTRY, OBJECT_META, OWNER_REFERENCE } from '../../engine/resources/schema/meta-v1.ts';
import * as plc from '../../engine/resources/schema/priority-level-configuration.ts';
import type * as types from '../../engine/resources/types.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../../engine/resources/defaults.ts';
import { canonicalOrder } from '../../engine/resources/canonical-order.ts';
import { fairwayDiscoveryModel } from '../discovery/discovery.ts';
import { openApiDocuments } from './openapi.ts';
import { schemaFor, type SchemaNode } from '../../engine/patch/schema.ts';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import { GO_POINTER_FIELDS } from '../../engine/protobuf/go-types.ts';

type Json = Record<string, any>;

const document = JSON.parse(openApiDocuments(fairwayDiscoveryModel()).find((d) => d.path === 'apis/flowcontrol.apiserver.k8s.io/v1')!.json) as Json;
const components = document.components.schemas as Json;
const refName = (schema: Json): string | undefined => (schema.$ref ?? schema.allOf?.[0]?.$ref)?.replace('#/components/schemas/', '');

const DECODED_SCALAR = { string: 'string', int32: 'int32', int64: 'int64', boolean: 'boolean', time: 'time', fieldsV1: 'any' } as const;
const PATCH_SCALAR = { string: 'string', int32: 'integer', int64: 'integer', boolean: 'boolean', time: 'string', fieldsV1: 'any' } as const;

/** The decoder and the patch schema agree with `type` at `path`, all the way down. */
function checkType(type: FieldType, shape: Shape, node: SchemaNode, path: string): void {
  if (type.kind === 'struct') return checkStruct(type.struct, shape, node, path);
  if (type.kind === 'scalar') {
    assert.is(shape.type, DECODED_SCALAR[type.scalar], `${path}: decoded type`);
    assert.equal(node, { kind: 'scalar', scalar: PATCH_SCALAR[type.scalar] }, `${path}: patch type`);
    return;
  }
  if (type.kind === 'map') {
    assert.ok(shape.type === 'map' && node.kind === 'map', `${path}: a map`);
    return checkType(type.values, shape.values, node.values, `${path}[*]`);
  }
  assert.ok(shape.type === 'array' && node.kind === 'list', `${path}: a list`);
  assert.is(node.listType, type.listType ?? 'atomic', `${path}: listType`);
  assert.equal(node.keys, type.mapKeys, `${path}: list map keys`);
  assert.is(node.patchStrategy, type.patchStrategy, `${path}: patch strategy`);
  assert.is(node.patchMergeKey, type.patchMergeKey, `${path}: patch merge key`);
  checkType(type.items, shape.items, node.items, `${path}[]`);
}

function checkStruct(table: StructTable, shape: Shape, node: SchemaNode, path: string): void {
  assert.ok(shape.type === 'object' && !shape.open && node.kind === 'struct', `${path}: a closed struct`);
  const names = table.fields.map((f) => f.name);
  // Same fields, same (Go) order: the decoder's order is the canonical order objects are stored in.
  assert.equal(Object.keys(shape.fields), names, `${path}: decoded fields`);
  assert.equal(Object.keys(node.fields), names, `${path}: patch schema fields`);
  for (const f of table.fields) {
    const fieldPath = path === '' ? f.name : `${path}.${f.name}`;
    const expected = f.decodeAsText === true ? { ...f, type: { kind: 'scalar', scalar: 'string' } as const } : f;
    assert.is(node.fields[f.name]!.goAlways ?? false, goAlwaysEncodes(f), `${fieldPath}: Go always encodes it`);
    if (f.decodeAsText === true) assert.is(shape.fields[f.name]!.type, 'string', `${fieldPath}: decoded as text`);
    else checkType(expected.type, shape.fields[f.name]!, node.fields[f.name]!.type, fieldPath);
  }
}

test('decoding shapes and patch schemas have exactly the tables’ fields, types and list markers', () => {
  for (const kind of FLOWCONTROL_KINDS) checkStruct(kind.table.struct, decodingShape(kind.table.struct), schemaFor(kind.kind as FlowcontrolKind), '');
});

/** One struct's OpenAPI schema says what its table says. */
function checkComponent(table: StructTable): void {
  const schema = components[table.name] as Json;
  assert.ok(schema, `${table.name} is served`);
  assert.is(schema.description, table.description, `${table.name}: description`);
  assert.equal(Object.keys(schema.properties).sort(), table.fields.map((f) => f.name).sort(), `${table.name}: properties`);
  const required = table.fields.filter((f) => f.required).map((f) => f.name);
  assert.equal(schema.required ?? [], required, `${table.name}: required`);
  for (const f of table.fields) {
    const property = schema.properties[f.name] as Json;
    const at = `${table.name}.${f.name}`;
    assert.is(property.description, f.description, `${at}: description`);
    const type = f.type;
    if (type.kind === 'struct') {
      assert.is(refName(property), type.struct.name, `${at}: reference`);
      assert.is(property.default !== undefined, !f.pointer, `${at}: a non-pointer struct defaults to {}`);
    } else if (type.kind === 'list') {
      assert.is(property.type, 'array', at);
      assert.is(property['x-kubernetes-list-type'], type.listType, `${at}: list type`);
      assert.equal(property['x-kubernetes-list-map-keys'], type.mapKeys, `${at}: list map keys`);
      assert.is(property['x-kubernetes-patch-strategy'], type.patchStrategy, `${at}: patch strategy`);
      assert.is(property['x-kubernetes-patch-merge-key'], type.patchMergeKey, `${at}: patch merge key`);
      if (type.items.kind === 'struct') assert.is(refName(property.items), type.items.struct.name, `${at}: items`);
    } else if (type.kind === 'map') assert.is(property.type, 'object', at);
    else if (type.scalar === 'time' || type.scalar === 'fieldsV1') assert.ok(refName(property)?.endsWith(type.scalar === 'time' ? '.Time' : '.FieldsV1'), at);
    else {
      assert.is(property.type, { string: 'string', int32: 'integer', int64: 'integer', boolean: 'boolean' }[type.scalar], `${at}: type`);
      assert.equal(property.enum, type.enum === undefined ? undefined : [...type.enum].sort(), `${at}: enum`);
    }
  }
}

test('OpenAPI: each table struct is one component schema with its fields, and the group has no other', () => {
  const kinds = FLOWCONTROL_KINDS.map((k) => k.table);
  const structs = reachableStructs(kinds.map((k) => k.struct));
  structs.forEach(checkComponent);
  const lists = kinds.map((k) => listStruct(k, 'io.k8s.api.flowcontrol.v1.'));
  lists.forEach(checkComponent);
  const flowcontrolNames = Object.keys(components).filter((name) => name.startsWith('io.k8s.api.flowcontrol.v1.'));
  assert.equal(
    flowcontrolNames.sort(),
    [...structs, ...lists]
      .map((s) => s.name)
      .filter((n) => n.startsWith('io.k8s.api.flowcontrol.v1.'))
      .sort(),
  );
  for (const kind of kinds) {
    assert.equal(components[kind.struct.name]['x-kubernetes-group-version-kind'], [{ group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: kind.kind }]);
  }
  [OBJECT_META, OWNER_REFERENCE, MANAGED_FIELDS_ENTRY, LIST_META].forEach(checkComponent);
});

test('protobuf: the pointer fields of every table struct are the ones the codec omits when unset', () => {
  for (const table of reachableStructs([...FLOWCONTROL_KINDS.map((k) => k.table.struct), LIST_META])) {
    const pointers = table.fields.filter((f) => f.pointer).map((f) => f.name);
    const message = table.name.replace(/^io\.k8s\./, 'k8s.io.');
    assert.equal([...(GO_POINTER_FIELDS.get(message) ?? [])], pointers, message);
  }
});

test('canonical order is Go’s field order, as the table lists it', () => {
  const ordered = canonicalOrder(
    {
      spec: {
        limited: {
          borrowingLimitPercent: 1,
          lendablePercent: 2,
          limitResponse: { queuing: { queueLengthLimit: 3, handSize: 2, queues: 1 }, type: 'Queue' },
          nominalConcurrencyShares: 4,
        },
      },
    },
    decodingShape(plc.PRIORITY_LEVEL_CONFIGURATION),
  ) as Json;
  assert.equal(Object.keys(ordered.spec.limited), ['nominalConcurrencyShares', 'limitResponse', 'lendablePercent', 'borrowingLimitPercent']);
  assert.equal(Object.keys(ordered.spec.limited.limitResponse.queuing), ['queues', 'handSize', 'queueLengthLimit']);
});

test('defaults come from the tables: unset pointers and zero plain fields, inside structs that exist', () => {
  assert.equal(defaultFlowSchema({}).spec, { matchingPrecedence: 1000 }, "FlowSchema's spec is a Go struct: its default exists with it");
  assert.equal(defaultPriorityLevelConfiguration({}), {}, 'no plain default below PriorityLevelConfiguration.spec');
  const limited = defaultPriorityLevelConfiguration({
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Queue', queuing: { queues: 0 } } } },
  }).spec!.limited!;
  assert.equal(limited, {
    nominalConcurrencyShares: 0,
    limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
    lendablePercent: 0,
  });
});

// The TypeScript types the engine reads objects through name exactly the tables' fields: a field
// added to one and not the other fails the type check (`npm test` runs it first).
type Known<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
const typesAgree = [
  true satisfies Same<FieldNames<typeof plc.PRIORITY_LEVEL_CONFIGURATION>, keyof types.PriorityLevelConfiguration>,
  true satisfies Same<FieldNames<typeof plc.PRIORITY_LEVEL_CONFIGURATION_SPEC>, keyof types.PriorityLevelConfigurationSpec>,
  true satisfies Same<FieldNames<typeof plc.LIMITED_PRIORITY_LEVEL_CONFIGURATION>, keyof types.LimitedPriorityLevelConfiguration>,
  true satisfies Same<FieldNames<typeof plc.EXEMPT_PRIORITY_LEVEL_CONFIGURATION>, keyof types.ExemptPriorityLevelConfiguration>,
  true satisfies Same<FieldNames<typeof plc.LIMIT_RESPONSE>, keyof types.LimitResponse>,
  true satisfies Same<FieldNames<typeof plc.QUEUING_CONFIGURATION>, keyof types.QueuingConfiguration>,
  true satisfies Same<FieldNames<typeof plc.PRIORITY_LEVEL_CONFIGURATION_STATUS>, keyof types.PriorityLevelConfigurationStatus>,
  true satisfies Same<FieldNames<typeof fs.FLOW_SCHEMA>, keyof types.FlowSchema>,
  true satisfies Same<FieldNames<typeof fs.FLOW_SCHEMA_SPEC>, keyof types.FlowSchemaSpec>,
  true satisfies Same<FieldNames<typeof fs.PRIORITY_LEVEL_CONFIGURATION_REFERENCE>, keyof types.PriorityLevelConfigurationReference>,
  true satisfies Same<FieldNames<typeof fs.FLOW_DISTINGUISHER_METHOD>, keyof types.FlowDistinguisherMethod>,
  true satisfies Same<FieldNames<typeof fs.POLICY_RULES_WITH_SUBJECTS>, keyof types.PolicyRulesWithSubjects>,
  true satisfies Same<FieldNames<typeof fs.SUBJECT>, keyof types.Subject>,
  true satisfies Same<FieldNames<typeof fs.USER_SUBJECT>, keyof types.UserSubject>,
  true satisfies Same<FieldNames<typeof fs.GROUP_SUBJECT>, keyof types.GroupSubject>,
  true satisfies Same<FieldNames<typeof fs.SERVICE_ACCOUNT_SUBJECT>, keyof types.ServiceAccountSubject>,
  true satisfies Same<FieldNames<typeof fs.RESOURCE_POLICY_RULE>, keyof types.ResourcePolicyRule>,
  true satisfies Same<FieldNames<typeof fs.NON_RESOURCE_POLICY_RULE>, keyof types.NonResourcePolicyRule>,
  true satisfies Same<FieldNames<typeof fs.FLOW_SCHEMA_STATUS>, keyof types.FlowSchemaStatus>,
  true satisfies Same<FieldNames<typeof OBJECT_META>, Known<types.ObjectMeta>>,
  true satisfies Same<FieldNames<typeof OWNER_REFERENCE>, keyof types.OwnerReference>,
  true satisfies Same<FieldNames<typeof MANAGED_FIELDS_ENTRY>, keyof types.ManagedFieldsEntry>,
  true satisfies Same<FieldNames<typeof LIST_META>, keyof types.ListMeta>,
];

test('the TypeScript types name the tables’ fields (checked by the type check)', () => {
  assert.ok(typesAgree.every((agrees) => agrees === true));
});

test.run();
