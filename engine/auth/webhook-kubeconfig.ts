// The kubeconfig that tells a webhook authorizer where its webhook is and how to reach it
// (`connectionInfo.kubeConfigFile`, the legacy `--authorization-webhook-config-file` format):
// `current-context` picks a context, whose cluster gives the URL (POSTed to exactly as written)
// and the CA, and whose user gives the credentials Fairway presents (client certificate, bearer
// token or basic auth). File paths inside resolve against the kubeconfig's own directory, as
// client-go's loader resolves them.
import { readConfigFileSync } from '../config/config-file.ts';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { measureYamlCost } from '../yaml-cost.ts';

export interface WebhookConnection {
  /** The full URL the review is POSTed to. */
  url: URL;
  caPem?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  username?: string;
  password?: string;
  /**
   * The user's client-go exec credential plugin, as written (kubectl's clusters on EKS, GKE, AKS):
   * the engine does not run programs, a command that needs the credential runs it
   * (cli/exec-credential.ts) and sets the token or certificate it prints.
   */
  exec?: ExecPlugin;
}

export interface ExecPlugin {
  apiVersion: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

export type KubeconfigLoad = { ok: true; connection: WebhookConnection } | { ok: false; error: string };

/**
 * Reads and resolves a webhook kubeconfig; every problem is an error value naming the file.
 * Synchronous: it runs when an authorizer chain is built (startup, reload, `config check`).
 */
export function loadWebhookKubeconfig(file: string, options: { context?: string | undefined } = {}): KubeconfigLoad {
  let text: string;
  try {
    text = readConfigFileSync(file).toString('utf8');
  } catch (error) {
    return { ok: false, error: `invalid configuration: unable to read ${file}: ${(error as Error).message}` };
  }
  // Hostile text is refused before composing it costs more than any kubeconfig needs (engine/yaml-cost.ts).
  const { exceeded } = measureYamlCost(text);
  if (exceeded !== undefined) return { ok: false, error: `error loading config file "${file}": yaml: ${exceeded.message}` };
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch (error) {
    return { ok: false, error: `error loading config file "${file}": ${(error as Error).message.split('\n')[0]}` };
  }
  try {
    return { ok: true, connection: resolveConnection(config, dirname(file), options.context) };
  } catch (error) {
    return { ok: false, error: `invalid kubeconfig ${file}: ${(error as Error).message}` };
  }
}

function resolveConnection(config: unknown, baseDir: string, contextName: string | undefined): WebhookConnection {
  const root = asObject(config, 'the file is not a kubeconfig object');
  // kubectl's --context overrides the file's current-context.
  const currentContext = contextName ?? (typeof root['current-context'] === 'string' ? root['current-context'] : '');
  const contexts = namedEntries(root.contexts, 'context');
  const clusters = namedEntries(root.clusters, 'cluster');
  const users = namedEntries(root.users, 'user');
  // With no current-context, client-go's webhook loader still works when there is exactly one
  // cluster (and at most one user): that is how most webhook kubeconfigs are written.
  let clusterName: string | undefined;
  let userName: string | undefined;
  if (currentContext !== '') {
    const context = contexts.get(currentContext);
    if (context === undefined) throw new Error(`context was not found for specified context: ${currentContext}`);
    clusterName = typeof context.cluster === 'string' ? context.cluster : '';
    userName = typeof context.user === 'string' ? context.user : '';
  } else if (clusters.size === 1 && users.size <= 1) {
    clusterName = [...clusters.keys()][0];
    userName = [...users.keys()][0];
  } else {
    throw new Error('no current-context is set and the file does not have exactly one cluster');
  }
  const cluster = clusters.get(clusterName ?? '');
  if (cluster === undefined) throw new Error(`cluster "${clusterName}" was not found`);
  const user = userName === undefined || userName === '' ? {} : users.get(userName);
  if (user === undefined) throw new Error(`user "${userName}" was not found`);

  const server = typeof cluster.server === 'string' ? cluster.server : '';
  if (server === '') throw new Error('no server found for cluster');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new Error(`invalid server URL ${JSON.stringify(server)}`);
  }
  if (url.protocol !== 'https:') throw new Error(`server ${JSON.stringify(server)} must use https`);

  const connection: WebhookConnection = { url, insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true };
  const fileOrData = (fileKey: string, dataKey: string, from: Record<string, unknown>): string | undefined => {
    const data = from[dataKey];
    if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64').toString('utf8');
    const path = from[fileKey];
    if (typeof path === 'string' && path !== '') {
      const absolute = isAbsolute(path) ? path : resolve(baseDir, path);
      try {
        return readConfigFileSync(absolute).toString('utf8');
      } catch (error) {
        throw new Error(`unable to read ${fileKey} ${absolute}: ${(error as Error).message}`);
      }
    }
    return undefined;
  };
  const ca = fileOrData('certificate-authority', 'certificate-authority-data', cluster);
  if (ca !== undefined) connection.caPem = ca;
  if (typeof cluster['tls-server-name'] === 'string' && cluster['tls-server-name'] !== '') connection.tlsServerName = cluster['tls-server-name'];
  const cert = fileOrData('client-certificate', 'client-certificate-data', user);
  const key = fileOrData('client-key', 'client-key-data', user);
  if ((cert === undefined) !== (key === undefined)) throw new Error('client-certificate and client-key must be given together');
  if (cert !== undefined && key !== undefined) {
    connection.clientCertPem = cert;
    connection.clientKeyPem = key;
  }
  if (typeof user.token === 'string' && user.token !== '') connection.token = user.token;
  else {
    const token = fileOrData('tokenFile', '', user);
    if (token !== undefined) connection.token = token.trim();
  }
  if (user.exec !== undefined && user.exec !== null) connection.exec = execPlugin(user.exec, userName ?? '');
  if (typeof user.username === 'string' && user.username !== '') {
    connection.username = user.username;
    connection.password = typeof user.password === 'string' ? user.password : '';
  }
  return connection;
}

function execPlugin(value: unknown, user: string): ExecPlugin {
  const exec = asObject(value, `users[${user}].user.exec must be an object`);
  if (typeof exec.command !== 'string' || exec.command === '') throw new Error(`users[${user}].user.exec.command is required`);
  const strings = (list: unknown, field: string): unknown[] => {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw new Error(`users[${user}].user.exec.${field} must be a list`);
    return list;
  };
  const args = strings(exec.args, 'args').map((arg) => String(arg));
  const env = strings(exec.env, 'env').map((entry, i) => {
    const e = asObject(entry, `users[${user}].user.exec.env[${i}] must be an object`);
    return { name: String(e.name ?? ''), value: String(e.value ?? '') };
  });
  const apiVersion = typeof exec.apiVersion === 'string' ? exec.apiVersion : 'client.authentication.k8s.io/v1';
  return { apiVersion, command: exec.command, args, env };
}

function namedEntries(list: unknown, field: string): Map<string, Record<string, unknown>> {
  const entries = new Map<string, Record<string, unknown>>();
  if (list === undefined || list === null) return entries;
  if (!Array.isArray(list)) throw new Error(`${field}s must be a list`);
  for (const item of list) {
    const entry = asObject(item, `each ${field}s entry must be an object`);
    const name = typeof entry.name === 'string' ? entry.name : '';
    entries.set(name, entry[field] === undefined || entry[field] === null ? {} : asObject(entry[field], `${field} "${name}" must be an object`));
  }
  return entries;
}

function asObject(value: unknown, message: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(message);
  return value as Record<string, unknown>;
}
