// Reliability 5 (docs/reliability.md), configuration faults with a running `fairway serve`:
// - an invalid or unreadable file given at startup stops the server at once (exit 1), and the
//   message names the file and, for a content error, the field;
// - an invalid edit of --authorization-config under automatic reload is refused and the last good
//   configuration keeps deciding; a valid edit then takes effect;
// - an authorization webhook that hangs costs only the requests it must decide, each up to the
//   webhook's timeout (then kube-apiserver's answer to an authorizer error, a 500); requests it
//   does not decide are answered meanwhile;
// - a KMS plugin that hangs from the start costs only what needs it: the encrypted resource's
//   writes fail at once naming the provider, health checks answer (failing), everything else works.
// FAIRWAY_LONG=1: 50 requests held by the hung webhook (timeout 5 s) and 200 answered meanwhile,
// instead of 5 (timeout 1 s) and 10.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify as yamlStringify } from 'yaml';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { timedRequest, type Endpoint, type TimedResponse } from '../testing/load.ts';
import { sampleValue, scrape } from '../testing/metrics.ts';
import { encryptionConfig, kmsV2, markedFs, markedPlc, startListening, type ListeningServer } from '../commands/testing/encryption-fixtures.ts';
import { startWebhook, type WebhookProcess } from '../../engine/auth/testing/webhook-process.ts';
import { startKmsPlugin, type KmsPluginProcess } from '../../engine/kms/testing/plugin-process.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const PLC = `/apis/${GROUP}/v1/prioritylevelconfigurations`;
const FS = `/apis/${GROUP}/v1/flowschemas`;
const BOB = 'bob-config-token-000000001';
const LONG = process.env.FAIRWAY_LONG === '1';
const HELD = LONG ? 50 : 5;
const MEANWHILE = LONG ? 200 : 10;
/** The webhook's timeout: long enough for MEANWHILE requests to be answered while it hangs. */
const WEBHOOK_TIMEOUT = LONG ? '5s' : '1s';

let dir: string;
let webhook: WebhookProcess;
let plugin: KmsPluginProcess;
let server: ServerProcess;
let endpoint: Endpoint;

/** An AuthorizationConfiguration: one webhook deciding for everyone but system:masters (and whoever `also` excludes). */
const authorizationConfig = (timeout: string, also = 'true') =>
  yamlStringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthorizationConfiguration',
    authorizers: [
      {
        type: 'Webhook',
        name: 'policy',
        webhook: {
          timeout,
          authorizedTTL: '1ms',
          unauthorizedTTL: '1ms',
          subjectAccessReviewVersion: 'v1',
          matchConditionSubjectAccessReviewVersion: 'v1',
          failurePolicy: 'Deny',
          connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: webhook.kubeconfigPath },
          matchConditions: [{ expression: "!('system:masters' in request.groups)" }, { expression: also }],
        },
      },
    ],
  });

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-config-'));
  [webhook, plugin] = await Promise.all([startWebhook({ control: { mode: 'allow' } }), startKmsPlugin({ mode: 'hang' })]);
  await writeFile(join(dir, 'tokens.csv'), `${BOB},bob,uid-bob,"e2e"\n`);
  await writeFile(join(dir, 'authz.yaml'), authorizationConfig(WEBHOOK_TIMEOUT));
  server = await startServerProcess({ args: [`--authorization-config=${join(dir, 'authz.yaml')}`, `--token-auth-file=${join(dir, 'tokens.csv')}`] });
  endpoint = { url: server.url, caPem: server.caPem };
});

test.after(async () => {
  await server.stop();
  await Promise.all([webhook.stop(), plugin.stop()]);
  await rm(dir, { recursive: true, force: true });
});

