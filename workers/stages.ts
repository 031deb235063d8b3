// The registry of stages admitted work may hand to an Executor. A stage is a pure, synchronous
// function of a structured-cloneable payload, so the same code runs on the main thread (inline
// executor), in a Piscina worker (worker-task.ts imports this file) and under the simulator. A bad
// payload throws a plain error with a clear message; executors turn it into
// FW_ERR_EXECUTOR_STAGE_FAILED naming the stage.
//
// `sizeOf` measures a payload in the stage's `sizeUnit`; the routing executor compares it with a
// per-stage threshold to choose main thread or pool (thresholds: docs/execution-plane.md).

import { threadId, type TransferListItem } from 'node:worker_threads';
import { goJsonText, newlineTerminatedBytes } from '../engine/store/go-json.ts';
import { ENCODE_PROTOBUF_ITEMS_STAGE, ENCODE_TABLE_ROWS_STAGE, encodeProtobufItems, encodeTableRows, runRender } from './render-stages.ts';
import { APPLY_PATCH_STAGE, MERGE_PATCH_STAGE, packPatchResult, patchWorkSize, runPatchStage } from './patch-stage.ts';
import { ENCODE_OBJECTS_STAGE, ENCODE_YAML_ITEMS_STAGE, encodeObjectsJson, encodeYamlItems } from './objects-json.ts';
import { objectsByteLength, packPayload } from './stored-objects.ts';
import { DECODE_YAML_STAGE, decodeYamlSize, runDecodeYaml } from './decode-yaml.ts';

export interface Stage {
  readonly name: string;
  /** `diagnostic` stages exist for tests and benchmarks; request handlers never name them. */
  readonly purpose: 'serving' | 'diagnostic';
  readonly sizeUnit: 'items' | 'bytes' | 'iterations' | 'none';
  sizeOf(payload: unknown): number;
  run(payload: unknown): unknown;
  /**
   * What crosses to a worker thread instead of `payload` (undefined: the payload itself): stages
   * over stored objects send their codec bytes, moved, never the object graph. `run` accepts both.
   */
  pack?(payload: unknown): { payload: unknown; transferList: TransferListItem[] } | undefined;
  /**
   * What the result becomes to cross back from a worker thread (undefined: the result itself), run
   * there and only there: the patch stages send the patched object as JSON bytes rather than an
   * object graph, and hand it over as it is on the calling thread. Callers accept both forms.
   */
  packResult?(result: unknown): unknown;
}

/** Upper bound on `sleep-cpu` iterations (about a minute of CPU): a typo must not wedge a thread. */
export const SLEEP_CPU_ITERATIONS_MAX = 1e10;

