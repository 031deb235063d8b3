// YAML request bodies composed as work for the execution plane. The yaml package composes about
// 2 µs per byte of a manifest (a 1.2 MB flow sequence held the main thread 5.5 s), ten to forty
// times JSON.parse, so beyond a few hundred bytes a body is read on a worker: its bytes cross,
// the value comes back (a structured clone of plain data, which the main thread reads at the
// native speed of a JSON.parse). Its cost was bounded first (engine/yaml-cost.ts, inside
// parseGoYaml), on the same thread, so hostile text holds a worker only as long as its lexing
// takes. Small bodies are read inline by the very same function, with the same result.
import { parseGoYaml, type GoYamlResult } from '../engine/go-yaml.ts';
import type { Executor } from './executor.ts';

export const DECODE_YAML_STAGE = 'decode-yaml';

export interface DecodeYamlPayload {
  /** The body's UTF-8 bytes. */
  readonly bytes: Uint8Array;
}

/** Reads a YAML body's bytes as kube-apiserver does (engine/go-yaml.ts); a refusal is a value too. */
export type YamlDecoder = (bytes: Uint8Array) => Promise<GoYamlResult>;

/** The stage: the body's value, repeated keys, or go-yaml's error text. */
export function runDecodeYaml(payload: unknown): GoYamlResult {
  const bytes = (payload as Partial<DecodeYamlPayload> | null)?.bytes;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('payload.bytes must be a Uint8Array');
  return parseGoYaml(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

/** The body's size in bytes, for routing. */
export function decodeYamlSize(payload: unknown): number {
  const bytes = (payload as Partial<DecodeYamlPayload> | null)?.bytes;
  return bytes instanceof Uint8Array ? bytes.byteLength : 0;
}

/**
 * The handlers' decoder, reading through the execution plane. The bytes are copied to the worker,
 * not moved: the caller still quotes the body's first bytes in its error message.
 */
export function executorYamlDecoder(executor: Executor): YamlDecoder {
  return (bytes) => executor.execute<GoYamlResult>({ stage: DECODE_YAML_STAGE, payload: { bytes } satisfies DecodeYamlPayload });
}

/** Reads on the calling thread: for callers with no execution plane (tests, tools). */
export const inlineYamlDecoder: YamlDecoder = (bytes) => Promise.resolve(runDecodeYaml({ bytes }));
