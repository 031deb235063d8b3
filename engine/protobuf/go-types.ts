// What the .proto files do not say but Kubernetes' generated Go code does: which fields are Go
// pointers. Every field is `optional` in these proto2 files, yet the Go marshallers write a
// non-pointer field always (an empty string, a 0, an empty nested message) and a pointer field
// only when it is set; on the way back a pointer keeps "set to zero" apart from "absent". Read
// from the Go types (`*T` fields with a protobuf tag) of k8s.io/api flowcontrol/v1,
// authorization/v1 and authentication/v1 (whose self reviews have none) and k8s.io/apimachinery
// meta/v1 at v0.32.4, the versions the .proto files come from
// (proto/README.md). `bytes` fields are Go slices, written when non-nil: they count as pointers.
// The kinds' structs and the meta/v1 structs they carry say which fields are pointers in their
// tables (engine/resources/schema/); the other messages are listed here.

import { FLOWCONTROL_KINDS } from '../resources/kinds.ts';
import { reachableStructs } from '../resources/schema/field-table.ts';
import { LIST_META } from '../resources/schema/meta-v1.ts';

const FLOWCONTROL = 'k8s.io.api.flowcontrol.v1.';
const AUTHORIZATION = 'k8s.io.api.authorization.v1.';
const AUTHENTICATION = 'k8s.io.api.authentication.v1.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const RUNTIME = 'k8s.io.apimachinery.pkg.runtime.';

/** A table struct's message name: its OpenAPI name with the package path the .proto way round (`io.k8s.` → `k8s.io.`). */
const messageName = (schemaName: string): string => schemaName.replace(/^io\.k8s\./, 'k8s.io.');

const FROM_TABLES = reachableStructs([...FLOWCONTROL_KINDS.map((k) => k.table.struct), LIST_META])
  .map((table): [string, string[]] => [messageName(table.name), table.fields.filter((f) => f.pointer).map((f) => f.name)])
  .filter(([, pointers]) => pointers.length > 0);

/** Full message name → names of its pointer (omit-when-unset) fields. */
export const GO_POINTER_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    ...Object.fromEntries(FROM_TABLES),
    [`${AUTHORIZATION}ResourceAttributes`]: ['fieldSelector', 'labelSelector'],
    [`${AUTHORIZATION}SubjectAccessReviewSpec`]: ['resourceAttributes', 'nonResourceAttributes'],
    [`${AUTHORIZATION}SelfSubjectAccessReviewSpec`]: ['resourceAttributes', 'nonResourceAttributes'],
    [`${META}DeleteOptions`]: [
      'gracePeriodSeconds',
      'preconditions',
      'orphanDependents',
      'propagationPolicy',
      'ignoreStoreReadErrorWithClusterBreakingPotential',
    ],
    [`${META}Preconditions`]: ['uid', 'resourceVersion'],
    [`${META}Status`]: ['details'],
    [`${META}FieldsV1`]: ['Raw'],
    [`${RUNTIME}RawExtension`]: ['raw'],
    [`${RUNTIME}Unknown`]: ['raw'],
  }).map(([name, fields]) => [name, new Set(fields)]),
);

/**
 * Messages whose JSON form is not their fields: metav1.Time is an RFC 3339 string (seconds and
 * nanos on the wire, nothing at all for the zero time), metav1.FieldsV1 is its raw JSON.
 */
export const TIME_MESSAGE = `${META}Time`;
export const FIELDS_V1_MESSAGE = `${META}FieldsV1`;

export const MESSAGE_PREFIX = { flowcontrol: FLOWCONTROL, authorization: AUTHORIZATION, authentication: AUTHENTICATION, meta: META, runtime: RUNTIME } as const;
