// Client certificates, verified against the --client-ca-file bundle as Kubernetes' x509
// authenticator verifies them: the chain (the client may send intermediates) must lead to one of
// the CAs, every certificate must be valid now, and the leaf must be usable for client
// authentication (extended key usage clientAuth or any, or no EKU at all). The user is the
// subject's CommonName, the groups its Organization values; a certificate without a CommonName is
// "no credential" rather than an error, as in Kubernetes.
//
// Verification is done here, not left to the TLS layer, so that it uses the injected wall clock and
// gives Kubernetes' messages; the server only has to request a certificate (and advertise the CAs).
// A connection presents the same chain on every request, so a success is remembered per leaf (the
// caller passes the same bytes object for the connection's life) for as long as every certificate
// on the verified path stays valid; failures are verified again each time, as in Kubernetes.
import { X509Certificate } from 'node:crypto';
import type { AuthenticationResult, Authenticator } from './authenticator.ts';
import { append } from '../append.ts';

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
    append(roots, parsed.certificates);
  }
  const verified = new WeakMap<Uint8Array, { result: AuthenticationResult; window: ValidityWindow }>();
  const authenticator: Authenticator = {
    // Without a client certificate it answers `none`, whatever the header.
    headerAnswersKeepable: true,
    authenticate({ peerCertificates }) {
      if (peerCertificates === undefined || peerCertificates.length === 0) return { kind: 'none' };
      const nowMs = options.wallClockMs();
      const known = verified.get(peerCertificates[0]!);
      if (known !== undefined && known.window.fromMs <= nowMs && nowMs <= known.window.toMs) return known.result;
      let chain: X509Certificate[];
      try {
        chain = peerCertificates.map((der) => new X509Certificate(der));
      } catch (error) {
        return { kind: 'failed', error: `failed to parse client certificate: ${(error as Error).message}` };
      }
      const leaf = chain[0]!;
      const outcome = verify(leaf, chain.slice(1), roots, nowMs);
      if (!outcome.ok) return { kind: 'failed', error: `verifying certificate ${describe(leaf)} failed: ${outcome.problem}` };
      const subject = leaf.toLegacyObject().subject as Record<string, string | string[] | undefined>;
      const commonNames = asList(subject.CN);
      const name = commonNames[commonNames.length - 1] ?? '';
      const result: AuthenticationResult =
        name === '' ? { kind: 'none' } : { kind: 'authenticated', method: 'x509', user: { name, groups: asList(subject.O) } };
      verified.set(peerCertificates[0]!, { result, window: outcome.window });
      return result;
    },
  };
  return { ok: true, authenticator };
}

/** When every certificate on a verified path is valid (epoch milliseconds, inclusive). */
interface ValidityWindow {
  fromMs: number;
  toMs: number;
}

type Verification = { ok: true; window: ValidityWindow } | { ok: false; problem: string };

/** The validity window of the path found, or Go's x509 wording of the problem. */
function verify(leaf: X509Certificate, intermediates: readonly X509Certificate[], roots: readonly X509Certificate[], nowMs: number): Verification {
  const usages = leaf.keyUsage;
  if (usages !== undefined && usages.length > 0 && !usages.includes(CLIENT_AUTH) && !usages.includes(ANY_EXTENDED_KEY_USAGE)) {
    return { ok: false, problem: 'x509: certificate specifies an incompatible key usage' };
  }
  let expired: string | undefined;
  const narrow = (window: ValidityWindow, cert: X509Certificate): ValidityWindow => ({
    fromMs: Math.max(window.fromMs, Date.parse(cert.validFrom)),
    toMs: Math.min(window.toMs, Date.parse(cert.validTo)),
  });
  const walk = (cert: X509Certificate, depth: number, window: ValidityWindow): ValidityWindow | undefined => {
    const from = Date.parse(cert.validFrom);
    const to = Date.parse(cert.validTo);
    if (nowMs < from || nowMs > to) {
      expired ??=
        `x509: certificate has expired or is not yet valid: current time ${isoSeconds(nowMs)} is ` +
        `${nowMs > to ? `after ${isoSeconds(to)}` : `before ${isoSeconds(from)}`}`;
      return undefined;
    }
    const here = narrow(window, cert);
    const root = roots.find((r) => issuedBy(cert, r) && Date.parse(r.validFrom) <= nowMs && nowMs <= Date.parse(r.validTo));
    if (root !== undefined) return narrow(here, root);
    if (depth >= MAX_CHAIN_DEPTH) return undefined;
    for (const next of intermediates) {
      if (next === cert || !next.ca || !issuedBy(cert, next)) continue;
      const found = walk(next, depth + 1, here);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const window = walk(leaf, 0, { fromMs: Number.NEGATIVE_INFINITY, toMs: Number.POSITIVE_INFINITY });
  if (window !== undefined) return { ok: true, window };
  return { ok: false, problem: expired ?? 'x509: certificate signed by unknown authority' };
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