const STAGE_LIST: readonly Stage[] = [
  {
    // One JSON value (an object, a List with `items`, an array) → its UTF-8 body with Go's escaping
    // and trailing newline.
    name: 'encode-json',
    purpose: 'serving',
    sizeUnit: 'items',
    sizeOf: itemCount,
    run: (payload) => newlineTerminatedBytes([goJsonText(payload)]),
  },
  {
    // An array of values → one JSON document per line: the body of a burst of watch events.
    name: 'encode-json-lines',
    purpose: 'serving',
    sizeUnit: 'items',
    sizeOf: (payload) => (Array.isArray(payload) ? payload.length : 0),
    run: (payload) => {
      if (!Array.isArray(payload)) throw new TypeError(`payload must be an array of values, got ${typeName(payload)}`);
      return newlineTerminatedBytes(payload.map((value, index) => textAt(value, index)));
    },
  },
  {
    // Stored objects → each one's JSON, for the watch cache to keep (objects-json.ts).
    name: ENCODE_OBJECTS_STAGE,
    purpose: 'serving',
    sizeUnit: 'bytes',
    sizeOf: objectsByteLength,
    run: encodeObjectsJson,
    pack: packPayload,
  },
  {
    // Stored objects → each one's YAML as a list item, for a YAML LIST to reuse (api/handlers/encoded-items.ts).
    name: ENCODE_YAML_ITEMS_STAGE,
    purpose: 'serving',
    sizeUnit: 'bytes',
    sizeOf: objectsByteLength,
    run: encodeYamlItems,
    pack: packPayload,
  },
  {
    // Stored objects → each one's protobuf message, for protobuf LISTs to reuse (api/handlers/encoded-items.ts).
    name: ENCODE_PROTOBUF_ITEMS_STAGE,
    purpose: 'serving',
    sizeUnit: 'bytes',
    sizeOf: objectsByteLength,
    run: encodeProtobufItems,
    pack: packPayload,
  },
  {
    // Stored objects → each one's Table row, cut where its Age goes, for Table LISTs to reuse (api/handlers/encoded-items.ts).
    name: ENCODE_TABLE_ROWS_STAGE,
    purpose: 'serving',
    sizeUnit: 'bytes',
    sizeOf: objectsByteLength,
    run: encodeTableRows,
    pack: packPayload,
  },
  // Stored objects → a response body (engine/render/render-body.ts), one stage per cost class so each
  // has its own threshold: pretty JSON and partial metadata, Tables, YAML, protobuf.
  renderStage('render-json'),
  renderStage('render-table'),
  renderStage('render-yaml'),
  renderStage('render-protobuf'),
  // A PATCH applied to the stored object (patch-stage.ts), one stage per cost class:
  // server-side apply and strategic merge; merge and JSON patches.
  patchStage(APPLY_PATCH_STAGE),
  patchStage(MERGE_PATCH_STAGE),
  {
    // A YAML request body → its value, repeated keys or error, its cost bounded first (decode-yaml.ts).
    name: DECODE_YAML_STAGE,
    purpose: 'serving',
    sizeUnit: 'bytes',
    sizeOf: decodeYamlSize,
    run: runDecodeYaml,
  },
  {
    // Deterministic CPU work: `iterations` steps of xorshift32; returns the final state so the loop
    // cannot be optimised away. Models a stage of known cost in tests and benchmarks.
    name: 'sleep-cpu',
    purpose: 'diagnostic',
    sizeUnit: 'iterations',
    sizeOf: (payload) => {
      const iterations = (payload as { iterations?: unknown } | null)?.iterations;
      return typeof iterations === 'number' && Number.isFinite(iterations) ? iterations : 0;
    },
    run: (payload) => sleepCpu(payload),
  },
  {
    // Returns its payload: one hop with no work, for measuring the hop itself.
    name: 'noop',
    purpose: 'diagnostic',
    sizeUnit: 'none',
    sizeOf: () => 0,
    run: (payload) => payload,
  },
  {
    // The id of the thread that ran it (0 on the main thread): lets tests see where work ran.
    name: 'thread-id',
    purpose: 'diagnostic',
    sizeUnit: 'none',
    sizeOf: () => 0,
    run: () => threadId,
  },
];

export const STAGES: ReadonlyMap<string, Stage> = new Map(STAGE_LIST.map((stage) => [stage.name, stage]));

export function findStage(name: string): Stage | undefined {
  return STAGES.get(name);
}

export function stageNames(): string[] {
  return [...STAGES.keys()];
}

/** The checksum `sleep-cpu` returns for `iterations`, computed the same way (for tests). */
export function sleepCpu(payload: unknown): number {
  const iterations = (payload as { iterations?: unknown } | null)?.iterations;
  if (typeof iterations !== 'number' || !Number.isInteger(iterations) || iterations < 0 || iterations > SLEEP_CPU_ITERATIONS_MAX) {
    throw new RangeError(
      `payload.iterations must be an integer from 0 to ${SLEEP_CPU_ITERATIONS_MAX}, got ${JSON.stringify(iterations) ?? typeName(iterations)}`,
    );
  }
  let state = 0x9e3779b9 | 0;
  for (let i = 0; i < iterations; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
  }
  return state >>> 0;
}

function renderStage(name: string): Stage {
  return {
    name,
    purpose: 'serving',
    sizeUnit: 'bytes',
    sizeOf: objectsByteLength,
    run: runRender,
    pack: packPayload,
  };
}

function patchStage(name: string): Stage {
  return { name, purpose: 'serving', sizeUnit: 'bytes', sizeOf: patchWorkSize, run: runPatchStage, pack: packPayload, packResult: packPatchResult };
}

function itemCount(payload: unknown): number {
  if (Array.isArray(payload)) return payload.length;
  const items = (payload as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.length : 1;
}

function textAt(value: unknown, index: number): string {
  try {
    return goJsonText(value);
  } catch (error) {
    throw new TypeError(`item ${index}: ${(error as Error).message}`, { cause: error });
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}
