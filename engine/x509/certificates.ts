// Making X.509 certificates: a self-signed CA, serving certificates for DNS names and IP
// addresses, and client certificates that Kubernetes' x509 authenticator reads as CommonName =
// user, Organization = groups. The server's own certificates (api/security/tls.ts) and every test
// that needs a CA, a serving or a client certificate (the webhook authorizer's process, the x509
// authenticator's tests) come from here, so there is one way certificates are made.
//
// Keys are ECDSA P-256 (Go's crypto/tls and Node both accept it; generation is instant). X.509
// encoding uses @peculiar/x509 over Node's WebCrypto. It is loaded only when a certificate is made:
// it costs more to load (about 0.5 s of CPU) than the rest of a server restart that reuses its
// certificates. Serial numbers are random and validity starts from the real clock unless `nowMs`
// is given: certificates meet real TLS peers, which check them against their own clocks.
import type * as X509 from '@peculiar/x509';
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { realClock } from '../clock.ts';

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start an hour in the past, so a client whose clock lags a little still accepts them. */
const BACKDATE_MS = 60 * 60 * 1000;

export const CA_VALIDITY_DAYS = 3650;
export const SERVING_VALIDITY_DAYS = 365;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

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
  const nowMs = options.nowMs ?? realClock().now();
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
  return issue(ca, [{ CN: ['fairway-apiserver'] }], 'server', san, options.nowMs ?? realClock().now(), options.validityDays ?? SERVING_VALIDITY_DAYS);
}

/** A client certificate authenticating as `user` in `groups` (CommonName and Organizations). */
export async function issueClientCertificate(
  ca: KeyPairPem,
  options: { user: string; groups?: readonly string[]; nowMs?: number; validityDays?: number },
): Promise<KeyPairPem> {
  const subject: X509.JsonName = [{ CN: [options.user] }, ...(options.groups ?? []).map((group) => ({ O: [group] }))];
  return issue(ca, subject, 'client', () => [], options.nowMs ?? realClock().now(), options.validityDays ?? SERVING_VALIDITY_DAYS);
}
