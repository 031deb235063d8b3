// The KMS v2 write key (DEK seed) and the plugin health behind it, as kube-apiserver keeps them:
//
// * A status call is made at start, then every minute while healthy and every 10 s while not.
//   A healthy answer has healthz "ok", version v2 (or v2beta1, never changing once seen) and a
//   valid key ID.
// * When the key ID differs from the one the current seed was wrapped under (or there is no seed
//   yet), a new 32-byte seed is generated and sent to Encrypt; the answer's key ID must equal the
//   status key ID. The wrapped seed becomes the write state.
// * The write state expires 3 minutes after the last good status (the clock starts before the
//   call). Writes then fail until the plugin answers again; reads keep working from the cache.
// * Health answers are cached for 20 s when good and 3 s when bad, as the health check does.
//
// Time comes only from the injected Clock, so tests drive polling and expiry deterministically.

import { createHash } from 'node:crypto';
import type { Clock, Cancel } from '../../clock.ts';
import { formatRfc3339 } from '../../clock.ts';
import type { KmsV2Service } from '../../kms/kms-service.ts';
import type { Transformer } from './transformer.ts';
import type { RandomBytes } from './random-bytes.ts';
import { randomUuid } from './random-bytes.ts';
import type { EncryptedObject } from './encrypted-object.ts';
import { DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED, validateEncryptedObject, validateKeyId } from './encrypted-object.ts';
import { createXnonceGcmTransformer } from './xnonce-gcm.ts';

export const STATUS_POLL_HEALTHY_MS = 60_000;
export const STATUS_POLL_UNHEALTHY_MS = 10_000;
export const WRITE_STATE_TTL_MS = 3 * 60_000;
export const HEALTH_CACHE_HEALTHY_MS = 20_000;
export const HEALTH_CACHE_UNHEALTHY_MS = 3_000;
export const SEED_BYTES = 32;

export interface KmsV2WriteState {
  transformer: Transformer;
  /** The envelope fields every write copies (everything but encryptedData). */
  template: Omit<EncryptedObject, 'encryptedData'>;
  /** Decrypt-cache key of this seed, so our own writes never miss the cache. */
  cacheKey: string;
  expiresAtMs: number;
}

export type KmsHealth = { healthy: true } | { healthy: false; error: string };

export interface KmsV2KeyState {
  /** The current write state, or undefined before the plugin first answered usefully. */
  current(): KmsV2WriteState | undefined;
  /** Why there is no usable state (for error messages), if a check has failed. */
  lastError(): string | undefined;
  /** The health answer, from cache when fresh. */
  health(): Promise<KmsHealth>;
  /** Calls the plugin now, ignoring the cache (startup and tests). */
  probe(): Promise<KmsHealth>;
  /** Starts the polling loop (after one probe); resolves when the first probe finished. */
  start(): Promise<KmsHealth>;
  stop(): void;
}

