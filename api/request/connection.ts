// What the server knows about the connection a request came on, read once per connection while it
// is alive: the client's address (for the access log) and its certificate chain (for the x509
// authenticator). Over HTTP/2 a request's `req.socket` is a proxy per stream, and the session's
// socket proxy throws once the session is gone, so nothing may be read from them after the request
// started; the record read at the first request serves every later one on the same connection.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { AuthenticationResult, Authenticator } from '../../engine/auth/authenticator.ts';
import type { LastTarget, TargetMemo } from './request-target.ts';

export interface Connection extends TargetMemo {
  /** `ip:port` (`[ip]:port` for IPv6), as Go's `Request.RemoteAddr`. */
  readonly srcIP: string;
  /** The client's certificate chain as DER, leaf first; empty without one. */
  readonly peerCertificates: readonly Uint8Array[];
  /** The last answer of the authentication filter on this connection (authentication.ts); set on every connection, so all share one shape. */
  lastAuthentication: LastAuthentication | undefined;
  /** The last request target read on this connection (request-target.ts). */
  lastTarget: LastTarget | undefined;
}

/** An authenticator's answer for one `Authorization` header (undefined: none sent). */
export interface LastAuthentication {
  authenticator: Authenticator;
  authorization: string | undefined;
  result: AuthenticationResult;
}

const NO_CERTIFICATES: readonly Uint8Array[] = [];
const connections = new WeakMap<object, Connection>();

/** The record of `req`'s connection (made on the connection's first request). */
export function connectionOf(req: IncomingMessage): Connection {
  const socket = connectionSocket(req);
  let connection = connections.get(socket);
  if (connection === undefined) {
    connection = readConnection(socket);
    connections.set(socket, connection);
  }
  return connection;
}

/** The HTTP/2 session's socket (one per connection), or the request's own. */
function connectionSocket(req: IncomingMessage): Socket {
  const session = (req as unknown as { stream?: { session?: { socket?: Socket } } }).stream?.session;
  return session?.socket ?? req.socket;
}

function readConnection(socket: Socket): Connection {
  try {
    const host = socket.remoteAddress ?? '';
    const srcIP = host.includes(':') ? `[${host}]:${socket.remotePort ?? ''}` : `${host}:${socket.remotePort ?? ''}`;
    return { srcIP, peerCertificates: peerChain(socket as Partial<TLSSocket>), lastAuthentication: undefined, lastTarget: undefined };
  } catch {
    // The HTTP/2 session went away under the request: nothing to read, and nobody to answer.
    return { srcIP: '', peerCertificates: NO_CERTIFICATES, lastAuthentication: undefined, lastTarget: undefined };
  }
}

function peerChain(socket: Partial<TLSSocket>): readonly Uint8Array[] {
  if (typeof socket.getPeerCertificate !== 'function') return NO_CERTIFICATES;
  const chain: Uint8Array[] = [];
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  const seen = new Set<string>();
  while (cert !== undefined && cert.raw !== undefined && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(new Uint8Array(cert.raw));
    cert = cert.issuerCertificate;
  }
  return chain.length > 0 ? chain : NO_CERTIFICATES;
}
