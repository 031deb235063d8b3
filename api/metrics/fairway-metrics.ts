// Everything `/metrics` serves, in one prom-client Registry, and the hooks that feed it.
//
// Wiring (the controller takes the observer at construction, the metrics read its state later):
//   const metrics = createFairwayMetrics(new ServedLabels(discoveryModel).addPaths(nonResourcePaths));
//   const controller = new FlowController({ ..., observer: metrics.flowControl.observer });
//   metrics.flowControl.attach(controller);
//   chain([authn, createPriorityAndFairnessFilter({ ..., observer: metrics.apfFilterObserver }),
//          createRequestMetricsFilter(metrics.requests, clock), authz, ...], handler)
//   GET /metrics → metricsHandler(metrics.registry)

import { Registry } from 'prom-client';
import type { PriorityAndFairnessFilterObserver } from '../filters/priority-and-fairness.ts';
import { FlowControlMetrics } from './flowcontrol-metrics.ts';
import { RequestMetrics } from './request-metrics.ts';
import { ServedLabels } from './served-labels.ts';
import { fairwayDiscoveryModel } from '../discovery.ts';

export interface FairwayMetrics {
  registry: Registry;
  flowControl: FlowControlMetrics;
  requests: RequestMetrics;
  apfFilterObserver: PriorityAndFairnessFilterObserver;
}

/** `served`: what request labels may say (default: the default server's resources, no extra paths). */
export function createFairwayMetrics(served: ServedLabels = new ServedLabels(fairwayDiscoveryModel())): FairwayMetrics {
  const registry = new Registry();
  const flowControl = new FlowControlMetrics();
  const requests = new RequestMetrics(served);
  for (const family of [...requests.families, ...flowControl.families]) family.registerIn(registry);
  return {
    registry,
    flowControl,
    requests,
    apfFilterObserver: {
      rejected: (context) => requests.recordDropped(context),
      unenforcedRejection: (_context, outcome) => flowControl.countUnenforcedRejection(outcome),
    },
  };
}