export function createKmsV2KeyState(name: string, service: KmsV2Service, clock: Clock, random: RandomBytes): KmsV2KeyState {
  let state: KmsV2WriteState | undefined;
  let version: string | undefined;
  let last: { health: KmsHealth; atMs: number } | undefined;
  let inflight: Promise<KmsHealth> | undefined;
  let timer: Cancel | undefined;
  let stopped = false;

  const rotateIfNeeded = async (statusKeyId: string): Promise<string | undefined> => {
    // The expiry is counted from before the call: 3 minutes is an upper bound on trusting the key.
    const expiresAtMs = clock.now() + WRITE_STATE_TTL_MS;
    if (state !== undefined && state.template.keyId === statusKeyId) {
      state = { ...state, expiresAtMs };
      return undefined;
    }
    const uid = randomUuid(random);
    const seed = random(SEED_BYTES);
    let problem: string;
    try {
      const response = await service.encrypt(uid, seed);
      const template = {
        keyId: response.keyId,
        encryptedDekSource: response.ciphertext,
        annotations: response.annotations,
        encryptedDekSourceType: DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED,
      };
      const invalid = validateEncryptedObject({ ...template, encryptedData: Uint8Array.of(0) });
      if (invalid === undefined && response.keyId === statusKeyId) {
        state = { transformer: createXnonceGcmTransformer(seed, random), template, cacheKey: decryptCacheKey(template), expiresAtMs };
        return undefined;
      }
      problem = invalid ?? `encrypt returned keyID hash ${JSON.stringify(keyIdHash(response.keyId))}, status said ${JSON.stringify(keyIdHash(statusKeyId))}`;
    } catch (error) {
      problem = `failed to encrypt DEK, error: ${describe(error)}`;
    }
    return `failed to rotate DEK uid=${JSON.stringify(uid)}, ${problem}, stateKeyIDHash=${JSON.stringify(keyIdHash(state?.template.keyId ?? ''))}`;
  };

  const check = async (): Promise<KmsHealth> => {
    let health: KmsHealth;
    try {
      const status = await service.status();
      const problems: string[] = [];
      if (status.healthz !== 'ok') problems.push(`got unexpected healthz status: ${status.healthz}`);
      if (status.version !== 'v2' && status.version !== 'v2beta1') problems.push(`expected KMSv2 API version v2, got ${status.version}`);
      else if (version !== undefined && status.version !== version) problems.push(`KMSv2 API version changed from ${version} to ${status.version}`);
      else version = status.version;
      const keyIdProblem = validateKeyId(status.keyId);
      if (keyIdProblem !== undefined) problems.push(`got invalid KMSv2 KeyID hash ${JSON.stringify(keyIdHash(status.keyId))}: ${keyIdProblem}`);
      else {
        const rotation = await rotateIfNeeded(status.keyId);
        if (rotation !== undefined) problems.push(rotation);
      }
      health =
        problems.length === 0
          ? { healthy: true }
          : { healthy: false, error: `kmsv2 Provider ${name} is not healthy, error: ${problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`}` };
    } catch (error) {
      health = { healthy: false, error: `failed to perform status section of the healthz check for KMS Provider ${name}, error: ${describe(error)}` };
    }
    last = { health, atMs: clock.now() };
    return health;
  };

  const probe = (): Promise<KmsHealth> => {
    // One call at a time: a health request during a poll shares the poll's answer.
    inflight ??= check().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  const schedule = (health: KmsHealth): void => {
    if (stopped) return;
    timer = clock.after(health.healthy ? STATUS_POLL_HEALTHY_MS : STATUS_POLL_UNHEALTHY_MS, () => {
      timer = undefined;
      void probe().then(schedule);
    });
  };

  return {
    current: () => state,
    lastError: () => (last !== undefined && !last.health.healthy ? last.health.error : undefined),
    async health() {
      if (last !== undefined && clock.now() - last.atMs < (last.health.healthy ? HEALTH_CACHE_HEALTHY_MS : HEALTH_CACHE_UNHEALTHY_MS)) return last.health;
      return probe();
    },
    probe,
    async start() {
      const health = await probe();
      schedule(health);
      return health;
    },
    stop() {
      stopped = true;
      timer?.();
      timer = undefined;
    },
  };
}

/** `sha256:<hex>` of a key ID, as kube-apiserver logs it (the ID itself may be sensitive). */
export function keyIdHash(keyId: string): string {
  return keyId === '' ? '' : `sha256:${createHash('sha256').update(keyId).digest('hex')}`;
}

/** The RFC 3339 time kube-apiserver prints in an expiry error. */
export function expiryMessage(writeState: KmsV2WriteState, nowMs: number): string {
  return (
    `encryptedDEKSource with keyID hash ${JSON.stringify(keyIdHash(writeState.template.keyId))} expired at ${formatRfc3339(writeState.expiresAtMs)} ` +
    `(current time is ${formatRfc3339(nowMs)})`
  );
}

/**
 * Decrypt-cache key: SHA-256 over source type (uint32), encrypted DEK source and key ID (each
 * uint16-length-prefixed) and, when present, the annotations (uint32 count, then sorted
 * uint16-length-prefixed key/value pairs) — every field that decides what Decrypt returns.
 */
export function decryptCacheKey(o: Omit<EncryptedObject, 'encryptedData'>): string {
  const hash = createHash('sha256');
  const u32 = (n: number): Uint8Array => Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  const prefixed = (bytes: Uint8Array): void => {
    hash.update(Uint8Array.of(bytes.length >>> 8, bytes.length & 0xff));
    hash.update(bytes);
  };
  hash.update(u32(o.encryptedDekSourceType));
  prefixed(o.encryptedDekSource);
  prefixed(new TextEncoder().encode(o.keyId));
  if (o.annotations.size > 0) {
    hash.update(u32(o.annotations.size));
    for (const key of [...o.annotations.keys()].sort()) {
      prefixed(new TextEncoder().encode(key));
      prefixed(o.annotations.get(key)!);
    }
  }
  return hash.digest('hex');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
