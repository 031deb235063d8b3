// Rendering as work for the execution plane: which `render-*` stage a body is (by its cost per
// byte), the stage's run over a payload of stored objects, and the stages that make each stored
// object's kept protobuf message and Table row for LISTs to reuse (api/handlers/encoded-items.ts).
// What a body is belongs to the object semantics below (engine/render/render-body.ts).
import type { FlowcontrolObject } from '../engine/resources/types.ts';
import type { StoredForm } from '../engine/store/store-types.ts';
import { objectMessage } from '../engine/protobuf/objects.ts';
import { PROTOBUF_MEDIA_TYPE } from '../engine/render/serializer.ts';
import { renderBody, type RenderSpec } from '../engine/render/render-body.ts';
import { tableRowParts, type IncludeObject } from '../engine/render/table.ts';
import type { FlowcontrolKind } from '../engine/resources/types.ts';
import type { Work } from './executor.ts';
import { packEncoded } from './objects-json.ts';
import { objectsOf } from './stored-objects.ts';

/** Stage names by their cost: YAML and Tables cost more per byte than JSON, so they go to a worker sooner. */
export type RenderStage = 'render-json' | 'render-table' | 'render-yaml' | 'render-protobuf';

export function renderStageFor(spec: RenderSpec): RenderStage {
  if (spec.mediaType === 'application/yaml') return 'render-yaml';
  if (spec.mediaType === PROTOBUF_MEDIA_TYPE) return 'render-protobuf';
  return spec.conversion === 'Table' ? 'render-table' : 'render-json';
}

/** Work rendering `forms` as `spec` says; the routing executor sends it to a worker when it is big. */
export function renderWork(forms: readonly StoredForm[], spec: RenderSpec): Work {
  return { stage: renderStageFor(spec), payload: { objects: forms, spec } };
}

/** A `render-*` stage's run: the payload's objects rendered as its spec says. */
export function runRender(payload: unknown): Buffer {
  const objects = objectsOf(payload);
  const spec = (payload as { spec?: unknown } | null)?.spec;
  if (typeof spec !== 'object' || spec === null) throw new TypeError('payload.spec must be a render spec');
  return renderBody(objects, spec as RenderSpec);
}

/** The stage that makes each stored object's protobuf message, for protobuf LISTs to keep (encoded-items.ts). */
export const ENCODE_PROTOBUF_ITEMS_STAGE = 'encode-protobuf-items';

export function encodeProtobufItems(payload: unknown): Buffer {
  return packEncoded(objectsOf(payload).map(objectMessage));
}

/** The stage that makes each stored object's Table row, cut where its Age goes (table.ts `tableRowParts`), for Table LISTs to keep. */
export const ENCODE_TABLE_ROWS_STAGE = 'encode-table-rows';

export interface TableRowsSpec {
  readonly kind: FlowcontrolKind;
  readonly includeObject: IncludeObject;
  readonly apiDomain?: string | undefined;
}

/** Per object: the byte length of the part before its Age (4 bytes, little-endian), then both parts. */
export function encodeTableRows(payload: unknown): Buffer {
  const spec = (payload as { table: TableRowsSpec }).table;
  return packEncoded(
    objectsOf(payload).map((object) => {
      const [before, after] = tableRowParts(spec.kind, object as FlowcontrolObject, spec.includeObject, spec.apiDomain);
      const beforeBytes = Buffer.byteLength(before, 'utf8');
      const out = Buffer.allocUnsafe(4 + beforeBytes + Buffer.byteLength(after, 'utf8'));
      out.writeUInt32LE(beforeBytes, 0);
      out.write(before, 4, 'utf8');
      out.write(after, 4 + beforeBytes, 'utf8');
      return out;
    }),
  );
}
