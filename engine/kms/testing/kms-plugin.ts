// A KMS plugin program for tests: serves v2.KeyManagementService (and v1beta1 for the KMSv1 path)
// on a unix socket, as a real plugin process does, so tests exercise the real gRPC client and can
// kill and restart it.
//
//   node --import tsx engine/kms/testing/kms-plugin.ts --socket PATH [--control FILE] [--log FILE]
//
// It prints `ready` on stdout once listening. The control file (JSON, re-read on every call) sets
//   keyId    the current key ID (default "key-1"); changing it is a key rotation;
//   mode     "ok" (default) | "fail" (every call answers INTERNAL) | "hang" (calls never answer);
//   healthz  what Status reports (default "ok"); version what Status reports (default "v2").
// With --log, one line per call is appended: `Status`, `Encrypt <uid>`, `Decrypt <uid> <keyId>`.
//
// Key wrapping is AES-256-GCM under a key derived from the key ID, with the key ID and annotations
// as AAD, so an old key ID still decrypts after rotation and a wrong one (or edited annotations)
// fails. Not a real KMS: tests only.

import { appendFileSync, existsSync, readFileSync, unlinkSync } from 'node:fs';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { kmsServiceDefinitions } from '../grpc-kms-client.ts';

interface Control {
  keyId: string;
  mode: 'ok' | 'fail' | 'hang';
  healthz: string;
  version: string;
}

const DEFAULT_CONTROL: Control = { keyId: 'key-1', mode: 'ok', healthz: 'ok', version: 'v2' };
const TEST_PLUGIN_ANNOTATION = 'kms.fairway.test';

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

const socketPath = argument('socket');
const controlPath = argument('control');
const logPath = argument('log');

function control(): Control {
  if (controlPath === undefined || !existsSync(controlPath)) return DEFAULT_CONTROL;
  try {
    return { ...DEFAULT_CONTROL, ...(JSON.parse(readFileSync(controlPath, 'utf8')) as Partial<Control>) };
  } catch {
    return DEFAULT_CONTROL; // a half-written file: use defaults for this one call
  }
}

function log(line: string): void {
  if (logPath !== undefined) appendFileSync(logPath, `${line}\n`);
}

function kek(keyId: string): Buffer {
  return createHash('sha256').update(`fairway-test-kms\u0000${keyId}`).digest();
}

/** The key ID and annotations are bound as AAD: a changed one in storage fails to unwrap. */
function aad(keyId: string, annotations: Record<string, Buffer>): Buffer {
  const entries = Object.entries(annotations)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => [k, Buffer.from(v).toString('hex')]);
  return Buffer.from(JSON.stringify([keyId, entries]));
}

function wrap(keyId: string, plain: Buffer, annotations: Record<string, Buffer> = {}): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek(keyId), nonce);
  cipher.setAAD(aad(keyId, annotations));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

function unwrap(keyId: string, sealed: Buffer, annotations: Record<string, Buffer> = {}): Buffer {
  if (sealed.length < 28) throw new Error('ciphertext too short');
  const decipher = createDecipheriv('aes-256-gcm', kek(keyId), sealed.subarray(0, 12));
  decipher.setAAD(aad(keyId, annotations));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

type Callback = (error: Partial<grpc.ServiceError> | null, response?: unknown) => void;
type Handler = (request: Record<string, unknown>, current: Control) => unknown;

/** Applies the control mode around a handler; errors become INVALID_ARGUMENT answers. */
function unary(name: string, handler: Handler) {
  return (call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: Callback): void => {
    const current = control();
    const request = call.request;
    log([name, request.uid, request.key_id].filter((x) => typeof x === 'string' && x !== '').join(' '));
    if (current.mode === 'hang') return; // never answer: the client's deadline must fire
    if (current.mode === 'fail') {
      callback({ code: grpc.status.INTERNAL, details: `test plugin told to fail ${name}` });
      return;
    }
    try {
      callback(null, handler(request, current));
    } catch (error) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: `${name}: ${error instanceof Error ? error.message : String(error)}` });
    }
  };
}

function main(): void {
  if (socketPath === undefined) {
    process.stderr.write('usage: kms-plugin.ts --socket PATH [--control FILE] [--log FILE]\n');
    process.exit(2);
  }
  const { v2, v1beta1 } = kmsServiceDefinitions();
  const server = new grpc.Server();
  server.addService(v2.service, {
    Status: unary('Status', (_request, c) => ({ version: c.version, healthz: c.healthz, key_id: c.keyId })),
    Encrypt: unary('Encrypt', (request, c) => {
      const annotations = { [TEST_PLUGIN_ANNOTATION]: Buffer.from('1') };
      return { ciphertext: wrap(c.keyId, request.plaintext as Buffer, annotations), key_id: c.keyId, annotations };
    }),
    Decrypt: unary('Decrypt', (request) => {
      const annotations = (request.annotations ?? {}) as Record<string, Buffer>;
      return { plaintext: unwrap(String(request.key_id), request.ciphertext as Buffer, annotations) };
    }),
  });
  // v1beta1 carries no key ID on the wire, so the ciphertext leads with it.
  server.addService(v1beta1.service, {
    Version: unary('Version', () => ({ version: 'v1beta1', runtime_name: 'fairway-test-kms', runtime_version: '0.1.0' })),
    Encrypt: unary('Encrypt', (request, c) => {
      const id = Buffer.from(c.keyId);
      return { cipher: Buffer.concat([Buffer.of(id.length), id, wrap(c.keyId, request.plain as Buffer)]) };
    }),
    Decrypt: unary('Decrypt', (request) => {
      const cipher = request.cipher as Buffer;
      const idLength = cipher[0] ?? 0;
      const keyId = cipher.subarray(1, 1 + idLength).toString();
      return { plain: unwrap(keyId, cipher.subarray(1 + idLength)) };
    }),
  });
  // A socket left by a killed predecessor would make the bind fail.
  if (existsSync(socketPath)) unlinkSync(socketPath);
  server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error !== null) {
      process.stderr.write(`kms-plugin: cannot listen on ${socketPath}: ${error.message}\n`);
      process.exit(1);
    }
    process.stdout.write('ready\n');
  });
  const stop = (): void => {
    server.forceShutdown();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