test('invalid or unreadable files at startup: exit 1 at once, naming the file (and the field)', async () => {
  const bad = join(dir, 'bad');
  await mkdir(bad);
  const file = (name: string, text: string) => writeFile(join(bad, name), text).then(() => join(bad, name));
  const fifo = join(bad, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const cases: [string, string[], RegExp][] = [
    [
      'authorization config with an invalid field',
      [`--authorization-config=${await file('authz.yaml', authorizationConfig('45s'))}`],
      /authz\.yaml: authorizers\[0\]\.timeout: Invalid value: "45s": must be > 0s and <= 30s/,
    ],
    [
      'missing authorization config',
      [`--authorization-config=${join(bad, 'missing.yaml')}`],
      /failed to read authorization config file ".*missing\.yaml": ENOENT/,
    ],
    [
      'admission plugin configuration with invalid fields',
      [
        `--admission-control-config-file=${await file(
          'admission.yaml',
          'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  configuration:\n    apiVersion: ' +
            'eventratelimit.admission.k8s.io/v1alpha1\n    kind: Configuration\n    limits:\n    - {type: Bogus, qps: 1, burst: 1}\n',
        )}`,
        '--enable-admission-plugins=EventRateLimit',
      ],
      /admission\.yaml: couldn't init admission plugin "EventRateLimit": .*limits\[0\]\.type: Unsupported value: "Bogus"/,
    ],
    [
      'encryption config with a key of the wrong length',
      [
        `--encryption-provider-config=${await file(
          'encryption.yaml',
          encryptionConfig([[`flowschemas.${GROUP}`], '      - aescbc:\n          keys:\n            - {name: k1, secret: "c2hvcnQ="}\n']),
        )}`,
      ],
      new RegExp(
        String.raw`encryption\.yaml: error while parsing file: ` +
          String.raw`resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED": secret ` +
          'is not of the expected length',
      ),
    ],
    [
      'encryption config with a key written as a map (the key is never printed)',
      [
        `--encryption-provider-config=${await file(
          'encryption-shape.yaml',
          encryptionConfig([
            [`flowschemas.${GROUP}`],
            '      - aescbc:\n          keys:\n            - {name: k1, secret: {part: "TUFURVJJQUwtTkVWRVItUFJJTlRFRA=="}}\n',
          ]),
        )}`,
      ],
      new RegExp(
        String.raw`^(?![\s\S]*TUFURVJJQUwtTkVWRVItUFJJTlRFRA)[\s\S]*encryption-shape\.yaml: error while parsing file: error decoding encryption ` +
          String.raw`provider configuration file ".*": resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED": must be ` +
          'of type string, not a map',
      ),
    ],
    ['token file that is a directory', [`--token-auth-file=${bad}`], /read .*bad: is a directory/],
    // Each file flag goes through the bounded regular-file reader: a device would be read until
    // the heap is gone, a FIFO would wait forever for a writer.
    ['encryption config that is a device', ['--encryption-provider-config=/dev/urandom'], /\/dev\/urandom is not a regular file \(a character device\)/],
    ['authorization config that is a FIFO', [`--authorization-config=${fifo}`], /fifo is not a regular file \(a named pipe\)/],
    ['admission config that is a device', ['--admission-control-config-file=/dev/zero'], /\/dev\/zero is not a regular file \(a character device\)/],
    ['token file that is a FIFO', [`--token-auth-file=${fifo}`], /fifo is not a regular file \(a named pipe\)/],
    ['client CA file that is a device', ['--client-ca-file=/dev/urandom'], /\/dev\/urandom is not a regular file \(a character device\)/],
    [
      'client CA file without a certificate',
      [`--client-ca-file=${await file('ca.crt', 'not a certificate\n')}`],
      /unable to load client CA file ".*ca\.crt": data does not contain any valid RSA or ECDSA certificates/,
    ],
    [
      'serving certificate that is not PEM',
      [`--tls-cert-file=${await file('tls.crt', 'junk')}`, `--tls-private-key-file=${await file('tls.key', 'junk')}`],
      /failed to load the serving certificate ".*tls\.crt" and key ".*tls\.key": .*no start line/,
    ],
  ];
  const outcomes = await Promise.all(
    cases.map(([, args]) =>
      startServerProcess({ args }).then(
        async (started) => `started: ${await started.stop()}`,
        (error: Error) => error.message,
      ),
    ),
  );
  cases.forEach(([what, , expected], i) => {
    assert.match(outcomes[i]!, /^fairway serve exited with 1 before it was ready/, `${what}: ${outcomes[i]}`);
    assert.match(outcomes[i]!, expected, what);
  });
});

test('an authorization webhook that hangs costs only the requests it decides, each up to its timeout', async () => {
  const bobGet = () => timedRequest(endpoint, `${PLC}/exempt`, { token: BOB, timeoutMs: 30_000 });
  assert.is((await bobGet()).status, 200, 'the webhook allows bob');
  webhook.control({ mode: 'hang' });
  try {
    let decidedEnded = 0;
    const decided = Array.from({ length: HELD }, () => bobGet().then((response) => (decidedEnded++, response)));
    // Meanwhile: what the webhook does not decide (system:masters, and health checks anyone may ask).
    const others: { response: TimedResponse; whileHung: boolean }[] = [];
    for (let i = 0; i < MEANWHILE; i++) {
      const response = await timedRequest(endpoint, i % 2 === 0 ? `${PLC}/exempt` : '/healthz', { token: i % 4 === 1 ? BOB : server.token });
      others.push({ response, whileHung: decidedEnded === 0 });
    }
    for (const { response, whileHung } of others) {
      assert.is(response.status, 200);
      assert.ok(whileHung, 'answered while the webhook still held the others');
    }
    for (const response of await Promise.all(decided)) {
      // kube-apiserver's WithAuthorization answers an authorizer error with Go's InternalError text.
      assert.is(response.status, 500);
      assert.match(
        response.text,
        new RegExp(
          `^Internal Server Error: ".*/exempt": Post "https://127\\.0\\.0\\.1:\\d+/authorize\\?timeout=${WEBHOOK_TIMEOUT}": context deadline exceeded`,
        ),
      );
    }
  } finally {
    webhook.control({ mode: 'allow' });
  }
  assert.is((await bobGet()).status, 200, 'decided again once the webhook answers');
});

test('an invalid edit under automatic reload is refused, the last good configuration stays; a valid edit applies', async () => {
  const reloads = async (status: string) =>
    sampleValue(await scrape(endpoint, server.token), 'apiserver_authorization_config_controller_automatic_reloads_total', { status }) ?? 0;
  const waitFor = async (what: string, check: () => Promise<boolean>) => {
    for (let i = 0; i < 400; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.unreachable(`${what} did not happen`);
  };
  const bobStatus = async () => (await timedRequest(endpoint, `${PLC}/exempt`, { token: BOB })).status;
  const failures = await reloads('failure');
  const successes = await reloads('success');

  await writeFile(join(dir, 'authz.yaml'), authorizationConfig('45s'));
  // The file watch may also see the write half done (another refused reload); wait for this one.
  const refusal = /reloading authorization config: .*authz\.yaml: authorizers\[0\]\.timeout: Invalid value: "45s"/;
  await waitFor('the refused reload, logged with file and field', async () => refusal.test(server.stderr()));
  assert.ok((await reloads('failure')) > failures, 'counted as a failed reload');
  assert.is(await bobStatus(), 200, 'the last good configuration still decides');

  // Valid, and bob no longer goes to the webhook: no authorizer allows him any more.
  await writeFile(join(dir, 'authz.yaml'), authorizationConfig(WEBHOOK_TIMEOUT, "request.user != 'bob'"));
  await waitFor('the new configuration to decide', async () => (await bobStatus()) === 403);
  assert.ok((await reloads('success')) > successes, 'counted as a successful reload');
});

test('a KMS plugin that hangs from the start costs only what needs it', async () => {
  const configFile = join(dir, 'encryption.yaml');
  await writeFile(configFile, encryptionConfig([[`flowschemas.${GROUP}`], kmsV2('vault', plugin.endpoint)]));
  const kms: ListeningServer = await startListening(join(dir, 'kms-data'), [`--encryption-provider-config=${configFile}`]);
  try {
    const refused = await kms.client.request('POST', FS, { body: markedFs('needs-kms', 'x') });
    assert.is(refused.status, 500, refused.text);
    assert.match(refused.json().message, /kms provider "vault": .*no DEK seed from the plugin yet/);
    const health = await kms.client.get('/healthz');
    assert.is(health.status, 500);
    assert.match(health.text, /\[-\]kms-provider-0 failed/);
    assert.is((await kms.client.request('POST', PLC, { body: markedPlc('no-kms-needed', 'x') })).status, 201, 'unencrypted resources are written');
    assert.is((await kms.client.get(`${PLC}/no-kms-needed`)).status, 200);
    assert.is((await kms.client.get('/livez?exclude=kms-provider-0')).status, 200, 'liveness without the KMS check passes');
    assert.ok(plugin.calls().length > 0, 'the plugin was asked (and never answered)');
  } finally {
    assert.is(await kms.stop(), 0, 'SIGTERM still stops the server cleanly');
  }
});

test.run();
