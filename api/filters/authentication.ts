// Authentication, the first filter. The engine's authenticator (engine/auth/authenticator.ts: client
// certificate, then bearer token, then anonymous when allowed) decides; this filter only hands it
// the request's credentials and acts on the answer:
// - a user: the credential goes no further down the chain (as in kube-apiserver) and the request
//   proceeds as that user;
// - a credential that fails (a wrong token, a client certificate that does not verify) is 401 with
//   the Unauthorized Status on every path, health checks included, even with anonymous access on,
//   as in Kubernetes;
// - no credential: 401 when anonymous access is off, except on the health checks, which then run
//   as system:anonymous.
import type { IncomingMessage } from 'node:http';
import type { AuthenticationRequest, AuthenticationResult, Authenticator } from '../../engine/auth/authenticator.ts';
import { SYSTEM_ANONYMOUS, SYSTEM_UNAUTHENTICATED } from '../../engine/auth/authenticator.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import type { Filter } from '../request/http-context.ts';
import { connectionOf, type Connection } from '../request/connection.ts';
import { unauthorized } from '../../engine/status/errors.ts';
import { sendStatusNegotiated } from '../request/respond.ts';
import type { Logger } from '../log.ts';

export interface AuthenticationOptions {
  /** The engine's request authenticator (createRequestAuthenticator). */
  authenticator: Authenticator;
  /** Paths served without credentials (health checks). */
  isPublicPath?: ((path: string) => boolean) | undefined;
  /** Why a credential failed goes here; the client is told only `Unauthorized`. */
  logger?: Logger;
}

/** The longest Authorization header a connection keeps the answer for: service-account and OIDC tokens are a few kilobytes. */
export const MAX_KEPT_AUTHORIZATION_LENGTH = 16 * 1024;

const ANONYMOUS: UserInfo = { name: SYSTEM_ANONYMOUS, groups: [SYSTEM_UNAUTHENTICATED] };

export function createAuthenticationFilter(options: AuthenticationOptions): Filter {
  const { authenticator, logger } = options;
  return (context, next) => {
    const result = authenticate(authenticator, context.req, context.connection ?? connectionOf(context.req));
    if (result.kind === 'authenticated') {
      // Cleared rather than deleted: deleting a property costs a runtime call and leaves the
      // headers object slow for every later lookup.
      context.req.headers.authorization = undefined;
      context.user = result.user;
      return next();
    }
    if (result.kind === 'failed') logger?.error(`Unable to authenticate the request: ${result.error}`);
    else if (options.isPublicPath?.(context.requestInfo.path) === true) {
      context.user = ANONYMOUS;
      return next();
    }
    sendStatusNegotiated(context, unauthorized());
    return undefined;
  };
}

/**
 * The authenticator's answer for the request. A connection without a client certificate keeps its
 * last answer: clients send the same header on every request of a connection, and the answer for
 * such a request depends on the header alone (when the authenticator says so:
 * `headerAnswersKeepable`), so the next request with
 * the same header costs one string comparison instead of the token's parsing, hashing and lookups.
 * A client certificate's answer is asked for every time: it expires with the wall clock. So is a
 * header longer than any token (headers may take a mebibyte): kept, it would outlive its request
 * on every idle connection.
 */
function authenticate(authenticator: Authenticator, req: IncomingMessage, connection: Connection): AuthenticationResult {
  if (connection.peerCertificates.length > 0 || !authenticator.headerAnswersKeepable)
    return authenticator.authenticate(authenticationRequestOf(req, connection));
  const authorization = req.headers.authorization;
  const last = connection.lastAuthentication;
  if (last !== undefined && last.authorization === authorization && last.authenticator === authenticator) return last.result;
  const result = authenticator.authenticate(authorization === undefined ? {} : { authorization });
  if (authorization !== undefined && authorization.length > MAX_KEPT_AUTHORIZATION_LENGTH) return result;
  if (last === undefined) connection.lastAuthentication = { authenticator, authorization, result };
  else {
    last.authenticator = authenticator;
    last.authorization = authorization;
    last.result = result;
  }
  return result;
}

/** What the engine's authenticators read from a request: the header and the connection's client chain. */
export function authenticationRequestOf(req: IncomingMessage, connection: Connection = connectionOf(req)): AuthenticationRequest {
  const request: AuthenticationRequest = {};
  if (req.headers.authorization !== undefined) request.authorization = req.headers.authorization;
  if (connection.peerCertificates.length > 0) request.peerCertificates = connection.peerCertificates;
  return request;
}
