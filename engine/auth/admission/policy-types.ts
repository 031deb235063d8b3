// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1),
// the parts Fairway evaluates, after decoding and defaulting (failurePolicy Fail, matchPolicy
// Equivalent, scope `*`).

export interface RuleWithOperations {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
  resourceNames: string[];
  scope: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values: string[];
}

export interface LabelSelector {
  matchLabels: Record<string, string>;
  matchExpressions: LabelSelectorRequirement[];
}

export interface MatchResources {
  resourceRules: RuleWithOperations[];
  excludeResourceRules: RuleWithOperations[];
  objectSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
}

export interface Validation {
  expression: string;
  message: string;
  messageExpression: string;
  /** `Invalid` when unset. */
  reason: string;
}

export interface NamedExpression {
  name: string;
  expression: string;
}

export interface ValidatingAdmissionPolicy {
  name: string;
  /** The manifest file, for messages. */
  file: string;
  failurePolicy: 'Fail' | 'Ignore';
  matchConstraints: MatchResources;
  validations: Validation[];
  matchConditions: NamedExpression[];
  variables: NamedExpression[];
}

export interface ValidatingAdmissionPolicyBinding {
  name: string;
  file: string;
  policyName: string;
  /** `Deny`, `Warn`, `Audit`. */
  validationActions: string[];
  matchResources?: MatchResources;
}

export const STATIC_NAME_SUFFIX = '.static.k8s.io';
