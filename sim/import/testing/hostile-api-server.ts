// A stand-in for the API server `fairway sim import` reads, answering its three paths with whatever
// a test hands it: an HTTPS server on 127.0.0.1 (port chosen by the system) with its own CA, and a
// kubeconfig that trusts it. An answer is a body, or a trickle: one byte per interval, forever.
import { createServer, type Server } from 'node:https';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generateCertificateAuthority, issueServingCertificate } from '../../../engine/x509/certificates.ts';

export const FLOWCONTROL = '/apis/flowcontrol.apiserver.k8s.io/v1';
export const PLC_PATH = `${FLOWCONTROL}/prioritylevelconfigurations`;
export const FS_PATH = `${FLOWCONTROL}/flowschemas`;
export const METRICS_PATH = '/metrics';
export const LEASES_PATH = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';

export type Answer = { status?: number; body: string } | { trickleEveryMs: number };

export interface HostileServer {
  /** A kubeconfig for it, written into the directory given. */
  kubeconfig: string;
  url: string;
  /** What each path answers from now on (paths not set answer 404). */
  answers: Map<string, Answer>;
  close(): Promise<void>;
}

export async function startHostileServer(dir: string): Promise<HostileServer> {
  const ca = await generateCertificateAuthority();
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  const answers = new Map<string, Answer>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const answer = answers.get(new URL(req.url ?? '/', 'https://x').pathname);
    if (answer === undefined) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"kind":"Status","message":"not found"}');
      return;
    }
    if ('body' in answer) {
      res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json' }).end(answer.body);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const timer = setInterval(() => res.write('['), answer.trickleEveryMs);
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfig = join(dir, 'hostile.kubeconfig');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return {
    kubeconfig,
    url,
    answers,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A list body as the API server sends it. */
export function listBody(kind: string, items: unknown): string {
  return JSON.stringify({ kind: `${kind}List`, apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { resourceVersion: '1' }, items });
}
