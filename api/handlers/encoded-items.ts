// Per stored object version, the bytes of an encoding made once and reused by every response until
// a newer version replaces it (engine/store/cached-object.ts, releaseEncodings), as
// kube-apiserver's caching objects keep each serialization:
// each object's JSON (StoredForm.jsonBytes, bounded by the watch cache itself), and, counted
// against one byte budget (`--encoding-cache-bytes`), each object's YAML as a list item, its
// protobuf message and its Table row (for each includeObject form, cut where its Age goes). A LIST
// is then a head, the items' bytes and a tail, whatever the encoding. Making missing items is work
// for the execution plane, many at a time (a worker for many, the main thread for a few).
import { onEncodingsReleased } from '../../engine/store/cached-object.ts';
import type { StoredForm } from '../../engine/store/store-types.ts';
import type { Executor, Work } from '../../workers/executor.ts';
import { encodeObjectsWork, encodeYamlItemsWork, splitEncodedObjects } from '../../workers/objects-json.ts';
import { keepObjectMessage, keptObjectMessage } from '../../engine/protobuf/objects.ts';
import { ENCODE_PROTOBUF_ITEMS_STAGE, ENCODE_TABLE_ROWS_STAGE } from '../../workers/render-stages.ts';
import type { IncludeObject } from '../../engine/render/table.ts';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';

/** 256 MiB: the YAML items of ~40,000 objects of 4 KiB as JSON (a YAML item is about 1.2× its JSON). */
export const DEFAULT_ENCODING_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * What the kept encodings may hold in all. Bytes count from when they are kept until their holder
 * (a version's map of kept items, `keptByForm`) is collected; past the limit, items are made for
 * the response and not kept.
 */
export class EncodingBudget {
  #used = 0;
  readonly #released = new FinalizationRegistry<number>((bytes) => {
    this.#used -= bytes;
  });

  constructor(readonly limitBytes: number) {}

  get usedBytes(): number {
    return this.#used;
  }

  /** Whether `bytes` more may be kept for `holder` (and, if so, they now count). */
  charge(holder: object, bytes: number): boolean {
    if (this.#used + bytes > this.limitBytes) return false;
    this.#used += bytes;
    this.#released.register(holder, bytes);
    return true;
  }
}

/**
 * Each form's kept items (YAML, Table rows), by the KeptItems that made them. The map is also what
 * their bytes, and the form's protobuf message, are charged to: once the form is past the map is
 * forgotten, and when it is collected the budget gets the bytes back, though the form itself stays
 * in the watch cache's window.
 */
const keptByForm = new WeakMap<StoredForm, Map<object, Uint8Array>>();
onEncodingsReleased((form) => keptByForm.delete(form));

function keptOf(form: StoredForm): Map<object, Uint8Array> {
  let kept = keptByForm.get(form);
  if (kept === undefined) {
    kept = new Map();
    keptByForm.set(form, kept);
  }
  return kept;
}

/** A place among each form's kept items. */
function keptPlace(): { get(form: StoredForm): Uint8Array | undefined; set(form: StoredForm, bytes: Uint8Array): void } {
  const place = {};
  return { get: (form) => keptByForm.get(form)?.get(place), set: (form, bytes) => keptOf(form).set(place, bytes) };
}

/** Where one encoding of a form is kept, and the work that makes it for many forms. */
interface Slot {
  get(form: StoredForm): Uint8Array | undefined;
  /** Keeps `bytes` for `form` if it may; false when it may not (the budget is spent). */
  keep(form: StoredForm, bytes: Buffer): boolean;
  work(forms: readonly StoredForm[]): Work;
  /** Forms whose encoding is being made now: concurrent requests wait for that work instead of repeating it. */
  readonly pending: WeakMap<StoredForm, Promise<void>>;
}

/**
 * Every form's bytes in `slot`, in order: those kept as they are, the rest made now (one piece of
 * work for all of them) and kept where the slot may.
 */
async function encoded(forms: readonly StoredForm[], executor: Executor, slot: Slot): Promise<Uint8Array[]> {
  const missing: StoredForm[] = [];
  const others = new Set<Promise<void>>();
  for (const form of forms) {
    if (slot.get(form) !== undefined) continue;
    const pending = slot.pending.get(form);
    if (pending !== undefined) others.add(pending);
    else missing.push(form);
  }
  const made = new Map<StoredForm, Uint8Array>();
  if (missing.length > 0) {
    const own = executor.execute<Buffer>(slot.work(missing)).then((bytes) => {
      const parts = splitEncodedObjects(bytes);
      for (let i = 0; i < missing.length; i++) if (!slot.keep(missing[i]!, parts[i]!)) made.set(missing[i]!, parts[i]!);
    });
    // What other requests wait for: settles either way; a failure is reported to this request only.
    const settled = own.then(
      () => undefined,
      () => undefined,
    );
    for (const form of missing) slot.pending.set(form, settled);
    void settled.then(() => {
      for (const form of missing) if (slot.pending.get(form) === settled) slot.pending.delete(form);
    });
    await own;
  }
  for (const other of others) await other;
  const out: Uint8Array[] = new Array(forms.length);
  for (let i = 0; i < forms.length; i++) {
    const form = forms[i]!;
    // Made by another request that could not keep it: this one makes its own.
    out[i] = slot.get(form) ?? made.get(form) ?? (await encoded([form], executor, slot))[0]!;
  }
  return out;
}

