// End to end: `fairway serve` as a child process (LevelDB, as `npm start` runs it), driven by the
// real kubectl through the admin kubeconfig the server wrote. One server for the whole file. kubectl
// negotiates HTTP/2 through ALPN, as against kube-apiserver; the server's access log (-v=3) says
// which protocol served each request, and the last test checks that every kubectl request went
// over HTTP/2.
import { mkdtemp, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as yamlParse, stringify as yamlStringify } from 'yaml';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { kubectlFor, type Kubectl } from '../data-dir/testing/kubectl.ts';
import { openStream } from '../testing/http-client.ts';

const PLC = 'prioritylevelconfigurations';
const GROUP = 'flowcontrol.apiserver.k8s.io';
let server: ServerProcess;
let kubectl: Kubectl;
let files: string;

const plc = (name: string, shares: number, labels: Record<string, string> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'PriorityLevelConfiguration',
  metadata: Object.keys(labels).length > 0 ? { name, labels } : { name },
  spec: {
    type: 'Limited',
    limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 } } },
  },
});

async function file(name: string, content: unknown): Promise<string> {
  const path = join(files, name);
  await writeFile(path, typeof content === 'string' ? content : yamlStringify(content));
  return path;
}

async function ok(args: string[], env?: Record<string, string>): Promise<string> {
  const result = await kubectl(args, env ? { env } : {});
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  return result.stdout;
}

test.before(async () => {
  server = await startServerProcess({ storageBackend: 'leveldb', args: ['--v=3'] });
  kubectl = kubectlFor(server.kubeconfigPath);
  files = await mkdtemp(join(tmpdir(), 'fairway-e2e-files-'));
});

test.after(async () => {
  const code = await server.stop();
  assert.is(code, 0, `the server exits 0 on SIGTERM; stderr:\n${server.stderr()}`);
});

test('api-resources lists both kinds, cluster-scoped, without short names', async () => {
  const out = await ok(['api-resources', `--api-group=${GROUP}`]);
  assert.match(out, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/m);
  assert.match(out, /^flowschemas\s+flowcontrol\.apiserver\.k8s\.io\/v1\s+false\s+FlowSchema$/m);
  assert.match(out, /^prioritylevelconfigurations\s+flowcontrol\.apiserver\.k8s\.io\/v1\s+false\s+PriorityLevelConfiguration$/m);
});

test('get prints the printer columns; -o yaml and -o json give the object', async () => {
  const table = await ok(['get', PLC]);
  assert.match(table, /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE$/m);
  assert.match(table, /^exempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\d+s$/m);
  assert.match(table, /^global-default\s+Limited\s+20\s+128\s+6\s+50\s+\d+s$/m);
  const yaml = yamlParse(await ok(['get', PLC, 'catch-all', '-o', 'yaml']));
  assert.is(yaml.kind, 'PriorityLevelConfiguration');
  assert.is(yaml.spec.limited.nominalConcurrencyShares, 5);
  const json = JSON.parse(await ok(['get', 'flowschemas', '-o', 'json']));
  assert.is(json.kind, 'List');
  assert.ok(json.items.some((item: { metadata: { name: string } }) => item.metadata.name === 'catch-all'));
  const fsTable = await ok(['get', 'flowschemas']);
  assert.match(fsTable, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/m);
  // The Dangling condition is written asynchronously after start; MissingPL shows it.
  let latest = '';
  for (let attempt = 0; attempt < 20 && !/^exempt\s+exempt\s+1\s+<none>\s+\S+\s+False$/m.test(latest); attempt++) {
    latest = await ok(['get', 'flowschemas']);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(latest, /^exempt\s+exempt\s+1\s+<none>\s+\S+\s+False$/m);
  assert.match(latest, /^global-default\s+global-default\s+9900\s+ByUser\s+\S+\s+False$/m);
});

test('apply creates, configures, then leaves an unchanged object alone', async () => {
  const created = await file('delta.yaml', plc('delta', 5, { a: 'b' }));
  assert.match(await ok(['apply', '-f', created]), /prioritylevelconfiguration\.flowcontrol\.apiserver\.k8s\.io\/delta created/);
  const updated = await file('delta-7.yaml', plc('delta', 7, { a: 'b' }));
  assert.match(await ok(['apply', '-f', updated]), /\/delta configured/);
  assert.match(await ok(['apply', '-f', updated]), /\/delta unchanged/);
  const stored = JSON.parse(await ok(['get', PLC, 'delta', '-o', 'json']));
  assert.is(stored.spec.limited.nominalConcurrencyShares, 7);
  assert.is(stored.metadata.generation, 2);
});

test('apply --server-side, a conflict with another manager, and --force-conflicts', async () => {
  const ssa = await file('epsilon.yaml', plc('epsilon', 5));
  assert.match(await ok(['apply', '--server-side', '-f', ssa]), /\/epsilon serverside-applied/);
  const other = await file('epsilon-9.yaml', plc('epsilon', 9));
  const conflict = await kubectl(['apply', '--server-side', '-f', other, '--field-manager=other']);
  assert.is(conflict.code, 1);
  assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.limited\.nominalConcurrencyShares/, conflict.stderr);
  assert.match(await ok(['apply', '--server-side', '--force-conflicts', '-f', other, '--field-manager=other']), /serverside-applied/);
  const stored = JSON.parse(await ok(['get', PLC, 'epsilon', '-o', 'json', '--show-managed-fields']));
  assert.is(stored.spec.limited.nominalConcurrencyShares, 9);
  assert.ok(stored.metadata.managedFields.some((m: { manager: string; operation: string }) => m.manager === 'other' && m.operation === 'Apply'));
});

