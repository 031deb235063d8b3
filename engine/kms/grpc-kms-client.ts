// gRPC clients for KMS plugins, connected as kube-apiserver connects: a unix socket, insecure
// transport, authority `localhost`, wait-for-ready (a call made while the plugin is restarting
// waits for it rather than failing at once), and a per-call deadline of the provider's `timeout`.
//
// The deadline is a timer on the injected Clock that cancels the call, not a grpc-js wall-clock
// deadline, so tests can trigger it by advancing a virtual clock. Errors are KmsCallError values
// printed the way Go's gRPC prints them: `rpc error: code = DeadlineExceeded desc = ...`.

import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Clock } from '../clock.ts';
import type { KmsCallCode, KmsV1Service, KmsV2Service } from './kms-service.ts';
import { KmsCallError } from './kms-service.ts';
import { grpcTarget, parseKmsEndpoint } from './kms-endpoint.ts';

export interface GrpcKmsClientOptions {
  /** `unix:///path/to/socket` (or `unix:///@abstract`). */
  endpoint: string;
  timeoutMs: number;
  clock: Clock;
  /** Extra grpc-js channel options (tests shorten the reconnect backoff). */
  channelOptions?: grpc.ChannelOptions;
}

export const KMS_V1_API_VERSION = 'v1beta1';

/** The .proto files ship beside this module; loaded once per process. */
const protoPath = (name: string): string => fileURLToPath(new URL(`./proto/${name}`, import.meta.url));
let packages: { v2: grpc.ServiceClientConstructor; v1beta1: grpc.ServiceClientConstructor } | undefined;

export function kmsServiceDefinitions(): { v2: grpc.ServiceClientConstructor; v1beta1: grpc.ServiceClientConstructor } {
  if (packages === undefined) {
    const load = (file: string) =>
      grpc.loadPackageDefinition(protoLoader.loadSync(protoPath(file), { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }));
    const v2 = (load('kms-v2.proto').v2 as grpc.GrpcObject).KeyManagementService as grpc.ServiceClientConstructor;
    const v1beta1 = (load('kms-v1beta1.proto').v1beta1 as grpc.GrpcObject).KeyManagementService as grpc.ServiceClientConstructor;
    packages = { v2, v1beta1 };
  }
  return packages;
}

export function createGrpcKmsV2Client(options: GrpcKmsClientOptions): KmsV2Service {
  const call = connect(kmsServiceDefinitions().v2, options);
  return {
    async status() {
      const response = await call('Status', {});
      return { version: String(response.version ?? ''), healthz: String(response.healthz ?? ''), keyId: String(response.key_id ?? '') };
    },
    async encrypt(uid, plaintext) {
      const response = await call('Encrypt', { plaintext: Buffer.from(plaintext), uid });
      return { ciphertext: bytesOf(response.ciphertext), keyId: String(response.key_id ?? ''), annotations: annotationsOf(response.annotations) };
    },
    async decrypt(uid, request) {
      const response = await call('Decrypt', {
        ciphertext: Buffer.from(request.ciphertext),
        uid,
        key_id: request.keyId,
        annotations: Object.fromEntries([...request.annotations].map(([k, v]) => [k, Buffer.from(v)])),
      });
      return bytesOf(response.plaintext);
    },
    close: () => call.close(),
  };
}

export function createGrpcKmsV1Client(options: GrpcKmsClientOptions): KmsV1Service {
  const call = connect(kmsServiceDefinitions().v1beta1, options);
  let versionChecked = false;
  // kube-apiserver checks the plugin's API version once, before the first real call.
  const checkVersion = async (): Promise<void> => {
    if (versionChecked) return;
    let response: Record<string, unknown>;
    try {
      response = await call('Version', { version: KMS_V1_API_VERSION });
    } catch (error) {
      throw new KmsCallError(error instanceof KmsCallError ? error.code : 'Unknown', `failed get version from remote KMS provider: ${describe(error)}`, {
        cause: error,
      });
    }
    if (response.version !== KMS_V1_API_VERSION) {
      throw new KmsCallError(
        'FailedPrecondition',
        `KMS provider api version ${String(response.version)} is not supported, only ${KMS_V1_API_VERSION} is supported now`,
      );
    }
    versionChecked = true;
  };
  return {
    async encrypt(plaintext) {
      await checkVersion();
      return bytesOf((await call('Encrypt', { version: KMS_V1_API_VERSION, plain: Buffer.from(plaintext) })).cipher);
    },
    async decrypt(ciphertext) {
      await checkVersion();
      return bytesOf((await call('Decrypt', { version: KMS_V1_API_VERSION, cipher: Buffer.from(ciphertext) })).plain);
    },
    close: () => call.close(),
  };
}

// ---------------------------------------------------------------------------------------------

type UnaryCall = ((method: string, request: Record<string, unknown>) => Promise<Record<string, unknown>>) & { close(): void };

function connect(Service: grpc.ServiceClientConstructor, options: GrpcKmsClientOptions): UnaryCall {
  const endpoint = parseKmsEndpoint(options.endpoint);
  if (!endpoint.ok) throw new Error(endpoint.error);
  const client = new Service(grpcTarget(endpoint.socket), grpc.credentials.createInsecure(), {
    'grpc.default_authority': 'localhost',
    ...options.channelOptions,
  });
  let closed = false;
  const call = (method: string, request: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      if (closed) {
        reject(new KmsCallError('Canceled', 'grpc: the client connection is closing'));
        return;
      }
      let timedOut = false;
      const metadata = new grpc.Metadata();
      metadata.setOptions({ waitForReady: true });
      const method_ = client[method] as (
        req: unknown,
        md: grpc.Metadata,
        cb: (error: grpc.ServiceError | null, response?: Record<string, unknown>) => void,
      ) => grpc.ClientUnaryCall;
      const pending = method_.call(client, request, metadata, (error, response) => {
        cancelTimer();
        if (error !== null) reject(callError(error, timedOut));
        else resolve(response ?? {});
      });
      const cancelTimer = options.clock.after(options.timeoutMs, () => {
        timedOut = true;
        pending.cancel();
      });
    });
  return Object.assign(call, {
    close() {
      closed = true;
      client.close();
    },
  });
}

const CODE_NAMES: Record<number, KmsCallCode> = {
  1: 'Canceled',
  2: 'Unknown',
  3: 'InvalidArgument',
  4: 'DeadlineExceeded',
  5: 'NotFound',
  6: 'AlreadyExists',
  7: 'PermissionDenied',
  8: 'ResourceExhausted',
  9: 'FailedPrecondition',
  10: 'Aborted',
  11: 'OutOfRange',
  12: 'Unimplemented',
  13: 'Internal',
  14: 'Unavailable',
  15: 'DataLoss',
  16: 'Unauthenticated',
};

function callError(error: grpc.ServiceError, timedOut: boolean): KmsCallError {
  // Our own deadline cancels the call; report it as Go reports an expired context.
  if (timedOut) return new KmsCallError('DeadlineExceeded', 'context deadline exceeded', { cause: error });
  return new KmsCallError(CODE_NAMES[error.code] ?? 'Unknown', error.details || error.message, { cause: error });
}

function bytesOf(value: unknown): Uint8Array {
  return value instanceof Uint8Array ? new Uint8Array(value) : new Uint8Array(0);
}

function annotationsOf(value: unknown): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) out.set(k, bytesOf(v));
  return out;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
