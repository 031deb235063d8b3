// The AuthorizationConfiguration types after decoding and defaulting: what validation checks and the
// authorizer chain is built from.

export interface WebhookConnectionInfo {
  type: string;
  /** Absent is not the same as `''`: InClusterConfig forbids the field being set at all. */
  kubeConfigFile?: string;
}

export interface WebhookConfiguration {
  authorizedTTLNanoseconds: bigint;
  cacheAuthorizedRequests: boolean;
  unauthorizedTTLNanoseconds: bigint;
  cacheUnauthorizedRequests: boolean;
  timeoutNanoseconds: bigint;
  subjectAccessReviewVersion: string;
  matchConditionSubjectAccessReviewVersion: string;
  failurePolicy: string;
  connectionInfo: WebhookConnectionInfo;
  matchConditions: { expression: string }[];
}

export interface AuthorizerConfiguration {
  type: string;
  name: string;
  webhook?: WebhookConfiguration;
}

export interface AuthorizationConfiguration {
  authorizers: AuthorizerConfiguration[];
}
