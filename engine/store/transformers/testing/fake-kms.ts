// An in-memory KMS v2 service for unit and property tests of the envelope transformer: wraps with
// AES-256-GCM under a key derived from the key ID, counts calls, and can be told to fail or to
// rotate. The real-process plugin (engine/kms/testing) covers the gRPC path.

import { createHash } from 'node:crypto';
import type { KmsV2Service } from '../../../kms/kms-service.ts';
import { KmsCallError } from '../../../kms/kms-service.ts';
import { openGcm, sealGcm } from '../aesgcm.ts';
import type { RandomBytes } from '../random-bytes.ts';

export interface FakeKms extends KmsV2Service {
  keyId: string;
  healthz: string;
  /** When set, every call rejects with this code (Unavailable models a dead plugin). */
  failWith: 'Unavailable' | 'Internal' | undefined;
  readonly calls: { status: number; encrypt: number; decrypt: number };
}

const ANNOTATIONS: ReadonlyMap<string, Uint8Array> = new Map([['fake.kms.test', Uint8Array.of(1)]]);

/** `realm` stands for the plugin's master secret: two fakes of different realms cannot read each other's DEKs. */
export function createFakeKms(random: RandomBytes, keyId = 'key-1', realm = 'fake-kms'): FakeKms {
  const kek = (id: string) => createHash('sha256').update(`${realm}:${id}`).digest();
  // The key ID and the annotations are bound as AAD, so changing either in storage is detected.
  const aad = (id: string, annotations: ReadonlyMap<string, Uint8Array> = ANNOTATIONS) =>
    new TextEncoder().encode(JSON.stringify([id, [...annotations].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, Buffer.from(v).toString('hex')])]));
  const fake: FakeKms = {
    keyId,
    healthz: 'ok',
    failWith: undefined,
    calls: { status: 0, encrypt: 0, decrypt: 0 },
    async status() {
      fake.calls.status++;
      if (fake.failWith) throw new KmsCallError(fake.failWith, 'fake plugin is down');
      return { version: 'v2', healthz: fake.healthz, keyId: fake.keyId };
    },
    async encrypt(_uid, plaintext) {
      fake.calls.encrypt++;
      if (fake.failWith) throw new KmsCallError(fake.failWith, 'fake plugin is down');
      return { ciphertext: sealGcm(kek(fake.keyId), random(12), plaintext, aad(fake.keyId)), keyId: fake.keyId, annotations: ANNOTATIONS };
    },
    async decrypt(_uid, request) {
      fake.calls.decrypt++;
      if (fake.failWith) throw new KmsCallError(fake.failWith, 'fake plugin is down');
      try {
        return openGcm(kek(request.keyId), request.ciphertext, aad(request.keyId, request.annotations));
      } catch {
        throw new KmsCallError('InvalidArgument', 'fake plugin cannot decrypt');
      }
    },
    close() {},
  };
  return fake;
}