test('create --dry-run=server stores nothing', async () => {
  const path = await file('zeta.yaml', plc('zeta', 3));
  assert.match(await ok(['create', '-f', path, '--dry-run=server']), /\/zeta created \(server dry run\)/);
  const get = await kubectl(['get', PLC, 'zeta']);
  assert.is(get.code, 1);
  assert.match(get.stderr, /Error from server \(NotFound\): prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io "zeta" not found/);
});

test('patch with merge, json and strategic types; a repeated patch changes nothing', async () => {
  assert.match(await ok(['patch', PLC, 'delta', '--type=merge', '-p', '{"metadata":{"labels":{"x":"y"}}}']), /\/delta patched$/m);
  assert.match(
    await ok(['patch', PLC, 'delta', '--type=json', '-p', '[{"op":"replace","path":"/spec/limited/nominalConcurrencyShares","value":11}]']),
    /patched/,
  );
  assert.match(await ok(['patch', PLC, 'delta', '--type=strategic', '-p', '{"spec":{"limited":{"lendablePercent":10}}}']), /\/delta patched$/m);
  assert.match(await ok(['patch', PLC, 'delta', '--type=strategic', '-p', '{"spec":{"limited":{"lendablePercent":10}}}']), /\/delta patched \(no change\)/);
  const stored = JSON.parse(await ok(['get', PLC, 'delta', '-o', 'json']));
  assert.is(stored.metadata.labels.x, 'y');
  assert.is(stored.spec.limited.nominalConcurrencyShares, 11);
  assert.is(stored.spec.limited.lendablePercent, 10);
});

test('edit with EDITOR set to a script', async () => {
  const editor = join(files, 'editor.sh');
  await writeFile(editor, '#!/bin/sh\nsed -i \'s/nominalConcurrencyShares: 11/nominalConcurrencyShares: 42/\' "$1"\n');
  await chmod(editor, 0o755);
  assert.match(await ok(['edit', PLC, 'delta'], { EDITOR: editor, KUBE_EDITOR: editor }), /\/delta edited/);
  assert.is(JSON.parse(await ok(['get', PLC, 'delta', '-o', 'json'])).spec.limited.nominalConcurrencyShares, 42);
});

test('replace with a stale resourceVersion is a Conflict', async () => {
  const stale = await ok(['get', PLC, 'delta', '-o', 'yaml']);
  await ok(['label', PLC, 'delta', 'touched=yes']);
  const path = await file('stale.yaml', stale);
  const result = await kubectl(['replace', '-f', path]);
  assert.is(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(
      String.raw`Error from server \(Conflict\): error when replacing ".*stale\.yaml": Operation cannot be fulfilled on ` +
        String.raw`prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io "delta": the object has been modified; please apply your changes to ` +
        'the latest version and try again',
    ),
  );
});

test('explain reads the OpenAPI schema', async () => {
  const out = await ok(['explain', `${PLC}.spec`]);
  assert.match(out, /KIND:\s+PriorityLevelConfiguration/);
  assert.match(out, /FIELD: spec <PriorityLevelConfigurationSpec>/);
  assert.match(out, /limited\s+<LimitedPriorityLevelConfiguration>/);
});

test('explain works for every served kind (each group-version has its OpenAPI document)', async () => {
  const resources = (await ok(['api-resources', '-o', 'name'])).trim().split('\n');
  assert.ok(resources.includes('selfsubjectaccessreviews.authorization.k8s.io'), resources.join(' '));
  for (const resource of resources) {
    const out = await ok(['explain', resource]);
    assert.match(out, /^KIND:\s+\S+$/m, resource);
    assert.match(out, /^FIELDS:$/m, resource);
  }
  const review = await ok(['explain', 'selfsubjectaccessreviews.spec.resourceAttributes']);
  assert.match(review, /FIELD: resourceAttributes <ResourceAttributes>/);
  assert.match(review, /verb\s+<string>/);
});