const JSON_SLOT: Slot = {
  get: (form) => form.jsonBytes,
  keep: (form, bytes) => {
    form.jsonBytes ??= bytes;
    return true;
  },
  work: encodeObjectsWork,
  pending: new WeakMap(),
};

/** Makes sure every form has its JSON kept (StoredForm.jsonBytes). */
export async function cacheJson(forms: readonly StoredForm[], executor: Executor): Promise<void> {
  await encoded(forms, executor, JSON_SLOT);
}

/** Kept per form: one encoding's bytes, within `budget`. */
class KeptItems {
  readonly #slot: Slot;

  constructor(
    budget: EncodingBudget,
    work: (forms: readonly StoredForm[]) => Work,
    store: { get(form: StoredForm): Uint8Array | undefined; set(form: StoredForm, bytes: Uint8Array): void },
  ) {
    this.#slot = {
      get: store.get,
      keep: (form, bytes) => {
        if (!budget.charge(keptOf(form), bytes.byteLength)) return false;
        store.set(form, bytes);
        return true;
      },
      work,
      pending: new WeakMap(),
    };
  }

  /** The forms of the last call and their bytes: a LIST repeated against an unchanged list gets them again. */
  #last: { forms: readonly StoredForm[]; bytes: Uint8Array[] } | undefined;

  /** Each form's bytes, in order: kept ones as they are, the rest made now. */
  async of(forms: readonly StoredForm[], executor: Executor): Promise<Uint8Array[]> {
    const last = this.#last;
    if (last !== undefined && sameForms(last.forms, forms)) return last.bytes;
    const bytes = await encoded(forms, executor, this.#slot);
    this.#last = { forms, bytes };
    return bytes;
  }
}

export type { KeptItems };

/**
 * The same versions in the same order (the watch cache's own objects, compared by reference: a
 * version's kept bytes never change, so neither do the list's).
 */
export function sameForms(a: readonly StoredForm[], b: readonly StoredForm[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Each form's YAML as a list item (engine/store/yaml-text.ts). */
export function yamlItems(budget: EncodingBudget): KeptItems {
  return new KeptItems(budget, encodeYamlItemsWork, keptPlace());
}

/** Each form's protobuf message, kept where the protobuf codec keeps a stored object's (engine/protobuf/objects.ts). */
export function protobufItems(budget: EncodingBudget): KeptItems {
  const work = (forms: readonly StoredForm[]): Work => ({ stage: ENCODE_PROTOBUF_ITEMS_STAGE, payload: { objects: forms } });
  return new KeptItems(budget, work, { get: (form) => keptObjectMessage(form.object), set: (form, bytes) => keepObjectMessage(form.object, bytes) });
}

/** Each form's Table row (cut where its Age goes), per includeObject form, for one kind. */
export function tableRows(budget: EncodingBudget, kind: FlowcontrolKind, apiDomain?: string): Record<IncludeObject, KeptItems> {
  const kept = (includeObject: IncludeObject) => {
    const work = (forms: readonly StoredForm[]): Work => ({
      stage: ENCODE_TABLE_ROWS_STAGE,
      payload: { objects: forms, table: { kind, includeObject, apiDomain } },
    });
    return new KeptItems(budget, work, keptPlace());
  };
  return { None: kept('None'), Metadata: kept('Metadata'), Object: kept('Object') };
}

/** A kept Table row with its Age in place (see agedTableRows). */
export type AgedTableRow = (row: Uint8Array, ageJson: string) => Uint8Array | undefined;

/**
 * Each kept Table row as sent, its Age in place, made when the row is first sent with that Age
 * and kept beside the row until the Age's text changes (every second for objects under ten
 * minutes old, rarely after): so a Table LIST is one part per row, as a JSON LIST is, instead of
 * three. Charged to the budget once, at the first copy's size, to the kept row (a later Age
 * replaces the copy at nearly the same size); none when the budget is spent.
 */
export function agedTableRows(budget: EncodingBudget): AgedTableRow {
  const aged = new WeakMap<Uint8Array, { ageJson: string; bytes: Uint8Array }>();
  return (row, ageJson) => {
    const kept = aged.get(row);
    if (kept !== undefined && kept.ageJson === ageJson) return kept.bytes;
    if (kept === undefined && !budget.charge(row, row.byteLength)) return undefined;
    const split = tableRowSplit(row);
    const bytes = Buffer.concat([row.subarray(4, split), Buffer.from(ageJson, 'utf8'), row.subarray(split)]);
    aged.set(row, { ageJson, bytes });
    return bytes;
  };
}

/** Where a kept Table row's Age goes: its 4-byte little-endian prefix, past the prefix. */
export function tableRowSplit(row: Uint8Array): number {
  return 4 + ((row[0]! | (row[1]! << 8) | (row[2]! << 16) | (row[3]! << 24)) >>> 0);
}
