import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { createAdmissionChain, type AdmissionAttributes, type ValidatingAdmissionPlugin } from '../auth/admission/admission.ts';
import { FLOW_SCHEMA, PRIORITY_LEVEL, storeResourceInfo } from '../resources/kinds.ts';
import type { KubeObject } from '../resources/types.ts';
import { createMemoryBackend } from '../store/memory/memory-backend.ts';
import { isStoreErrorCode } from '../store/store-errors.ts';
import { createStore } from '../store/store.ts';
import { KindRegistry } from './kind-registry.ts';
import type { ManagedFieldsRecorder } from '../patch/patch-applier.ts';
import { patchApplier } from '../patch/patch-applier.ts';
import { isRegistryError } from './registry-errors.ts';
import type { Requester } from './requester.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const noManagedFields: ManagedFieldsRecorder = { recordUpdate: (_previous, next) => next };

async function registryOf(admission?: ValidatingAdmissionPlugin, managedFields: ManagedFieldsRecorder = noManagedFields) {
  const clock = new SimClock();
  const store = createStore({ backend: createMemoryBackend(), clock });
  await store.open();
  let uids = 0;
  const registry = new KindRegistry({
    store: store.for(storeResourceInfo(PRIORITY_LEVEL)),
    kind: PRIORITY_LEVEL,
    apiVersion: `${GROUP}/v1`,
    group: GROUP,
    newUid: () => `uid-${++uids}`,
    randomInt: (n) => n - 1,
    nowMs: () => clock.now(),
    managedFields,
    applyPatch: patchApplier(GROUP),
    ...(admission !== undefined ? { admission: createAdmissionChain([admission]) } : {}),
  });
  return { store, registry };
}

function requester(warnings: string[] = []): Requester {
  return {
    user: { name: 'alice', groups: ['system:authenticated'] },
    resource: { group: GROUP, version: 'v1', resource: 'prioritylevelconfigurations' },
    subresource: '',
    namespace: '',
    name: '',
    dryRun: false,
    warn: (given) => warnings.push(...given),
  };
}

const level = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { name, ...extra },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
});

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.unreachable('expected a refusal'),
    (error: unknown) => error,
  );
}

test('a create is defaulted, prepared, typed and stored in canonical order; generateName takes the injected randomness', async () => {
  const { store, registry } = await registryOf();
  const created = await registry.create(level('', { generateName: 'team-' }), { dryRun: false, manager: 'm', requester: requester() });
  assert.is(created.metadata?.name, 'team-99999');
  assert.equal(Object.keys(created).slice(0, 2), ['kind', 'apiVersion']);
  assert.equal(
    [created.kind, created.apiVersion, created.metadata?.uid, created.metadata?.generation],
    ['PriorityLevelConfiguration', `${GROUP}/v1`, 'uid-1', 1],
  );
  assert.is((created.spec as { limited: { lendablePercent?: number } }).limited.lendablePercent, 0, 'v1 defaults applied');
  await store.close();
});

test('refusals are engine errors with codes and facts, no HTTP status', async () => {
  const { store, registry } = await registryOf();
  const invalid = await refusal(registry.create({ metadata: { name: 'x' }, spec: { type: 'Bogus' } }, { dryRun: false, manager: 'm', requester: requester() }));
  assert.ok(isRegistryError(invalid) && invalid.facts.code === 'FW_ERR_REGISTRY_INVALID');
  assert.equal([invalid.facts.kind, invalid.facts.name, invalid.facts.errors[0]?.field], ['PriorityLevelConfiguration', 'x', 'spec.type']);
  assert.not.ok('httpCode' in invalid);
  const withVersion = await refusal(registry.create(level('y', { resourceVersion: '7' }), { dryRun: false, manager: 'm', requester: requester() }));
  assert.ok(isRegistryError(withVersion) && withVersion.code === 'FW_ERR_REGISTRY_RESOURCE_VERSION_ON_CREATE');
  await registry.create(level('z'), { dryRun: false, manager: 'm', requester: requester() });
  const exists = await refusal(registry.create(level('z'), { dryRun: true, manager: 'm', requester: requester() }));
  assert.ok(isStoreErrorCode(exists, 'FW_ERR_STORE_ALREADY_EXISTS'), 'a dry-run create checks existence as a real one would');
  await store.close();
});

