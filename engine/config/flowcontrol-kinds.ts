// The flowcontrol kinds as manifest kinds: decode (types and known fields, as the API server's
// strict decoding does), then default, then validate — the same path a create request takes, so a
// manifest that passes here is one kube-apiserver would accept.

import type { FieldError } from '../resources/field-errors.ts';
import { flowcontrolApiVersion } from '../resources/api-domain.ts';
import { FLOW_SCHEMA, FLOWCONTROL_KINDS, PRIORITY_LEVEL, type KindInfo } from '../resources/kinds.ts';
import { decodingShape } from '../resources/schema/decoding-shape.ts';
import type { ManifestKind } from './manifests.ts';
import { decodeShape } from '../resources/schema-decoder.ts';

export function flowcontrolManifestKinds(apiDomain?: string): ManifestKind[] {
  const apiVersion = flowcontrolApiVersion(apiDomain);
  return FLOWCONTROL_KINDS.map((kind: KindInfo<unknown>) => manifestKind(kind, apiVersion));
}

function manifestKind<T>(kind: KindInfo<T>, apiVersion: string): ManifestKind {
  const shape = decodingShape(kind.table.struct);
  return {
    apiVersion,
    kind: kind.kind,
    // A document that does not decode never reaches validation, as in the API server.
    check: (document): FieldError[] => {
      const { value, errors } = decodeShape(document, shape);
      return errors.length > 0 ? errors : kind.validateCreate(kind.applyDefaults(value as T));
    },
  };
}

/** The decoding shapes, derived from the kinds' tables. */
export const PRIORITY_LEVEL_SHAPE = decodingShape(PRIORITY_LEVEL.table.struct);
export const FLOW_SCHEMA_SHAPE = decodingShape(FLOW_SCHEMA.table.struct);
