// Authentication as kube-apiserver composes it. Each authenticator looks at the credential it knows
// (a bearer token, a client certificate) and answers "this user", "no such credential here", or
// "this credential is bad". The union tries them in order: the first success wins; if none
// succeeds, any error fails the request (401) even when anonymous access is on, because a wrong
// token is not the same as no token. Only a request with no usable credential at all may become
// `system:anonymous` (group `system:unauthenticated`), and only with --anonymous-auth. Every
// authenticated user gets the group `system:authenticated` added.
import type { UserInfo } from './user-info.ts';

export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';
export const SYSTEM_ANONYMOUS = 'system:anonymous';

/** The parts of a request authenticators read; the server fills it from the HTTP request and TLS socket. */
export interface AuthenticationRequest {
  /** The `Authorization` header, if any. */
  authorization?: string;
  /** The client's certificate chain as DER, leaf first (empty without a client certificate). */
  peerCertificates?: readonly Uint8Array[];
}

export type AuthenticationResult =
  | { kind: 'authenticated'; user: UserInfo /** Which authenticator: `token`, `x509`, `anonymous`. */; method: string }
  | { kind: 'none' }
  | { kind: 'failed' /** For the server log only; the client is told just `Unauthorized`. */; error: string };

export interface Authenticator {
  authenticate(request: AuthenticationRequest): AuthenticationResult;
  /**
   * Whether the answer for a request without a client certificate depends on its `Authorization`
   * header alone, so that a caller may keep it for the same header (api/filters/authentication.ts
   * does, per connection). True for the static token file (read once, at start; no answer reads
   * the clock); an authenticator whose answers expire or can be revoked (a token webhook, service
   * account tokens) must say false. A certificate's answer is never kept: it expires.
   */
  readonly headerAnswersKeepable: boolean;
}

const NONE: AuthenticationResult = { kind: 'none' };

/** Tries each authenticator; the first success wins, errors are aggregated if none succeeds. */
export function unionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    headerAnswersKeepable: authenticators.every((authenticator) => authenticator.headerAnswersKeepable),
    authenticate(request) {
      let errors: string[] | undefined;
      for (const authenticator of authenticators) {
        const result = authenticator.authenticate(request);
        if (result.kind === 'authenticated') return result;
        if (result.kind === 'failed') (errors ??= []).push(result.error);
      }
      if (errors === undefined) return NONE;
      return { kind: 'failed', error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
    },
  };
}

export interface RequestAuthenticatorOptions {
  authenticators: readonly Authenticator[];
  /** --anonymous-auth: a request without credentials becomes system:anonymous. */
  anonymous: boolean;
}

/**
 * The authenticator the server's authentication filter calls: union, then anonymous fallback,
 * then `system:authenticated` for everyone but the anonymous user. `none` and `failed` both mean 401.
 * Authenticators that hand out the same user object for the same credential (tokens, a
 * connection's certificate) get the same result object back, so a request allocates nothing here.
 */
export function createRequestAuthenticator(options: RequestAuthenticatorOptions): Authenticator {
  const union = unionAuthenticator(options.authenticators);
  const anonymous: AuthenticationResult = { kind: 'authenticated', method: 'anonymous', user: { name: SYSTEM_ANONYMOUS, groups: [SYSTEM_UNAUTHENTICATED] } };
  const withGroup = new WeakMap<UserInfo, AuthenticationResult>();
  return {
    headerAnswersKeepable: union.headerAnswersKeepable,
    authenticate(request) {
      const result = union.authenticate(request);
      if (result.kind === 'failed') return result;
      if (result.kind === 'none') return options.anonymous ? anonymous : result;
      const { user } = result;
      if (user.name === SYSTEM_ANONYMOUS || user.groups.includes(SYSTEM_AUTHENTICATED)) return result;
      let completed = withGroup.get(user);
      if (completed === undefined || (completed.kind === 'authenticated' && completed.method !== result.method)) {
        completed = { ...result, user: { ...user, groups: [...user.groups, SYSTEM_AUTHENTICATED] } };
        withGroup.set(user, completed);
      }
      return completed;
    },
  };
}
