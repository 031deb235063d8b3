// kubectl sends credentials only over https (client-go ignores the kubeconfig user for http), so
// the server always serves TLS. Without --tls-cert-file, the first start creates a CA and a serving
// certificate in the cert dir; later starts reuse them as long as they are intact, unexpired and
// still name every address the server answers on (a new --bind-address gets a new serving cert
// from the same CA, so kubeconfigs keep working). Client certificates signed by the same CA
// authenticate as CommonName = user, Organization = groups, as Kubernetes' x509 authenticator reads
// them.
//
// Certificates are made by engine/x509/certificates.ts; reading and checking them uses Node's own
// X509Certificate, so a restart that reuses its certificates never loads @peculiar/x509.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readConfigFile } from '../../engine/config/config-file.ts';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { join } from 'node:path';
import { writeFileAtomic } from '../data-dir/atomic-write.ts';
import { makeDirectories } from '../../engine/make-directories.ts';
import { generateCertificateAuthority, issueServingCertificate, type KeyPairPem } from '../../engine/x509/certificates.ts';

/** A certificate this close to expiry is replaced at start. */
const RENEW_BEFORE_MS = 7 * 24 * 60 * 60 * 1000;

export interface ServingCertificates {
  ca: KeyPairPem;
  serving: KeyPairPem;
  caCertPath: string;
  certPath: string;
  keyPath: string;
  /** Which files this call wrote; empty when everything was reused. */
  written: ('ca' | 'serving')[];
}

export interface EnsureOptions {
  certDir: string;
  /** The --bind-address; named in the certificate unless it is the unspecified address. */
  bindAddress: string;
  /** More DNS names or IPs to name (the machine's hostname, a public address...). */
  extraHosts?: readonly string[];
  nowMs?: number;
}

export const CERT_FILES = { caCert: 'ca.crt', caKey: 'ca.key', cert: 'apiserver.crt', key: 'apiserver.key' } as const;

/** The names a serving certificate must carry: localhost, both loopbacks, the bind address, extras. */
export function servingHosts(bindAddress: string, extraHosts: readonly string[] = []): string[] {
  const hosts = ['localhost', '127.0.0.1', '::1'];
  const unspecified = bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '';
  for (const host of [...(unspecified ? [] : [bindAddress]), ...extraHosts]) {
    const normalized = isIP(host) === 6 ? new URL(`http://[${host}]`).hostname.slice(1, -1) : host.toLowerCase();
    if (!hosts.includes(normalized)) hosts.push(normalized);
  }
  return hosts;
}

/** Loads the CA and serving certificate from the cert dir, creating or replacing what is unusable. */
export async function ensureServingCertificates(options: EnsureOptions): Promise<ServingCertificates> {
  const nowMs = options.nowMs ?? Date.now();
  const hosts = servingHosts(options.bindAddress, options.extraHosts);
  const path = (name: string) => join(options.certDir, name);
  await makeDirectories(options.certDir, 0o700);
  const written: ('ca' | 'serving')[] = [];

  let ca = await readPair(path(CERT_FILES.caCert), path(CERT_FILES.caKey));
  if (ca === undefined || !isUsableCa(ca, nowMs)) {
    ca = await generateCertificateAuthority({ nowMs });
    await writeFileAtomic(path(CERT_FILES.caKey), ca.keyPem, 0o600);
    await writeFileAtomic(path(CERT_FILES.caCert), ca.certPem, 0o644);
    written.push('ca');
  }
  let serving = await readPair(path(CERT_FILES.cert), path(CERT_FILES.key));
  if (serving === undefined || written.includes('ca') || !isUsableServing(serving, ca, hosts, nowMs)) {
    serving = await issueServingCertificate(ca, { hosts, nowMs });
    await writeFileAtomic(path(CERT_FILES.key), serving.keyPem, 0o600);
    await writeFileAtomic(path(CERT_FILES.cert), serving.certPem, 0o644);
    written.push('serving');
  }
  return { ca, serving, caCertPath: path(CERT_FILES.caCert), certPath: path(CERT_FILES.cert), keyPath: path(CERT_FILES.key), written };
}

async function readPair(certPath: string, keyPath: string): Promise<KeyPairPem | undefined> {
  try {
    return { certPem: (await readConfigFile(certPath)).toString('utf8'), keyPem: (await readConfigFile(keyPath)).toString('utf8') };
  } catch {
    return undefined;
  }
}

/** Parses and checks a pair; any parse failure means "not usable", never a crash. */
function inspect(pair: KeyPairPem, nowMs: number): X509Certificate | undefined {
  try {
    const cert = new X509Certificate(pair.certPem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return undefined;
    if (Date.parse(cert.validFrom) > nowMs || Date.parse(cert.validTo) - RENEW_BEFORE_MS < nowMs) return undefined;
    return cert;
  } catch {
    return undefined;
  }
}

function isUsableCa(pair: KeyPairPem, nowMs: number): boolean {
  return inspect(pair, nowMs)?.ca === true;
}

function isUsableServing(pair: KeyPairPem, ca: KeyPairPem, hosts: readonly string[], nowMs: number): boolean {
  const cert = inspect(pair, nowMs);
  if (cert === undefined) return false;
  try {
    if (!cert.verify(new X509Certificate(ca.certPem).publicKey)) return false;
  } catch {
    return false;
  }
  return hosts.every((host) => (isIP(host) === 0 ? cert.checkHost(host, { wildcards: false }) !== undefined : cert.checkIP(host) !== undefined));
}

/**
 * Throws, naming both files, unless `certPem` holds a certificate and `keyPem` its private key.
 * Checked before anything starts: a bad pair found by `https.createServer` would leave the store
 * and the controllers running in a process that serves nothing.
 */
export function checkServingPair(certPem: string, keyPem: string, certFile: string, keyFile: string): void {
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (error) {
    throw new Error(`failed to load the serving certificate ${JSON.stringify(certFile)} and key ${JSON.stringify(keyFile)}: ${(error as Error).message}`);
  }
}

/** Throws unless a --client-ca-file holds at least one certificate, as kube-apiserver refuses to start on one that does not. */
export function checkClientCaBundle(pem: string, file: string): void {
  const parses = (block: string) => {
    try {
      new X509Certificate(block);
      return true;
    } catch {
      return false;
    }
  };
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.some(parses)) throw new Error(`unable to load client CA file ${JSON.stringify(file)}: data does not contain any valid RSA or ECDSA certificates`);
}
