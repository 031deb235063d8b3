// Bearer tokens: `Authorization: Bearer <token>` looked up in a fixed table (the --token-auth-file
// records, plus the admin token the server generates). As Kubernetes' bearer-token authenticator:
// no header, another scheme or an empty token is "no credential here"; a token that is not in the
// table is an error (`invalid bearer token`), so it fails the request instead of falling through to
// anonymous. The scheme word is case-insensitive and anything after the token is ignored.
import type { UserInfo } from './user-info.ts';
import type { AuthenticationResult, Authenticator } from './authenticator.ts';

export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** The token of an `Authorization` header value, or undefined if it carries none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // The words between the first and second space, as strings.Split(header, " ")[0:2] (without an array).
  const text = header.trim();
  const schemeEnd = text.indexOf(' ');
  if (schemeEnd !== 6 || text.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const tokenEnd = text.indexOf(' ', 7);
  const token = tokenEnd < 0 ? text.slice(7) : text.slice(7, tokenEnd);
  return token === '' ? undefined : token;
}

/** `tokens`: token → user (read once, here); an empty uid counts as none. */
export function createTokenAuthenticator(tokens: ReadonlyMap<string, Readonly<UserInfo>>): Authenticator {
  const results = new Map<string, AuthenticationResult>();
  for (const [token, entry] of tokens) {
    const user: UserInfo = { name: entry.name, groups: [...entry.groups] };
    if (entry.uid !== undefined && entry.uid !== '') user.uid = entry.uid;
    results.set(token, { kind: 'authenticated', method: 'token', user });
  }
  const invalid: AuthenticationResult = { kind: 'failed', error: INVALID_BEARER_TOKEN };
  const none: AuthenticationResult = { kind: 'none' };
  return {
    headerAnswersKeepable: true,
    authenticate({ authorization }) {
      const token = bearerToken(authorization);
      if (token === undefined) return none;
      return results.get(token) ?? invalid;
    },
  };
}
