// The two flowcontrol kinds as manifest kinds: decode (types and known fields, as the API server's
// strict decoding does), then default, then validate — the same path a create request takes, so a
// manifest that passes here is one kube-apiserver would accept.

import type { FieldError } from '../resources/field-errors.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../resources/types.ts';
import { FLOW_SCHEMA_KIND, PRIORITY_LEVEL_KIND } from '../resources/types.ts';
import { flowcontrolApiVersion } from '../resources/api-domain.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../resources/defaults.ts';
import { validateFlowSchema } from '../resources/flow-schema-validation.ts';
import { validatePriorityLevelConfiguration } from '../resources/priority-level-validation.ts';
import type { ManifestKind } from './manifests.ts';
import type { Shape } from './object-shape.ts';
import { anything, arrayOf, boolean, decodeShape, int32, int64, mapOf, string, struct, time } from './object-shape.ts';

export function flowcontrolManifestKinds(apiDomain?: string): ManifestKind[] {
  const apiVersion = flowcontrolApiVersion(apiDomain);
  return [
    {
      apiVersion,
      kind: PRIORITY_LEVEL_KIND,
      check: (document) =>
        decodeThen(document, PRIORITY_LEVEL_SHAPE, (decoded) =>
          validatePriorityLevelConfiguration(defaultPriorityLevelConfiguration(decoded as PriorityLevelConfiguration)),
        ),
    },
    {
      apiVersion,
      kind: FLOW_SCHEMA_KIND,
      check: (document) => decodeThen(document, FLOW_SCHEMA_SHAPE, (decoded) => validateFlowSchema(defaultFlowSchema(decoded as FlowSchema))),
    },
  ];
}

/** A document that does not decode never reaches validation, as in the API server. */
function decodeThen(document: Record<string, unknown>, shape: Shape, validate: (decoded: unknown) => FieldError[]): FieldError[] {
  const { value, errors } = decodeShape(document, shape);
  return errors.length > 0 ? errors : validate(value);
}

// ---------------------------------------------------------------------------------------------
// Shapes (the JSON form of engine/resources/types.ts)

const strings = arrayOf(string);

const OWNER_REFERENCE = struct({ apiVersion: string, kind: string, name: string, uid: string, controller: boolean, blockOwnerDeletion: boolean });
const MANAGED_FIELDS_ENTRY = struct({
  manager: string,
  operation: string,
  apiVersion: string,
  time: string,
  fieldsType: string,
  // FieldsV1 is raw JSON to the decoder; the field manager reads it.
  fieldsV1: anything,
  subresource: string,
});

// Go's ObjectMeta, in its field order: a field it does not declare is an unknown field like any
// other (kept nowhere, reported by fieldValidation).
const OBJECT_META = struct({
    name: string,
    generateName: string,
    namespace: string,
    selfLink: string,
    uid: string,
    resourceVersion: string,
    generation: int64,
    creationTimestamp: time,
    deletionTimestamp: time,
    deletionGracePeriodSeconds: int64,
    labels: mapOf(string),
    annotations: mapOf(string),
    ownerReferences: arrayOf(OWNER_REFERENCE),
    finalizers: strings,
    managedFields: arrayOf(MANAGED_FIELDS_ENTRY),
});

const CONDITION = struct({ type: string, status: string, lastTransitionTime: time, reason: string, message: string });
const STATUS = struct({ conditions: arrayOf(CONDITION) });

export const PRIORITY_LEVEL_SHAPE = struct({
  apiVersion: string,
  kind: string,
  metadata: OBJECT_META,
  spec: struct({
    type: string,
    limited: struct({
      nominalConcurrencyShares: int32,
      lendablePercent: int32,
      borrowingLimitPercent: int32,
      limitResponse: struct({
        type: string,
        queuing: struct({ queues: int32, handSize: int32, queueLengthLimit: int32 }),
      }),
    }),
    exempt: struct({ nominalConcurrencyShares: int32, lendablePercent: int32 }),
  }),
  status: STATUS,
});

const SUBJECT = struct({
  kind: string,
  user: struct({ name: string }),
  group: struct({ name: string }),
  serviceAccount: struct({ namespace: string, name: string }),
});

export const FLOW_SCHEMA_SHAPE = struct({
  apiVersion: string,
  kind: string,
  metadata: OBJECT_META,
  spec: struct({
    priorityLevelConfiguration: struct({ name: string }),
    matchingPrecedence: int32,
    distinguisherMethod: struct({ type: string }),
    rules: arrayOf(
      struct({
        subjects: arrayOf(SUBJECT),
        resourceRules: arrayOf(struct({ verbs: strings, apiGroups: strings, resources: strings, clusterScope: boolean, namespaces: strings })),
        nonResourceRules: arrayOf(struct({ verbs: strings, nonResourceURLs: strings })),
      }),
    ),
  }),
  status: STATUS,
});
