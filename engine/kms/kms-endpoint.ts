// A KMS `endpoint` from the configuration to a gRPC target. kube-apiserver takes the URL's path
// as the socket path (`unix:///var/run/kms.sock` → `/var/run/kms.sock`; beware that
// `unix://var/run/kms.sock` makes `var` the host and `/run/kms.sock` the path), and a path
// starting with `/@` names a Linux abstract socket (`unix:///@kms` → `@kms`).

import { parseEndpointUrl } from '../config/encryption-validation.ts';

export type KmsSocket = { kind: 'path'; path: string } | { kind: 'abstract'; name: string };

export function parseKmsEndpoint(endpoint: string): { ok: true; socket: KmsSocket } | { ok: false; error: string } {
  const parsed = parseEndpointUrl(endpoint);
  if ('error' in parsed) return { ok: false, error: `invalid endpoint ${JSON.stringify(endpoint)} for remote KMS provider, error: ${parsed.error}` };
  if (parsed.scheme !== 'unix') return { ok: false, error: `unsupported scheme ${JSON.stringify(parsed.scheme)} for remote KMS provider` };
  if (parsed.path.startsWith('/@')) return { ok: true, socket: { kind: 'abstract', name: parsed.path.slice(2) } };
  if (parsed.path === '') return { ok: false, error: `invalid endpoint ${JSON.stringify(endpoint)} for remote KMS provider: no socket path` };
  return { ok: true, socket: { kind: 'path', path: parsed.path } };
}

/**
 * The grpc-js target. grpc-js has no abstract-socket scheme, but Node connects to one when the
 * path starts with a NUL byte, which grpc-js passes through.
 */
export function grpcTarget(socket: KmsSocket): string {
  return socket.kind === 'path' ? `unix://${socket.path}` : `unix:\u0000${socket.name}`;
}
