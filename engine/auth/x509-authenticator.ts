// Client certificates, verified against the --client-ca-file bundle as Kubernetes' x509
// authenticator verifies them: the chain (the client may send intermediates) must lead to one of
// the CAs, every certificate must be valid now, and the leaf must be usable for client
// authentication (extended key usage clientAuth or any, or no EKU at all). The user is the
// subject's CommonName, the groups its Organization values; a certificate without a CommonName is
// "no credential" rather than an error, as in Kubernetes.
//
// Verification is done here, not left to the TLS layer, so that it uses the injected wall clock and
// gives Kubernetes' messages; the server only has to request a certificate (and advertise the CAs).
import { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../flowcontrol/request-digest.ts';
import type { Authenticator } from './authenticator.ts';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
const MAX_CHAIN_DEPTH = 8;

/** Splits a PEM bundle into certificates; text that is not a certificate is an error value. */
export function parseCertificateBundle(pem: string): { ok: true; certificates: X509Certificate[] } | { ok: false; error: string } {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return { ok: false, error: 'data does not contain any valid RSA or ECDSA certificates' };
  try {
    return { ok: true, certificates: blocks.map((block) => new X509Certificate(block)) };
  } catch (error) {
    return { ok: false, error: `failed to parse certificate: ${(error as Error).message}` };
  }
}

export interface X509AuthenticatorOptions {
  /** The trusted CAs (--client-ca-file, possibly several PEM files' contents). */
  caPems: readonly string[];
  /** Epoch milliseconds now: certificates carry wall-clock validity periods. */
  wallClockMs: () => number;
}

export function createX509Authenticator(options: X509AuthenticatorOptions): { ok: true; authenticator: Authenticator } | { ok: false; error: string } {
  const roots: X509Certificate[] = [];
  for (const pem of options.caPems) {
    const parsed = parseCertificateBundle(pem);
    if (!parsed.ok) return parsed;
    roots.push(...parsed.certificates);
  }
  const authenticator: Authenticator = {
    authenticate({ peerCertificates }) {
      if (peerCertificates === undefined || peerCertificates.length === 0) return { kind: 'none' };
      let chain: X509Certificate[];
      try {
        chain = peerCertificates.map((der) => new X509Certificate(der));
      } catch (error) {
        return { kind: 'failed', error: `failed to parse client certificate: ${(error as Error).message}` };
      }
      const leaf = chain[0]!;
      const problem = verify(leaf, chain.slice(1), roots, options.wallClockMs());
      if (problem !== undefined) return { kind: 'failed', error: `verifying certificate ${describe(leaf)} failed: ${problem}` };
      const subject = leaf.toLegacyObject().subject as Record<string, string | string[] | undefined>;
      const commonNames = asList(subject.CN);
      const name = commonNames[commonNames.length - 1] ?? '';
      if (name === '') return { kind: 'none' };
      const user: UserInfo = { name, groups: asList(subject.O) };
      return { kind: 'authenticated', method: 'x509', user };
    },
  };
  return { ok: true, authenticator };
}

/** Undefined when the chain verifies; otherwise Go's x509 wording of the problem. */
function verify(leaf: X509Certificate, intermediates: readonly X509Certificate[], roots: readonly X509Certificate[], nowMs: number): string | undefined {
  const usages = leaf.keyUsage;
  if (usages !== undefined && usages.length > 0 && !usages.includes(CLIENT_AUTH) && !usages.includes(ANY_EXTENDED_KEY_USAGE)) {
    return 'x509: certificate specifies an incompatible key usage';
  }
  let expired: string | undefined;
  const walk = (cert: X509Certificate, depth: number): boolean => {
    const from = Date.parse(cert.validFrom);
    const to = Date.parse(cert.validTo);
    if (nowMs < from || nowMs > to) {
      expired ??= `x509: certificate has expired or is not yet valid: current time ${isoSeconds(nowMs)} is ${nowMs > to ? `after ${isoSeconds(to)}` : `before ${isoSeconds(from)}`}`;
      return false;
    }
    if (roots.some((root) => issuedBy(cert, root) && Date.parse(root.validFrom) <= nowMs && nowMs <= Date.parse(root.validTo))) return true;
    if (depth >= MAX_CHAIN_DEPTH) return false;
    return intermediates.some((next) => next !== cert && next.ca && issuedBy(cert, next) && walk(next, depth + 1));
  };
  if (walk(leaf, 0)) return undefined;
  return expired ?? 'x509: certificate signed by unknown authority';
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** `SN=<decimal serial>`: how Kubernetes' log line starts naming the certificate. */
function describe(cert: X509Certificate): string {
  const serial = BigInt(`0x${cert.serialNumber}`).toString(10);
  return `SN=${serial}`;
}

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function isoSeconds(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