test('admission is the registry’s own dependency: it sees the stored-to-be object, warns through the requester, refuses with its rejection', async () => {
  const seen: AdmissionAttributes[] = [];
  const plugin: ValidatingAdmissionPlugin = {
    name: 'test',
    validate: (attributes) => {
      seen.push(attributes);
      if (attributes.operation === 'DELETE') return { allowed: false, rejection: { kind: 'rate-limited', message: 'slow down' }, warnings: [] };
      return { allowed: true, warnings: ['looked'] };
    },
  };
  const { store, registry } = await registryOf(plugin);
  const warnings: string[] = [];
  await registry.create(level('a'), { dryRun: false, manager: 'm', requester: requester(warnings) });
  assert.equal(warnings, ['looked']);
  assert.equal([seen[0]?.operation, seen[0]?.name, seen[0]?.kind.kind, seen[0]?.user.name], ['CREATE', 'a', 'PriorityLevelConfiguration', 'alice']);
  assert.is((seen[0]?.object?.metadata as { uid?: string } | undefined)?.uid, 'uid-1', 'admission sees the prepared object');
  const refused = await refusal(registry.delete('a', { dryRun: false }, requester()));
  assert.ok(isRegistryError(refused) && refused.facts.code === 'FW_ERR_REGISTRY_ADMISSION_REJECTED');
  assert.equal(refused.facts.rejection, { kind: 'rate-limited', message: 'slow down' });
  assert.ok((await registry.store.get('a')).metadata?.name === 'a', 'a refused delete leaves the object');
  await store.close();
});

test('a PATCH is applied by the registry to the object it reads, as its kind at its time; the patch sets managedFields, not the recorder', async () => {
  const recorded: string[] = [];
  const recorder: ManagedFieldsRecorder = { recordUpdate: (_previous, next, manager) => (recorded.push(manager), next) };
  const { store, registry } = await registryOf(undefined, recorder);
  await registry.create(level('a'), { dryRun: false, manager: 'm', requester: requester() });
  const patched = await registry.patch(
    {
      contentType: 'application/merge-patch+json',
      body: '{"metadata":{"labels":{"x":"y"}}}',
      name: 'a',
      fieldManager: 'kubectl',
      force: false,
      fieldValidation: 'Strict',
      subresource: '',
    },
    { dryRun: false, manager: 'kubectl', requester: requester() },
  );
  assert.equal([patched.created, patched.object.kind, patched.object.metadata?.labels], [false, 'PriorityLevelConfiguration', { x: 'y' }]);
  assert.equal(
    patched.object.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation, entry.apiVersion, entry.time]),
    [['kubectl', 'Update', `${GROUP}/v1`, '1970-01-01T00:00:00Z']],
  );
  assert.equal(recorded, ['m'], 'only the create asked the recorder');
  await store.close();
});

test('server-side apply through the registry creates what does not exist, not through /status', async () => {
  const { store, registry } = await registryOf();
  const apply = (name: string, subresource: '' | 'status') =>
    registry.patch(
      {
        contentType: 'application/apply-patch+yaml',
        body:
          `apiVersion: ${GROUP}/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: ${name}}\n` +
          'spec: {type: Limited, limited: {nominalConcurrencyShares: 1, limitResponse: {type: Reject}}}\n',
        name,
        fieldManager: 'tool',
        force: false,
        fieldValidation: 'Strict',
        subresource,
      },
      { dryRun: false, manager: 'tool', requester: requester() },
    );
  const created = await apply('b', '');
  assert.equal([created.created, created.object.metadata?.name, created.object.metadata?.managedFields?.[0]?.operation], [true, 'b', 'Apply']);
  assert.ok((await registry.store.get('b')).metadata?.uid === 'uid-1');
  assert.is((await apply('b', '')).created, false);
  const missing = await refusal(apply('c', 'status'));
  assert.ok(isStoreErrorCode(missing, 'FW_ERR_STORE_NOT_FOUND'), String(missing));
  await store.close();
});

test('a registry is generic over the kind table: the same code serves FlowSchemas', async () => {
  const clock = new SimClock();
  const store = createStore({ backend: createMemoryBackend(), clock });
  await store.open();
  const registry = new KindRegistry({
    store: store.for(storeResourceInfo(FLOW_SCHEMA)),
    kind: FLOW_SCHEMA,
    apiVersion: `${GROUP}/v1`,
    group: GROUP,
    newUid: () => 'u',
    randomInt: () => 0,
    nowMs: () => clock.now(),
    managedFields: noManagedFields,
    applyPatch: patchApplier(GROUP),
  });
  const created = await registry.create(
    { metadata: { name: 'fs' }, spec: { priorityLevelConfiguration: { name: 'global-default' } } },
    { dryRun: false, manager: 'm', requester: requester() },
  );
  assert.equal([created.kind, (created.spec as { matchingPrecedence?: number }).matchingPrecedence], ['FlowSchema', 1000]);
  assert.equal([registry.kind, registry.listKind, registry.resource], ['FlowSchema', 'FlowSchemaList', 'flowschemas']);
  await store.close();
});

test.run();
