// kubectl sends credentials only over https (client-go ignores the kubeconfig user for http), so
// the server always serves TLS. Without --tls-cert-file, the first start creates a CA and a serving
// certificate in the cert dir; later starts reuse them as long as they are intact, unexpired and
// still name every address the server answers on (a new --bind-address gets a new serving cert
// from the same CA, so kubeconfigs keep working). Client certificates signed by the same CA
// authenticate as CommonName = user, Organization = groups, as Kubernetes' x509 authenticator reads
// them.
//
// Keys are ECDSA P-256 (Go's crypto/tls and Node both accept it; generation is instant). X.509
// encoding uses @peculiar/x509 over Node's WebCrypto; reading and checking uses Node's own
// X509Certificate. @peculiar/x509 is loaded only when a certificate is made: it costs more to load
// (about 0.5 s of CPU) than the rest of a restart that reuses its certificates.
import type * as X509 from '@peculiar/x509';
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { readConfigFile } from '../../engine/config/config-file.ts';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { join } from 'node:path';
import { writeFileAtomic } from '../data-dir/atomic-write.ts';
import { makeDirectories } from '../../engine/make-directories.ts';

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start an hour in the past, so a client whose clock lags a little still accepts them. */
const BACKDATE_MS = 60 * 60 * 1000;
/** A certificate this close to expiry is replaced at start. */
const RENEW_BEFORE_MS = 7 * DAY_MS;

export const CA_VALIDITY_DAYS = 3650;
export const SERVING_VALIDITY_DAYS = 365;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

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

let x509Module: Promise<typeof X509> | undefined;
/** @peculiar/x509, set to use Node's WebCrypto. */
function loadX509(): Promise<typeof X509> {
  x509Module ??= (async () => {
    await import('reflect-metadata'); // its dependency injection (tsyringe) needs the Reflect metadata API
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    return x509;
  })();
  return x509Module;
}

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

const serialNumber = () => {
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f; // a positive INTEGER without a padding byte
  return bytes.toString('hex');
};

async function exportKeyPem(x509: typeof X509, key: webcrypto.CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importSigningKey(keyPem: string): Promise<webcrypto.CryptoKey> {
  const der = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, KEY_ALGORITHM, false, ['sign']);
}

const newKeys = (): Promise<webcrypto.CryptoKeyPair> => webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);

/** A self-signed CA, named `fairway-ca@<unix seconds>` so that a regenerated CA is recognisably new. */
export async function generateCertificateAuthority(options: { nowMs?: number; validityDays?: number; commonName?: string } = {}): Promise<KeyPairPem> {
  const x509 = await loadX509();
  const nowMs = options.nowMs ?? Date.now();
  const keys = await newKeys();
  const name = [{ CN: [options.commonName ?? `fairway-ca@${Math.floor(nowMs / 1000)}`] }];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: name,
    issuer: name,
    notBefore: new Date(nowMs - BACKDATE_MS),
    notAfter: new Date(nowMs + (options.validityDays ?? CA_VALIDITY_DAYS) * DAY_MS),
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(x509, keys.privateKey) };
}

async function issue(
  ca: KeyPairPem,
  subject: X509.JsonName,
  usage: 'server' | 'client',
  extra: (x509: typeof X509) => X509.Extension[],
  nowMs: number,
  validityDays: number,
): Promise<KeyPairPem> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject,
    issuer: caCert.subjectName, // the CA's own encoding: Go matches issuer to subject byte for byte
    notBefore: new Date(nowMs - BACKDATE_MS),
    notAfter: new Date(Math.min(nowMs + validityDays * DAY_MS, caCert.notAfter.getTime())),
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: await importSigningKey(ca.keyPem),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ...extra(x509),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(x509, keys.privateKey) };
}

/** A serving certificate for `hosts` (DNS names and IP addresses), signed by `ca`. */
export async function issueServingCertificate(
  ca: KeyPairPem,
  options: { hosts: readonly string[]; nowMs?: number; validityDays?: number },
): Promise<KeyPairPem> {
  const names = options.hosts.map((host) => ({ type: isIP(host) === 0 ? ('dns' as const) : ('ip' as const), value: host }));
  const san = (x509: typeof X509) => [new x509.SubjectAlternativeNameExtension(names)];
  return issue(ca, [{ CN: ['fairway-apiserver'] }], 'server', san, options.nowMs ?? Date.now(), options.validityDays ?? SERVING_VALIDITY_DAYS);
}

/** A client certificate authenticating as `user` in `groups` (CommonName and Organizations). */
export async function issueClientCertificate(
  ca: KeyPairPem,
  options: { user: string; groups?: readonly string[]; nowMs?: number; validityDays?: number },
): Promise<KeyPairPem> {
  const subject: X509.JsonName = [{ CN: [options.user] }, ...(options.groups ?? []).map((group) => ({ O: [group] }))];
  return issue(ca, subject, 'client', () => [], options.nowMs ?? Date.now(), options.validityDays ?? SERVING_VALIDITY_DAYS);
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