test('label and field selectors, and --chunk-size', async () => {
  const labelled = await ok(['get', PLC, '-l', 'a=b', '-o', 'name']);
  assert.equal(labelled.trim().split('\n'), ['prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/delta']);
  const byField = await ok(['get', 'flowschemas', '--field-selector', 'metadata.name=exempt', '-o', 'name']);
  assert.equal(byField.trim().split('\n'), ['flowschema.flowcontrol.apiserver.k8s.io/exempt']);
  const bad = await kubectl(['get', PLC, '--field-selector', 'spec.type=Limited']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /"spec.type" is not a known field selector: only "metadata.name", "metadata.namespace"/);
  const all = (await ok(['get', PLC, '--no-headers'])).trim().split('\n');
  const chunked = (await ok(['get', PLC, '--chunk-size=2', '--no-headers'])).trim().split('\n');
  assert.ok(all.length > 2);
  assert.equal(
    chunked.map((l) => l.split(/\s+/)[0]),
    all.map((l) => l.split(/\s+/)[0]),
  );
});

test('get -w prints changes as they happen', async () => {
  const watch = kubectl.start(['get', PLC, '-w']);
  await watch.waitFor(/^delta\s+Limited\s+42\s/m);
  await ok(['patch', PLC, 'delta', '--type=merge', '-p', '{"spec":{"limited":{"nominalConcurrencyShares":77}}}']);
  await watch.waitFor(/^delta\s+Limited\s+77\s/m);
  await watch.stop();
});

const CASCADE_DELETE =
  'delete --cascade=foreground and --cascade=orphan: marked with the finalizer, which the collector takes off; watchers see MODIFIED then DELETED';
test(CASCADE_DELETE, async () => {
  for (const [cascade, finalizer] of [
    ['foreground', 'foregroundDeletion'],
    ['orphan', 'orphan'],
  ] as const) {
    const name = `cascade-${cascade}`;
    await ok(['create', '-f', await file(`${name}.yaml`, plc(name, 3))]);
    const created = JSON.parse(await ok(['get', PLC, name, '-o', 'json']));
    const watch = openStream(
      server.url,
      `/apis/${GROUP}/v1/${PLC}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${created.metadata.resourceVersion}`,
      {
        token: server.token,
        caPem: server.caPem,
      },
    );
    try {
      const deleted = await kubectl(['delete', PLC, name, `--cascade=${cascade}`, '-v=8']);
      assert.is(deleted.code, 0, deleted.stderr);
      assert.match(deleted.stdout, new RegExp(`"${name}" deleted`));
      assert.match(deleted.stderr, new RegExp(`"Request Body" body=<\\s*\\{"propagationPolicy":"${cascade === 'foreground' ? 'Foreground' : 'Orphan'}"\\}`));
      await watch.until((events) => events.some((e) => e.type === 'DELETED'));
      assert.equal(
        watch.events.map((e) => e.type),
        ['MODIFIED', 'DELETED'],
      );
      const marked = watch.events[0].object.metadata;
      assert.equal(marked.finalizers, [finalizer]);
      assert.ok(marked.deletionTimestamp !== undefined && marked.deletionGracePeriodSeconds === 0);
      assert.is(marked.generation, created.metadata.generation + 1);
    } finally {
      watch.close();
    }
    const gone = await kubectl(['get', PLC, name]);
    assert.match(gone.stderr, /NotFound/);
  }
});

test('delete one, then delete --all', async () => {
  assert.match(await ok(['delete', PLC, 'epsilon']), /prioritylevelconfiguration\.flowcontrol\.apiserver\.k8s\.io "epsilon" deleted/);
  const missing = await kubectl(['delete', PLC, 'epsilon']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /Error from server \(NotFound\)/);
  const out = await ok(['delete', PLC, '--all']);
  assert.match(out, /"delta" deleted/);
  assert.match(out, /"global-default" deleted/);
  const left = await ok(['get', PLC, '-o', 'name']);
  assert.not.match(left, /delta|global-default/);
});

test('every request kubectl made was served over HTTP/2', async () => {
  const lines = server
    .stderr()
    .split('\n')
    .filter((line) => line.includes('"HTTP" verb=') && line.includes('userAgent="kubectl/'));
  assert.ok(lines.length > 50, `kubectl's requests are in the access log (${lines.length})`);
  const protocols = new Set(lines.map((line) => /protocol="([^"]+)"/.exec(line)?.[1]));
  assert.equal([...protocols], ['HTTP/2.0']);
  assert.ok(
    lines.some((line) => /verb="WATCH" .*protocol="HTTP\/2\.0"/.test(line)),
    'watches too',
  );
  assert.ok(
    lines.some((line) => /verb="APPLY" .*protocol="HTTP\/2\.0"/.test(line)),
    'server-side apply too',
  );
});

test('a wrong token is refused', async () => {
  const kubeconfig = yamlParse(await (await import('node:fs/promises')).readFile(server.kubeconfigPath, 'utf8'));
  kubeconfig.users[0].user.token = 'not-the-token';
  const path = await file('wrong.kubeconfig', kubeconfig);
  const result = await kubectlFor(path)(['get', PLC]);
  assert.is(result.code, 1);
  assert.match(result.stderr, /You must be logged in to the server/);
});

test.run();
