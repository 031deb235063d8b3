// The vocabulary: Kubernetes' JSON shapes for the flowcontrol.apiserver.<domain>/v1 kinds and the
// meta/v1 types around them. Optional fields are optional exactly where Kubernetes marks them
// `omitempty`/pointer, because nil and zero mean different things (nominalConcurrencyShares nil
// defaults to 30, an explicit 0 is kept). Field names are the JSON names.

// ---------------------------------------------------------------------------------------------
// meta/v1

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  /** Unknown metadata fields round-trip untouched. */
  [unknown: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

export interface StatusCause {
  /** A CauseType: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, ... */
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status extends TypeMeta {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status?: 'Success' | 'Failure';
  message?: string;
  /** A StatusReason: NotFound, AlreadyExists, Conflict, Invalid, Expired, TooManyRequests, ... */
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A condition as both flowcontrol kinds carry it (`listType=map`, key `type`). */
export interface Condition {
  type?: string;
  status?: ConditionStatus;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

// ---------------------------------------------------------------------------------------------
// flowcontrol/v1 constants

export const NAME_ALL = '*';
export const API_GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const VERB_ALL = '*';
export const NON_RESOURCE_ALL = '*';
export const NAMESPACE_EVERY = '*';

export const PRIORITY_LEVEL_NAME_EXEMPT = 'exempt';
export const PRIORITY_LEVEL_NAME_CATCH_ALL = 'catch-all';
export const FLOW_SCHEMA_NAME_EXEMPT = 'exempt';
export const FLOW_SCHEMA_NAME_CATCH_ALL = 'catch-all';

export const FLOW_SCHEMA_CONDITION_DANGLING = 'Dangling';

export const FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10000;

export const AUTO_UPDATE_ANNOTATION_KEY = 'apf.kubernetes.io/autoupdate-spec';
/** v1beta3 only; forbidden on stored objects. */
export const PRESERVE_ZERO_CONCURRENCY_SHARES_ANNOTATION_KEY = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';

export const PRIORITY_LEVEL_KIND = 'PriorityLevelConfiguration';
export const PRIORITY_LEVEL_LIST_KIND = 'PriorityLevelConfigurationList';
export const FLOW_SCHEMA_KIND = 'FlowSchema';
export const FLOW_SCHEMA_LIST_KIND = 'FlowSchemaList';
/** The two kinds of the flowcontrol API group. */
export type FlowcontrolKind = typeof PRIORITY_LEVEL_KIND | typeof FLOW_SCHEMA_KIND;

export const PRIORITY_LEVEL_RESOURCE = 'prioritylevelconfigurations';
export const FLOW_SCHEMA_RESOURCE = 'flowschemas';

// ---------------------------------------------------------------------------------------------
// PriorityLevelConfiguration

export type PriorityLevelEnablement = 'Exempt' | 'Limited';
export type LimitResponseType = 'Queue' | 'Reject';

export interface PriorityLevelConfiguration extends TypeMeta {
  metadata?: ObjectMeta;
  spec?: PriorityLevelConfigurationSpec;
  status?: PriorityLevelConfigurationStatus;
}

export interface PriorityLevelConfigurationSpec {
  /** `Exempt` or `Limited`; a string here because clients can send anything and validation says so. */
  type?: PriorityLevelEnablement | string;
  limited?: LimitedPriorityLevelConfiguration | null;
  exempt?: ExemptPriorityLevelConfiguration | null;
}

export interface LimitedPriorityLevelConfiguration {
  nominalConcurrencyShares?: number | null;
  limitResponse?: LimitResponse;
  lendablePercent?: number | null;
  borrowingLimitPercent?: number | null;
}

export interface ExemptPriorityLevelConfiguration {
  nominalConcurrencyShares?: number | null;
  lendablePercent?: number | null;
}

export interface LimitResponse {
  type?: LimitResponseType | string;
  queuing?: QueuingConfiguration | null;
}

export interface QueuingConfiguration {
  queues?: number;
  handSize?: number;
  queueLengthLimit?: number;
}

export interface PriorityLevelConfigurationStatus {
  conditions?: Condition[];
}

export interface PriorityLevelConfigurationList extends TypeMeta {
  metadata?: ListMeta;
  items: PriorityLevelConfiguration[];
}

// ---------------------------------------------------------------------------------------------
// FlowSchema

export type FlowDistinguisherMethodType = 'ByUser' | 'ByNamespace';
export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

export interface FlowSchema extends TypeMeta {
  metadata?: ObjectMeta;
  spec?: FlowSchemaSpec;
  status?: FlowSchemaStatus;
}

export interface FlowSchemaSpec {
  priorityLevelConfiguration?: PriorityLevelConfigurationReference;
  matchingPrecedence?: number;
  distinguisherMethod?: FlowDistinguisherMethod | null;
  rules?: PolicyRulesWithSubjects[];
}

export interface PriorityLevelConfigurationReference {
  name?: string;
}

export interface FlowDistinguisherMethod {
  type?: FlowDistinguisherMethodType | string;
}

export interface PolicyRulesWithSubjects {
  subjects?: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface Subject {
  kind?: SubjectKind | string;
  user?: UserSubject | null;
  group?: GroupSubject | null;
  serviceAccount?: ServiceAccountSubject | null;
}

export interface UserSubject {
  name?: string;
}

export interface GroupSubject {
  name?: string;
}

export interface ServiceAccountSubject {
  namespace?: string;
  name?: string;
}

export interface ResourcePolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs?: string[];
  nonResourceURLs?: string[];
}

export interface FlowSchemaStatus {
  conditions?: Condition[];
}

export interface FlowSchemaList extends TypeMeta {
  metadata?: ListMeta;
  items: FlowSchema[];
}

// ---------------------------------------------------------------------------------------------

/** Either flowcontrol kind; the store and the API layer treat both alike. */
export type FlowcontrolObject = PriorityLevelConfiguration | FlowSchema;

/** Any stored object: Kubernetes' generic shape, unknown fields kept. */
export interface KubeObject extends TypeMeta {
  metadata?: ObjectMeta;
  [field: string]: unknown;
}
