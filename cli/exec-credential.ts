// A kubeconfig user's exec credential plugin (client-go's `users[].user.exec`: aws eks get-token,
// gke-gcloud-auth-plugin, kubelogin), run once as kubectl runs it: KUBERNETES_EXEC_INFO holds a
// non-interactive ExecCredential, the plugin prints an ExecCredential whose status carries a bearer
// token or a client certificate and key. A static token or certificate in the kubeconfig wins, as
// in client-go. The credential's expiry is not followed: a command that runs for hours (top)
// gets a 401 once it expires and says so.
import { spawnSync } from 'node:child_process';
import type { WebhookConnection } from '../engine/auth/webhook-kubeconfig.ts';

export type CredentialResult = { ok: true; connection: WebhookConnection } | { ok: false; error: string };

const PLUGIN_TIMEOUT_MS = 60_000;

export function withExecCredential(connection: WebhookConnection): CredentialResult {
  const exec = connection.exec;
  if (exec === undefined || connection.token !== undefined || connection.clientCertPem !== undefined) return { ok: true, connection };
  const info = { apiVersion: exec.apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const { name, value } of exec.env) env[name] = value;
  const run = spawnSync(exec.command, exec.args, { env, encoding: 'utf8', timeout: PLUGIN_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  const named = `the kubeconfig user's exec plugin ${JSON.stringify(exec.command)}`;
  if (run.error !== undefined) return { ok: false, error: `${named} could not run: ${run.error.message}` };
  if (run.status !== 0) return { ok: false, error: `${named} failed (exit ${run.status ?? run.signal}): ${run.stderr.trim().slice(0, 500)}` };
  let status: Record<string, unknown> | undefined;
  try {
    status = (JSON.parse(run.stdout) as { status?: Record<string, unknown> } | null)?.status;
  } catch {
    return { ok: false, error: `${named} did not print an ExecCredential (JSON)` };
  }
  const field = (name: string) => (typeof status?.[name] === 'string' && status[name] !== '' ? (status[name] as string) : undefined);
  const token = field('token');
  const cert = field('clientCertificateData');
  const key = field('clientKeyData');
  if (token !== undefined) return { ok: true, connection: { ...connection, token } };
  if (cert !== undefined && key !== undefined) return { ok: true, connection: { ...connection, clientCertPem: cert, clientKeyPem: key } };
  return { ok: false, error: `${named} printed no status.token and no status.clientCertificateData with clientKeyData` };
}
