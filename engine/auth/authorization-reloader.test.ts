// Automatic reload of --authorization-config against a real webhook process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { realClock } from '../clock.ts';
import { createPrng } from '../random.ts';
import type { AuthorizationAttributes } from './authorizer.ts';
import { createPromAuthorizationMetrics } from './authorization-metrics.ts';
import { startAuthorizationConfigController, type AuthorizationConfigController } from './authorization-reloader.ts';
import { startWebhook, type WebhookProcess } from './testing/webhook-process.ts';

let webhook: WebhookProcess;
let dir: string;
const bob: AuthorizationAttributes = {
  user: { name: 'bob', groups: ['system:authenticated'] },
  verb: 'list',
  isResourceRequest: true,
  path: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
  namespace: '',
  apiGroup: 'flowcontrol.apiserver.k8s.io',
  apiVersion: 'v1',
  resource: 'flowschemas',
  subresource: '',
  name: '',
};

const header = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n';
const denyAll = '- type: AlwaysDeny\n  name: alwaysdeny\n';
const webhookEntry = () =>
  '- type: Webhook\n  name: policy\n  webhook:\n    timeout: 2s\n    subjectAccessReviewVersion: v1\n    failurePolicy: NoOpinion\n    ' +
  `connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: ${webhook.kubeconfigPath}\n`;

/** Writes the file the way editors and config maps do: a new file renamed over the old one. */
function replaceFile(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.unreachable(`never happened: ${what}`);
}

test.before(async () => {
  webhook = await startWebhook({ control: { mode: 'allow', reason: 'webhook says yes' } });
  dir = mkdtempSync(join(tmpdir(), 'fw-authz-reload-'));
});
test.after(async () => {
  await webhook.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a valid edit swaps the chain in; an invalid edit keeps the last good one', async () => {
  const file = join(dir, 'authz.yaml');
  writeFileSync(file, header + denyAll);
  const registry = new Registry();
  const started = await startAuthorizationConfigController({
    file,
    clock: realClock(),
    prng: createPrng(1),
    metrics: createPromAuthorizationMetrics(registry),
    watchFile: false,
    intervalMs: 3_600_000,
  });
  assert.ok(started.ok);
  if (!started.ok) return;
  const controller: AuthorizationConfigController = started.controller;
  try {
    assert.equal(await controller.authorizer.authorize(bob), { decision: 'noOpinion', reason: 'Everything is forbidden.' });
    assert.is(await controller.check(), 'unchanged');

    writeFileSync(file, header + webhookEntry() + denyAll);
    assert.is(await controller.check(), 'reloaded');
    assert.equal(await controller.authorizer.authorize(bob), { decision: 'allow', reason: 'webhook says yes' });

    writeFileSync(file, `${header + webhookEntry() + denyAll}  bogus: true\n`);
    assert.is(await controller.check(), 'failed');
    assert.equal(await controller.authorizer.authorize(bob), { decision: 'allow', reason: 'webhook says yes' }, 'last good chain still serves');

    writeFileSync(file, header + webhookEntry());
    assert.is(await controller.check(), 'failed', 'AlwaysDeny was there at startup and must stay');
    writeFileSync(file, `${header + webhookEntry() + denyAll}- type: RBAC\n  name: rbac\n`);
    assert.is(await controller.check(), 'failed', 'RBAC cannot appear by reload');

    // Only the comment changes: new bytes, same configuration, nothing rebuilt.
    writeFileSync(file, `# a comment\n${header}${webhookEntry()}${denyAll}`);
    assert.is(await controller.check(), 'unchanged');
    const text = await registry.metrics();
    assert.match(text, /apiserver_authorization_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash=""\} 2/);
    assert.match(text, /apiserver_authorization_config_controller_automatic_reloads_total\{status="failure",apiserver_id_hash=""\} 3/);
  } finally {
    controller.stop();
  }
});

test('a change is picked up without being asked: file watch, and the poll', async () => {
  for (const mode of ['watch', 'poll'] as const) {
    const file = join(dir, `authz-${mode}.yaml`);
    writeFileSync(file, header + denyAll);
    const started = await startAuthorizationConfigController({
      file,
      clock: realClock(),
      prng: createPrng(2),
      watchFile: mode === 'watch',
      intervalMs: mode === 'watch' ? 3_600_000 : 50,
    });
    assert.ok(started.ok);
    if (!started.ok) return;
    try {
      replaceFile(file, header + webhookEntry() + denyAll);
      await eventually(async () => (await started.controller.authorizer.authorize(bob)).decision === 'allow', `reload by ${mode}`);
    } finally {
      started.controller.stop();
    }
  }
});

test('a startup configuration that does not load is an error naming the file', async () => {
  const file = join(dir, 'broken.yaml');
  writeFileSync(file, `${header}- type: Webhook\n  name: w\n`);
  const started = await startAuthorizationConfigController({ file, clock: realClock(), prng: createPrng(3), watchFile: false });
  assert.equal(started, { ok: false, error: `${file}: authorizers[0].webhook: Required value: required when type=Webhook` });
});

test.run();
