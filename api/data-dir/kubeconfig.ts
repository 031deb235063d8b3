// The kubeconfig the server writes for its admin: one cluster (server URL + the CA, so kubectl
// verifies TLS rather than skipping verification), one user, one context made current. The file
// holds a credential, so it is mode 0600 and written atomically.
import { stringify } from 'yaml';
import { writeFileAtomic } from './atomic-write.ts';

export const KUBECONFIG_NAME = 'fairway';

export type KubeconfigUser = { name: string; token: string } | { name: string; clientCertPem: string; clientKeyPem: string };

export interface KubeconfigOptions {
  serverUrl: string;
  caPem: string;
  user: KubeconfigUser;
  /** Cluster and context name; `fairway` by default. */
  name?: string;
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The kubeconfig as YAML text, in the layout `kubectl config view --raw` prints. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const name = options.name ?? KUBECONFIG_NAME;
  const user = options.user;
  const credentials =
    'token' in user ? { token: user.token } : { 'client-certificate-data': base64(user.clientCertPem), 'client-key-data': base64(user.clientKeyPem) };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ cluster: { 'certificate-authority-data': base64(options.caPem), server: options.serverUrl }, name }],
    contexts: [{ context: { cluster: name, user: user.name }, name }],
    'current-context': name,
    preferences: {},
    users: [{ name: user.name, user: credentials }],
  };
  return stringify(config, { lineWidth: 0 });
}

/** Writes a kubeconfig for user `admin` authenticating with a bearer token. */
export async function writeAdminKubeconfig(path: string, options: { serverUrl: string; caPem: string; token: string }): Promise<void> {
  await writeKubeconfig(path, { serverUrl: options.serverUrl, caPem: options.caPem, user: { name: 'admin', token: options.token } });
}

export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  await writeFileAtomic(path, renderKubeconfig(options), 0o600);
}
