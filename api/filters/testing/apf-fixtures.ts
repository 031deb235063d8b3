// Flow-control configurations and request digests shared by the tests of the APF filter, the
// metrics and the debug dumps.

import type { Clock } from '../../../engine/clock.ts';
import { FlowController, type FlowControlObserver, type FlowcontrolConfig } from '../../../engine/flowcontrol/controller.ts';
import type { InterestedWatches } from '../../../engine/flowcontrol/interested-watches.ts';
import type { RequestDigest } from '../../../engine/flowcontrol/request-digest.ts';
import type { RequestInfo } from '../../../engine/request/request-info.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../../engine/resources/bootstrap.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../../../engine/resources/defaults.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../../../engine/resources/types.ts';

/** Mandatory + suggested objects, as a fresh server stores them. */
export function defaultApfConfig(): FlowcontrolConfig {
  return {
    priorityLevels: [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map(defaultPriorityLevelConfiguration),
    flowSchemas: [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map(defaultFlowSchema),
  };
}

export const TINY_LEVEL_UID = 'pl-uid-tiny';
export const FLOOD_SCHEMA_UID = 'fs-uid-flood';

/**
 * The mandatory objects plus level `tiny` (1 share, lends nothing, one queue of at most 2) that
 * schema `flood` sends user `mallory` to. At ServerCL 10, `tiny` gets exactly 2 seats (NominalCL
 * ceil(10·1/6) = 2, and with nothing to lend borrowing keeps it at 2), so a flood of 8 gives
 * 2 executing, 2 waiting and 4 rejected.
 */
export function tinyApfConfig(): FlowcontrolConfig {
  const tiny: PriorityLevelConfiguration = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'tiny', uid: TINY_LEVEL_UID },
    spec: {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } } },
    },
  };
  const flood: FlowSchema = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'flood', uid: FLOOD_SCHEMA_UID },
    spec: {
      priorityLevelConfiguration: { name: 'tiny' },
      matchingPrecedence: 100,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'User', user: { name: 'mallory' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        },
      ],
    },
  };
  return {
    priorityLevels: [...mandatoryPriorityLevels(), tiny].map(defaultPriorityLevelConfiguration),
    flowSchemas: [...mandatoryFlowSchemas(), flood].map(defaultFlowSchema),
  };
}

export interface TestControllerOptions {
  clock: Clock;
  serverConcurrencyLimit?: number;
  config?: FlowcontrolConfig;
  watchTracker?: InterestedWatches;
  observer?: FlowControlObserver;
}

/** A configured controller; borrowing is not started (no periodic timer), so limits stay put. */
export function newTestController(options: TestControllerOptions): FlowController {
  const tracker = options.watchTracker;
  const controller = new FlowController({
    clock: options.clock,
    serverConcurrencyLimit: options.serverConcurrencyLimit ?? 10,
    defaultWaitLimitMs: 15_000,
    estimator: { objectCount: () => 'not-found', watchCount: (info) => tracker?.countInterested(info) ?? 0 },
    observer: options.observer,
  });
  controller.configure(options.config ?? tinyApfConfig());
  return controller;
}

export function podsInfo(verb: string, namespace = 'default', name = ''): RequestInfo {
  const path = `/api/v1/namespaces/${namespace}/pods${name === '' ? '' : `/${name}`}`;
  return { isResourceRequest: true, path, verb, apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace, resource: 'pods', subresource: '', name };
}

export function digestOf(user: string, groups: string[], requestInfo: RequestInfo = podsInfo('list')): RequestDigest {
  return { user: { name: user, groups }, requestInfo };
}

export const AUTHENTICATED = ['system:authenticated'];
export const MASTERS = ['system:masters', 'system:authenticated'];
