import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { generateCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../x509/certificates.ts';
import { createRequestAuthenticator, type Authenticator } from './authenticator.ts';
import { bearerToken, createTokenAuthenticator } from './token-authenticator.ts';
import { createX509Authenticator } from './x509-authenticator.ts';

const tokens = createTokenAuthenticator(
  new Map([
    ['t-alice', { name: 'alice', uid: '1', groups: ['dev'] }],
    ['t-bob', { name: 'bob', uid: '', groups: [] }],
  ]),
);
const der = (pem: string) => new Uint8Array(new X509Certificate(pem).raw);

test('bearer header parsing follows Kubernetes: scheme case-insensitive, single spaces, empty is none', () => {
  assert.is(bearerToken('Bearer abc'), 'abc');
  assert.is(bearerToken('bearer abc extra'), 'abc');
  assert.is(bearerToken('  Bearer abc  '), 'abc');
  assert.is(bearerToken('Basic abc'), undefined);
  assert.is(bearerToken('Bearer'), undefined);
  assert.is(bearerToken('Bearer  abc'), undefined);
  assert.is(bearerToken(undefined), undefined);
  assert.is(bearerToken('BEARER abc'), 'abc');
  assert.is(bearerToken('Bearerx abc'), undefined);
  assert.is(bearerToken('Bear abc'), undefined);
  assert.is(bearerToken(''), undefined);
  assert.is(bearerToken('Bearer abc def ghi'), 'abc');
});

test('tokens: known token is its user plus system:authenticated; unknown fails even with anonymous on', () => {
  const authn = createRequestAuthenticator({ authenticators: [tokens], anonymous: true });
  assert.equal(authn.authenticate({ authorization: 'Bearer t-alice' }), {
    kind: 'authenticated',
    method: 'token',
    user: { name: 'alice', uid: '1', groups: ['dev', 'system:authenticated'] },
  });
  assert.equal(authn.authenticate({ authorization: 'Bearer nope' }), { kind: 'failed', error: 'invalid bearer token' });
  assert.equal(authn.authenticate({}), { kind: 'authenticated', method: 'anonymous', user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } });
  const closed = createRequestAuthenticator({ authenticators: [tokens], anonymous: false });
  assert.equal(closed.authenticate({}), { kind: 'none' });
  assert.equal(closed.authenticate({ authorization: 'Basic Zm9vOmJhcg==' }), { kind: 'none' });
});

test('client certificates: CN is the user, O the groups; unknown CA, expired and server-only certificates fail', async () => {
  const ca = await generateCertificateAuthority({ commonName: 'clients' });
  const other = await generateCertificateAuthority({ commonName: 'other' });
  const nowMs = Date.now();
  const created = createX509Authenticator({ caPems: [ca.certPem], wallClockMs: () => nowMs });
  assert.ok(created.ok);
  if (!created.ok) return;
  const authn = createRequestAuthenticator({ authenticators: [tokens, created.authenticator], anonymous: false });

  const carol = await issueClientCertificate(ca, { user: 'carol', groups: ['ops', 'system:masters'] });
  assert.equal(authn.authenticate({ peerCertificates: [der(carol.certPem)] }), {
    kind: 'authenticated',
    method: 'x509',
    user: { name: 'carol', groups: ['ops', 'system:masters', 'system:authenticated'] },
  });

  const stranger = await issueClientCertificate(other, { user: 'mallory' });
  const rejected = authn.authenticate({ peerCertificates: [der(stranger.certPem)] });
  assert.is(rejected.kind, 'failed');
  assert.match(rejected.kind === 'failed' ? rejected.error : '', /^verifying certificate SN=\d+ failed: x509: certificate signed by unknown authority$/);

  const later = createX509Authenticator({ caPems: [ca.certPem], wallClockMs: () => nowMs + 400 * 24 * 3600 * 1000 });
  const expired = later.ok ? later.authenticator.authenticate({ peerCertificates: [der(carol.certPem)] }) : undefined;
  assert.match(expired?.kind === 'failed' ? expired.error : '', /x509: certificate has expired or is not yet valid: current time .* is after /);

  const serverCert = await issueServingCertificate(ca, { hosts: ['localhost'] });
  const wrongUsage = authn.authenticate({ peerCertificates: [der(serverCert.certPem)] });
  assert.match(wrongUsage.kind === 'failed' ? wrongUsage.error : '', /incompatible key usage/);
});

test('a verified chain is remembered per leaf only while every certificate on its path is valid', async () => {
  const ca = await generateCertificateAuthority({ commonName: 'clients' });
  const carol = await issueClientCertificate(ca, { user: 'carol', validityDays: 1 });
  let nowMs = Date.now();
  const created = createX509Authenticator({ caPems: [ca.certPem], wallClockMs: () => nowMs });
  if (!created.ok) return assert.unreachable(created.error);
  const leaf = der(carol.certPem);
  const first = created.authenticator.authenticate({ peerCertificates: [leaf] });
  assert.is(first.kind, 'authenticated');
  assert.is(created.authenticator.authenticate({ peerCertificates: [leaf] }), first, 'the same result object: nothing re-verified');
  nowMs += 2 * 24 * 3600 * 1000;
  const later = created.authenticator.authenticate({ peerCertificates: [leaf] });
  assert.match(later.kind === 'failed' ? later.error : '', /certificate has expired or is not yet valid/);
});

test('a bad client CA bundle is an error value', () => {
  const created = createX509Authenticator({ caPems: ['not a certificate'], wallClockMs: () => 0 });
  assert.equal(created, { ok: false, error: 'data does not contain any valid RSA or ECDSA certificates' });
});

test('the union takes the first success; errors only when nothing succeeds', () => {
  const failing: Authenticator = { headerAnswersKeepable: true, authenticate: () => ({ kind: 'failed', error: 'boom' }) };
  const authn = createRequestAuthenticator({ authenticators: [failing, tokens], anonymous: false });
  assert.is(authn.authenticate({ authorization: 'Bearer t-bob' }).kind, 'authenticated');
  assert.equal(authn.authenticate({ authorization: 'Bearer x' }), { kind: 'failed', error: '[boom, invalid bearer token]' });
});

test.run();
