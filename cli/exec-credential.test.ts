import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWebhookKubeconfig } from '../engine/auth/webhook-kubeconfig.ts';
import { withExecCredential } from './exec-credential.ts';

/** A kubeconfig whose user has only an exec plugin: node running `script`. */
async function kubeconfigWithPlugin(dir: string, script: string): Promise<string> {
  const plugin = join(dir, 'plugin.mjs');
  await writeFile(plugin, script);
  const file = join(dir, 'exec.kubeconfig');
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
      users: [
        {
          name: 'u',
          user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], env: [{ name: 'WHO', value: 'eve' }] } },
        },
      ],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return file;
}

test('an exec plugin: run with KUBERNETES_EXEC_INFO and its env, its token used; its failures named', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-exec-'));
  try {
    const file = await kubeconfigWithPlugin(
      dir,
      "const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);\nconsole.log(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', " +
        'status: { token: process.env.WHO + "-" + info.spec.interactive } }));\n',
    );
    const loaded = loadWebhookKubeconfig(file);
    assert.ok(loaded.ok);
    if (!loaded.ok) return;
    assert.is(loaded.connection.token, undefined);
    const resolved = withExecCredential(loaded.connection);
    assert.ok(resolved.ok && resolved.connection.token === 'eve-false', JSON.stringify(resolved));

    const failing = loadWebhookKubeconfig(await kubeconfigWithPlugin(dir, "console.error('not logged in'); process.exit(3);\n"));
    assert.ok(failing.ok);
    if (!failing.ok) return;
    const failed = withExecCredential(failing.connection);
    assert.equal(failed, { ok: false, error: `the kubeconfig user's exec plugin ${JSON.stringify(process.execPath)} failed (exit 3): not logged in` });
    // A static token in the kubeconfig wins: the plugin is not run.
    assert.equal(withExecCredential({ ...failing.connection, token: 't' }), { ok: true, connection: { ...failing.connection, token: 't' } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
