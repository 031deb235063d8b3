// Automatic reload of the encryption configuration (`--encryption-provider-config-automatic-reload`),
// the file-watching half: every minute (on the injected Clock) the file is read and its SHA-256
// compared with the configuration in force. New content is loaded and validated in full (with the
// reload rules: KMS v1 names must be unique too), then offered to `prepare` — where the server
// builds transformers and waits for KMS health — and only then becomes current. Anything that
// fails leaves the last good configuration in force and is reported as a value, once per distinct
// bad content, never thrown. Reading the file is the only I/O; a test may substitute it.

import { createHash } from 'node:crypto';
import { readConfigFile } from './config-file.ts';
import type { Cancel, Clock } from '../clock.ts';
import type { EncryptionConfigError, EncryptionConfigOptions, LoadedEncryptionConfig } from './encryption-config.ts';
import { parseEncryptionConfig } from './encryption-config.ts';

export const RELOAD_POLL_INTERVAL_MS = 60_000;

export type ReloadOutcome =
  /** Same bytes as the configuration in force, or as the last rejected content. */
  | { kind: 'unchanged' }
  | { kind: 'reloaded'; config: LoadedEncryptionConfig; previousHash: string }
  /** The configuration in force did not change. */
  | { kind: 'rejected'; error: EncryptionConfigError; contentHash: string | undefined };

export interface EncryptionConfigWatcherOptions {
  file: string;
  clock: Clock;
  /** The configuration loaded at startup (a server does not start without a valid one). */
  initial: LoadedEncryptionConfig;
  loadOptions?: Omit<EncryptionConfigOptions, 'reload'>;
  intervalMs?: number;
  /**
   * Last step before a new configuration takes effect (build transformers, wait for KMS health).
   * An error message rejects it; the default accepts.
   */
  prepare?: (candidate: LoadedEncryptionConfig) => Promise<{ ok: true } | { ok: false; message: string }>;
  /** Told about every reload and every newly rejected content (not about unchanged polls). */
  onOutcome?: (outcome: Exclude<ReloadOutcome, { kind: 'unchanged' }>) => void;
  readFile?: (file: string) => Promise<Uint8Array>;
}

export interface EncryptionConfigWatcher {
  current(): LoadedEncryptionConfig;
  /** The most recent rejection since the last successful reload, if any. */
  lastRejection(): Extract<ReloadOutcome, { kind: 'rejected' }> | undefined;
  /** One check now (the timer calls this too); concurrent calls share one check. */
  poll(): Promise<ReloadOutcome>;
  start(): void;
  stop(): void;
}

export function createEncryptionConfigWatcher(options: EncryptionConfigWatcherOptions): EncryptionConfigWatcher {
  const read = options.readFile ?? ((file: string) => readConfigFile(file));
  const intervalMs = options.intervalMs ?? RELOAD_POLL_INTERVAL_MS;
  let current = options.initial;
  let rejection: Extract<ReloadOutcome, { kind: 'rejected' }> | undefined;
  let rejectedSignature: string | undefined;
  let inflight: Promise<ReloadOutcome> | undefined;
  let timer: Cancel | undefined;
  let running = false;

  const reject = (error: EncryptionConfigError, contentHash: string | undefined, signature: string): ReloadOutcome => {
    if (signature === rejectedSignature) return { kind: 'unchanged' };
    rejectedSignature = signature;
    rejection = { kind: 'rejected', error, contentHash };
    options.onOutcome?.(rejection);
    return rejection;
  };

  const check = async (): Promise<ReloadOutcome> => {
    let bytes: Uint8Array;
    try {
      bytes = await read(options.file);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      const message = `error while parsing file: error opening encryption provider configuration file ${JSON.stringify(options.file)}: ${why}`;
      return reject({ file: options.file, stage: 'read', message, fieldErrors: [] }, undefined, `read:${message}`);
    }
    const contentHash = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (contentHash === current.contentHash) {
      // Put back to the content in force: nothing is wrong any more.
      rejection = undefined;
      rejectedSignature = undefined;
      return { kind: 'unchanged' };
    }
    // Invalid content stays invalid: do not load it again until the file changes.
    if (contentHash === rejectedSignature) return { kind: 'unchanged' };
    const loaded = parseEncryptionConfig(bytes, options.file, { ...options.loadOptions, reload: true });
    if (!loaded.ok) return reject(loaded.error, contentHash, contentHash);
    const prepared = options.prepare === undefined ? { ok: true as const } : await options.prepare(loaded.value);
    // A failed prepare (say, a KMS plugin not healthy yet) is retried on every poll; it is reported
    // again only when its message changes.
    if (!prepared.ok)
      return reject(
        { file: options.file, stage: 'build', message: prepared.message, fieldErrors: [] },
        contentHash,
        `prepare:${contentHash}:${prepared.message}`,
      );
    const previousHash = current.contentHash;
    current = loaded.value;
    rejection = undefined;
    rejectedSignature = undefined;
    const outcome = { kind: 'reloaded' as const, config: loaded.value, previousHash };
    options.onOutcome?.(outcome);
    return outcome;
  };

  const poll = (): Promise<ReloadOutcome> => {
    inflight ??= check().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  const schedule = (): void => {
    if (!running) return;
    timer = options.clock.after(intervalMs, () => {
      timer = undefined;
      void poll().finally(schedule);
    });
  };

  return {
    current: () => current,
    lastRejection: () => rejection,
    poll,
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    stop() {
      running = false;
      timer?.();
      timer = undefined;
    },
  };
}
