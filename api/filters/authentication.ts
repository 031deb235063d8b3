// Authentication, the first filter: a bearer token (the admin token, --token-auth-file users) or,
// with --client-ca-file, a client certificate the TLS layer verified. Every authenticated user is
// also in `system:authenticated`, as kube-apiserver adds it. A request with a bad token, on any
// path, or with no credentials when anonymous access is off, is answered 401 with the Unauthorized
// Status; health checks without credentials run as system:anonymous even then.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '../../engine/flowcontrol/request-digest.ts';
import type { Filter } from '../http-context.ts';
import { unauthorized } from '../errors.ts';
import { sendStatusNegotiated } from '../handlers/respond.ts';

export const AUTHENTICATED_GROUP = 'system:authenticated';
export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

export interface AuthenticationOptions {
  /** Bearer token → user (groups as configured; system:authenticated is added here). */
  tokens: ReadonlyMap<string, UserInfo>;
  /** Accept client certificates verified against --client-ca-file (CN = user, O = groups). */
  clientCertificates?: boolean;
  /** --anonymous-auth: requests without credentials proceed as system:anonymous. */
  anonymous?: boolean;
  /** Paths served without credentials (health checks). */
  isPublicPath?: (path: string) => boolean;
}

type Outcome = { kind: 'user'; user: UserInfo } | { kind: 'none' } | { kind: 'invalid' };

/** The bearer token of an `Authorization: Bearer <token>` header, as client-go's parser reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.split(' ', 3);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] === '' ? undefined : parts[1];
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

function fromCertificate(req: IncomingMessage): UserInfo | undefined {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function' || socket.authorized !== true) return undefined;
  const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  const cn = subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (name === undefined || name === '') return undefined;
  const o = subject?.O;
  return { name, groups: o === undefined ? [] : Array.isArray(o) ? [...o] : [o] };
}

function authenticate(req: IncomingMessage, options: AuthenticationOptions): Outcome {
  const token = bearerToken(req.headers.authorization);
  if (token !== undefined) {
    const user = options.tokens.get(token);
    return user === undefined ? { kind: 'invalid' } : { kind: 'user', user: withAuthenticatedGroup(user) };
  }
  if (options.clientCertificates) {
    const user = fromCertificate(req);
    if (user !== undefined) return { kind: 'user', user: withAuthenticatedGroup(user) };
  }
  return { kind: 'none' };
}

const anonymousUser = (): UserInfo => ({ name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] });

export function createAuthenticationFilter(options: AuthenticationOptions): Filter {
  return (context, next) => {
    const outcome = authenticate(context.req, options);
    if (outcome.kind === 'user') {
      // The credential goes no further down the chain, as in kube-apiserver.
      delete context.req.headers.authorization;
      context.user = outcome.user;
      return next();
    }
    // A credential that fails is a 401 everywhere, health checks included, as in Kubernetes.
    if (outcome.kind === 'none' && (options.anonymous === true || (options.isPublicPath?.(context.requestInfo.path) ?? false))) {
      context.user = anonymousUser();
      return next();
    }
    sendStatusNegotiated(context, unauthorized());
    return Promise.resolve();
  };
}
