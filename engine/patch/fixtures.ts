// Objects and request bodies for the patch tests, shaped like the stub-server sessions recorded in
// the kubectl contract (Appendix A): PLC `alpha` as seeded, `delta` from plc-new.yaml (label a=b,
// Limited, shares 5) and its updates, and a FlowSchema with a Dangling condition.

import type { FlowSchema, KubeObject, PriorityLevelConfiguration } from '../resources/types.ts';

export const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
export const T0 = '2026-11-21T04:13:34Z';
export const T1 = '2026-11-21T04:14:43Z';
export const T2 = '2026-11-21T04:15:10Z';
export const T3 = '2026-11-21T04:16:20Z';

/** A stored, defaulted PLC as kube-apiserver returns it. */
export function alpha(): PriorityLevelConfiguration {
  return {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'alpha', uid: '2f7a1c8e-0000-4000-8000-000000000001', resourceVersion: '101', generation: 1, creationTimestamp: T0 },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 10,
        lendablePercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
      },
    },
    status: {},
  };
}

/** The body of plc-new.yaml (what the user wrote), with `shares` as the only knob. */
export function deltaConfig(shares: number): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'delta', labels: { a: 'b' } },
    spec: {
      type: 'Limited',
      limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } },
    },
  };
}

/** kubectl's JSON for the last-applied annotation of a config (sorted keys, trailing newline). */
export function lastAppliedOf(config: KubeObject): string {
  const sort = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sort)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sort((value as Record<string, unknown>)[key])]),
          )
        : value;
  return `${JSON.stringify(sort(config))}\n`;
}

/** What `kubectl apply -f plc-new.yaml` POSTs: the config plus its last-applied annotation, after defaulting. */
export function deltaCreatedByClientSideApply(shares: number): KubeObject {
  const config = deltaConfig(shares);
  const body = structuredClone(config) as PriorityLevelConfiguration;
  body.metadata = { ...body.metadata, annotations: { [LAST_APPLIED]: lastAppliedOf(config) } };
  body.spec!.limited!.lendablePercent = 0;
  return body as KubeObject;
}

export function danglingFlowSchema(): FlowSchema {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: { name: 'probes', uid: 'fs-uid-1', resourceVersion: '300', generation: 1, finalizers: ['a.example/one', 'b.example/two'] },
    spec: {
      priorityLevelConfiguration: { name: 'gone' },
      matchingPrecedence: 1000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz'] }],
        },
      ],
    },
    status: {
      conditions: [
        {
          type: 'Dangling',
          status: 'True',
          lastTransitionTime: T0,
          reason: 'NotFound',
          message: 'This FlowSchema references the PriorityLevelConfiguration object named "gone" but there is no such object',
        },
        { type: 'Other', status: 'False', lastTransitionTime: T0, reason: 'Fine', message: '' },
      ],
    },
  };
}
