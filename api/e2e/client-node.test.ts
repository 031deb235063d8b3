// End to end with @kubernetes/client-node 1.4 (the line that runs on Node 20): the typed client, the
// generic object client and an informer, against `fairway serve` as a child process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as k8s from '@kubernetes/client-node';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const PATH = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
let server: ServerProcess;
let kc: k8s.KubeConfig;
let api: k8s.FlowcontrolApiserverV1Api;

const plc = (name: string, shares: number, labels: Record<string, string> = {}): k8s.V1PriorityLevelConfiguration => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: { name, labels },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
});

/** Resolves when `predicate` holds for the recorded informer events. */
function eventually(events: string[], predicate: (events: string[]) => boolean, changed: { notify?: (() => void) | undefined }): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (predicate(events)) {
        changed.notify = undefined;
        resolve();
      }
    };
    changed.notify = check;
    check();
  });
}

test.before(async () => {
  server = await startServerProcess();
  kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  api = kc.makeApiClient(k8s.FlowcontrolApiserverV1Api);
});

test.after(async () => {
  assert.is(await server.stop(), 0);
});

test('typed client: create, read, patch (json and merge), list, 404 as ApiException', async () => {
  const created = await api.createPriorityLevelConfiguration({ body: plc('js-one', 5) });
  assert.is(created.metadata?.generation, 1);
  assert.ok(created.metadata?.creationTimestamp instanceof Date, 'RFC 3339 timestamps parse');
  const read = await api.readPriorityLevelConfiguration({ name: 'js-one' });
  assert.is(read.metadata?.uid, created.metadata?.uid);
  const patched = await api.patchPriorityLevelConfiguration({
    name: 'js-one',
    body: [{ op: 'replace', path: '/spec/limited/nominalConcurrencyShares', value: 8 }],
  });
  assert.is(patched.spec?.limited?.nominalConcurrencyShares, 8);
  const merged = await api.patchPriorityLevelConfiguration(
    { name: 'js-one', body: { metadata: { labels: { merged: 'yes' } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  assert.is(merged.metadata?.labels?.merged, 'yes');
  const list = await api.listPriorityLevelConfiguration();
  assert.ok(list.items.some((item) => item.metadata?.name === 'js-one'));
  try {
    await api.readPriorityLevelConfiguration({ name: 'nope' });
    assert.unreachable('a missing object is an error');
  } catch (error) {
    assert.instance(error, k8s.ApiException);
    const apiError = error as k8s.ApiException<string>;
    assert.is(apiError.code, 404);
    assert.is(JSON.parse(apiError.body).reason, 'NotFound');
  }
});

test('generic object client: create, strategic patch, server-side apply, delete', async () => {
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const spec = plc('js-two', 3) as k8s.KubernetesObject;
  await objects.create(spec);
  const patched = await objects.patch({ ...spec, metadata: { name: 'js-two', labels: { via: 'smp' } } } as k8s.KubernetesObject);
  assert.is(patched.metadata?.labels?.via, 'smp');
  const applied = (await objects.patch(
    plc('js-two', 4) as k8s.KubernetesObject,
    undefined,
    undefined,
    'js-ssa',
    true,
    k8s.PatchStrategy.ServerSideApply,
  )) as k8s.V1PriorityLevelConfiguration;
  assert.is(applied.spec?.limited?.nominalConcurrencyShares, 4);
  assert.ok(applied.metadata?.managedFields?.some((m) => m.manager === 'js-ssa' && m.operation === 'Apply'));
  const status = await objects.delete(spec);
  assert.is((status as unknown as k8s.V1Status).status, 'Success');
});

test('an informer sees adds, updates and deletes', async () => {
  const events: string[] = [];
  const changed: { notify?: (() => void) | undefined } = {};
  const informer = k8s.makeInformer(kc, PATH, () => api.listPriorityLevelConfiguration({ labelSelector: 'informed=yes' }), 'informed=yes');
  const record = (verb: string) => (object: k8s.V1PriorityLevelConfiguration) => {
    events.push(`${verb} ${object.metadata?.name} ${object.spec?.limited?.nominalConcurrencyShares ?? ''}`.trim());
    changed.notify?.();
  };
  informer.on('add', record('add'));
  informer.on('update', record('update'));
  informer.on('delete', record('delete'));
  await informer.start();
  try {
    await api.createPriorityLevelConfiguration({ body: plc('js-informed', 5, { informed: 'yes' }) });
    await eventually(events, (e) => e.includes('add js-informed 5'), changed);
    await api.patchPriorityLevelConfiguration({ name: 'js-informed', body: [{ op: 'replace', path: '/spec/limited/nominalConcurrencyShares', value: 6 }] });
    await eventually(events, (e) => e.includes('update js-informed 6'), changed);
    await api.deleteCollectionPriorityLevelConfiguration({ labelSelector: 'informed=yes' });
    await eventually(events, (e) => e.some((line) => line.startsWith('delete js-informed')), changed);
    assert.equal(events, ['add js-informed 5', 'update js-informed 6', 'delete js-informed 6']);
  } finally {
    await informer.stop();
  }
});

test.run();
