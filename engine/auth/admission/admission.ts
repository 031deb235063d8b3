// Validating admission: after a write request is decoded, defaulted and (for updates) merged with
// the stored object, and before it is stored, each enabled plugin looks at it and may refuse it.
// Refusal is a value (house rule: no exceptions for decisions in engine/), which the API layer turns
// into the Status kube-apiserver would send: 429 for the rate limiter, the policy's reason (422 by
// default) for a ValidatingAdmissionPolicy. Plugins run in order; the first refusal wins.
import type { UserInfo } from '../user-info.ts';
import { append } from '../../append.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  user: UserInfo;
  /** The resource as addressed: `{group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas'}`. */
  resource: { group: string; version: string; resource: string };
  subresource: string;
  kind: { group: string; version: string; kind: string };
  namespace: string;
  /** `''` for a create that only has generateName. */
  name: string;
  /** The object after the change (absent for DELETE). */
  object?: Record<string, unknown>;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: Record<string, unknown>;
  dryRun: boolean;
}

export type PolicyReason = 'Invalid' | 'Forbidden' | 'Unauthorized' | 'RequestEntityTooLarge';

export type AdmissionRejection =
  | { kind: 'rate-limited' /** `Too many requests: ...` detail, before the outer prefix. */; message: string }
  | {
      kind: 'policy-denied';
      policy: string;
      binding: string;
      /** The violation's own message; the API layer words the `ValidatingAdmissionPolicy '…' with binding '…' denied request: ` part. */
      message: string;
      reason: PolicyReason;
    };

export type AdmissionResult = { allowed: true; warnings: string[] } | { allowed: false; rejection: AdmissionRejection; warnings: string[] };

export interface ValidatingAdmissionPlugin {
  readonly name: string;
  validate(attributes: AdmissionAttributes): AdmissionResult;
}

export interface AdmissionChain {
  readonly plugins: readonly ValidatingAdmissionPlugin[];
  validate(attributes: AdmissionAttributes): AdmissionResult;
}

export const admitted = (warnings: string[] = []): AdmissionResult => ({ allowed: true, warnings });

export function createAdmissionChain(plugins: readonly ValidatingAdmissionPlugin[]): AdmissionChain {
  return {
    plugins,
    validate(attributes) {
      const warnings: string[] = [];
      for (const plugin of plugins) {
        const result = plugin.validate(attributes);
        append(warnings, result.warnings);
        if (!result.allowed) return { allowed: false, rejection: result.rejection, warnings };
      }
      return { allowed: true, warnings };
    },
  };
}
