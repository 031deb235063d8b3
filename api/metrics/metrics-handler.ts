// GET /metrics: the Prometheus text exposition format (version 0.0.4) of one registry.

import type { Registry } from 'prom-client';
import type { RequestContext } from '../request/http-context.ts';

export function metricsHandler(registry: Registry): (context: RequestContext) => Promise<void> {
  return async (context) => {
    const body = await registry.metrics();
    const res = context.res;
    if (res.headersSent || res.writableEnded) return;
    res.statusCode = 200;
    res.setHeader('Content-Type', registry.contentType);
    res.end(body);
  };
}
