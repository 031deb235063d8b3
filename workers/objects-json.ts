// Per-object encodings made many at a time, so that each stored object version keeps its bytes and
// every later LIST, GET and watch only copies them: `encode-objects`, each object's JSON (kept as
// StoredForm.jsonBytes), and `encode-yaml-items`, each object's YAML as an item of a list (kept by
// api/handlers/encoded-items.ts). The result is one buffer, moved back from a worker whole: a count,
// each object's end offset, then the texts back to back; `splitEncodedObjects` cuts it into one view
// per object (no copy).

import { goJsonText } from '../engine/store/go-json.ts';
import { yamlListItem, yamlText } from '../engine/store/yaml-text.ts';
import type { StoredForm } from '../engine/store/store-types.ts';
import type { Work } from './executor.ts';
import { objectsOf } from './stored-objects.ts';

export const ENCODE_OBJECTS_STAGE = 'encode-objects';
export const ENCODE_YAML_ITEMS_STAGE = 'encode-yaml-items';

/** Work that encodes `forms` (their objects, or their codec bytes once packed for a worker). */
export function encodeObjectsWork(forms: readonly StoredForm[]): Work {
  return { stage: ENCODE_OBJECTS_STAGE, payload: { objects: forms } };
}

/** Work that writes `forms` as YAML list items (engine/store/yaml-text.ts). */
export function encodeYamlItemsWork(forms: readonly StoredForm[]): Work {
  return { stage: ENCODE_YAML_ITEMS_STAGE, payload: { objects: forms } };
}

export function encodeObjectsJson(payload: unknown): Buffer {
  return packEncoded(objectsOf(payload).map((object) => goJsonText(object)));
}

export function encodeYamlItems(payload: unknown): Buffer {
  return packEncoded(objectsOf(payload).map((object) => yamlListItem(yamlText(object))));
}

/** Per-object encodings (texts as UTF-8, or bytes) as one buffer that `splitEncodedObjects` cuts again. */
export function packEncoded(texts: readonly (string | Uint8Array)[]): Buffer {
  const headerBytes = 4 * (texts.length + 1);
  let byteLength = headerBytes;
  const lengths = new Uint32Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    lengths[i] = typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : text.byteLength;
    byteLength += lengths[i]!;
  }
  // Owns its whole ArrayBuffer, so a worker can move it back.
  const out = Buffer.allocUnsafeSlow(byteLength);
  out.writeUInt32LE(texts.length, 0);
  let end = headerBytes;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    if (typeof text === 'string') out.write(text, end, 'utf8');
    else out.set(text, end);
    end += lengths[i]!;
    out.writeUInt32LE(end, 4 * (i + 1));
  }
  return out;
}

/** One view per object into a `packEncoded` buffer (the `encode-*` stages' results). */
export function splitEncodedObjects(bytes: Buffer): Buffer[] {
  const count = bytes.readUInt32LE(0);
  const parts: Buffer[] = new Array(count);
  let start = 4 * (count + 1);
  for (let i = 0; i < count; i++) {
    const end = bytes.readUInt32LE(4 * (i + 1));
    parts[i] = bytes.subarray(start, end);
    start = end;
  }
  return parts;
}
