// Authentication, the first filter. The engine's authenticator (engine/auth/authenticator.ts: client
// certificate, then bearer token, then anonymous when allowed) decides; this filter only hands it
// the request's credentials and acts on the answer:
// - a user: the credential goes no further down the chain (as in kube-apiserver) and the request
//   proceeds as that user;
// - anything else (no credential with anonymous access off, a wrong token, a client certificate
//   that does not verify, even with anonymous access on) is 401 with the Unauthorized Status;
// - health checks are never refused: without a usable credential they run as system:anonymous.
import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { AuthenticationRequest, Authenticator } from '../../engine/auth/authenticator.ts';
import { SYSTEM_ANONYMOUS, SYSTEM_UNAUTHENTICATED } from '../../engine/auth/authenticator.ts';
import type { UserInfo } from '../../engine/flowcontrol/request-digest.ts';
import type { Filter } from '../http-context.ts';
import { unauthorized } from '../errors.ts';
import { sendStatus } from '../handlers/respond.ts';
import type { Logger } from '../log.ts';

export interface AuthenticationOptions {
  /** The engine's request authenticator (createRequestAuthenticator). */
  authenticator: Authenticator;
  /** Paths served without credentials (health checks). */
  isPublicPath?: (path: string) => boolean;
  /** Why a credential failed goes here; the client is told only `Unauthorized`. */
  logger?: Logger;
}

const ANONYMOUS: UserInfo = { name: SYSTEM_ANONYMOUS, groups: [SYSTEM_UNAUTHENTICATED] };

export function createAuthenticationFilter(options: AuthenticationOptions): Filter {
  const { authenticator, logger } = options;
  return (context, next) => {
    const result = authenticator.authenticate(authenticationRequestOf(context.req));
    if (result.kind === 'authenticated') {
      delete context.req.headers.authorization;
      context.user = result.user;
      return next();
    }
    if (result.kind === 'failed') logger?.error(`Unable to authenticate the request: ${result.error}`);
    if (options.isPublicPath?.(context.requestInfo.path) === true) {
      context.user = ANONYMOUS;
      return next();
    }
    sendStatus(context.res, unauthorized());
    return Promise.resolve();
  };
}

const NO_CERTIFICATES: readonly Uint8Array[] = [];
/** Each connection's client chain, read once: every request on it presents the same one. */
const chains = new WeakMap<object, readonly Uint8Array[]>();

/** What the engine's authenticators read from an HTTP request: the header and the client's chain. */
export function authenticationRequestOf(req: IncomingMessage): AuthenticationRequest {
  const request: AuthenticationRequest = {};
  if (req.headers.authorization !== undefined) request.authorization = req.headers.authorization;
  const chain = peerChain(connectionSocket(req));
  if (chain.length > 0) request.peerCertificates = chain;
  return request;
}

/**
 * The connection's socket: the request's own over HTTP/1.1; over HTTP/2 the session's (a request's
 * `socket` there is a new proxy per stream, so it cannot key a per-connection cache).
 */
function connectionSocket(req: IncomingMessage): Partial<TLSSocket> {
  const session = (req as unknown as { stream?: { session?: { socket?: object } } }).stream?.session;
  return (session?.socket ?? req.socket) as Partial<TLSSocket>;
}

function peerChain(socket: Partial<TLSSocket>): readonly Uint8Array[] {
  const known = chains.get(socket);
  if (known !== undefined) return known;
  if (typeof socket.getPeerCertificate !== 'function') return NO_CERTIFICATES;
  const chain: Uint8Array[] = [];
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  const seen = new Set<string>();
  while (cert !== undefined && cert.raw !== undefined && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(new Uint8Array(cert.raw));
    cert = cert.issuerCertificate;
  }
  const value = chain.length > 0 ? chain : NO_CERTIFICATES;
  chains.set(socket, value);
  return value;
}
