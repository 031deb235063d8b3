// From the server's authentication settings to its one request authenticator, in kube-apiserver's
// order: client certificates (--client-ca-file) before bearer tokens (--token-auth-file and the
// admin token), then anonymous when --anonymous-auth allows it. So a request carrying both a good
// certificate and a good token is the certificate's user, and a bad certificate next to a good
// token is the token's user (the union only fails when nothing succeeds).
import type { UserInfo } from './user-info.ts';
import { createRequestAuthenticator, type Authenticator } from './authenticator.ts';
import { createTokenAuthenticator } from './token-authenticator.ts';
import { createX509Authenticator } from './x509-authenticator.ts';

export interface AuthenticationSettings {
  /** Bearer token → user. */
  tokens: ReadonlyMap<string, Readonly<UserInfo>>;
  /** The --client-ca-file bundle(s); none: client certificates authenticate nobody. */
  clientCaPems?: readonly string[] | undefined;
  anonymous: boolean;
  /** Epoch milliseconds: certificate validity is wall-clock time. */
  wallClockMs: () => number;
}

export function buildAuthenticator(settings: AuthenticationSettings): { ok: true; authenticator: Authenticator } | { ok: false; error: string } {
  const authenticators: Authenticator[] = [];
  if (settings.clientCaPems !== undefined && settings.clientCaPems.length > 0) {
    const x509 = createX509Authenticator({ caPems: settings.clientCaPems, wallClockMs: settings.wallClockMs });
    if (!x509.ok) return { ok: false, error: `unable to load client CA file: ${x509.error}` };
    authenticators.push(x509.authenticator);
  }
  authenticators.push(createTokenAuthenticator(settings.tokens));
  return { ok: true, authenticator: createRequestAuthenticator({ authenticators, anonymous: settings.anonymous }) };
}
