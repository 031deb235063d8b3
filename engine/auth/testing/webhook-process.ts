// Starts webhook-server.ts as a real child process for tests, with its own CA and serving
// certificate, and writes the kubeconfig an AuthorizationConfiguration points at. Tests steer it
// through its control file and read its call log. `stop()` ends the process by its own pid and
// removes the temporary directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { generateCertificateAuthority, issueClientCertificate, issueServingCertificate, type KeyPairPem } from '../../x509/certificates.ts';

export interface WebhookControl {
  mode?: 'allow' | 'deny' | 'noOpinion' | 'both' | 'hang' | 'garbage' | 'status500' | 'rules';
  reason?: string;
  rules?: {
    user?: string;
    verb?: string;
    resource?: string;
    path?: string;
    nonResource?: boolean;
    decision: 'allow' | 'deny' | 'noOpinion';
    reason?: string;
  }[];
  failFirst?: number;
  apiVersion?: string;
}

export interface WebhookCall {
  call: number;
  url: string;
  authorization: string;
  clientCommonName: string;
  apiVersion?: string;
  spec?: Record<string, unknown>;
  body: string;
}

export interface WebhookProcess {
  readonly dir: string;
  readonly url: string;
  readonly ca: KeyPairPem;
  /** A kubeconfig naming this webhook, its CA, and the credential Fairway presents. */
  readonly kubeconfigPath: string;
  control(settings: WebhookControl): void;
  calls(): WebhookCall[];
  stop(): Promise<void>;
}

const SERVER = fileURLToPath(new URL('./webhook-server.ts', import.meta.url));

export interface WebhookOptions {
  control?: WebhookControl;
  /** Require this bearer token (the kubeconfig carries it). */
  token?: string;
  /** Require a client certificate signed by the webhook's CA (the kubeconfig carries one). */
  clientCertificate?: boolean;
  /** Path appended to the server URL in the kubeconfig. */
  path?: string;
}

export async function startWebhook(options: WebhookOptions = {}): Promise<WebhookProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-authz-webhook-'));
  const ca = await generateCertificateAuthority({ commonName: 'webhook-test-ca' });
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1', 'localhost'] });
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  const caPath = file('ca.crt', ca.certPem);
  const certPath = file('server.crt', serving.certPem);
  const keyPath = file('server.key', serving.keyPem);
  const controlPath = file('control.json', JSON.stringify(options.control ?? {}));
  const logPath = join(dir, 'calls.log');
  const args = ['--import', 'tsx', SERVER, '--cert', certPath, '--key', keyPath, '--control', controlPath, '--log', logPath];
  if (options.token !== undefined) args.push('--token', options.token);
  if (options.clientCertificate === true) args.push('--client-ca', caPath);

  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /ready (\d+)/.exec(chunk.toString());
      if (match !== null) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`webhook exited before ready (code ${code}): ${stderr}`)));
    child.once('error', reject);
  });
  const url = `https://127.0.0.1:${port}${options.path ?? '/authorize'}`;

  const user: Record<string, string> = {};
  if (options.token !== undefined) user.token = options.token;
  if (options.clientCertificate === true) {
    const client = await issueClientCertificate(ca, { user: 'fairway-apiserver' });
    user['client-certificate'] = file('client.crt', client.certPem);
    user['client-key'] = file('client.key', client.keyPem);
  }
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'webhook', cluster: { server: url, 'certificate-authority': 'ca.crt' } }],
    users: [{ name: 'apiserver', user }],
    contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
    'current-context': 'webhook',
  };
  const kubeconfigPath = file('kubeconfig.yaml', stringify(kubeconfig));

  return {
    dir,
    url,
    ca,
    kubeconfigPath,
    control: (settings) => writeFileSync(controlPath, JSON.stringify(settings)),
    calls: () =>
      existsSync(logPath)
        ? readFileSync(logPath, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as WebhookCall)
        : [],
    stop: async () => {
      if (child.exitCode === null && child.pid !== undefined) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
