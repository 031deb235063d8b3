// Where a request that has passed the filter chain goes, in kube-apiserver's order of precedence:
// health checks, resource requests of the flowcontrol group, describing documents (version,
// discovery, OpenAPI), extra routes (metrics, debug), then 404.
import { ApiError, routeNotFound } from '../../engine/status/errors.ts';
import { serveHealth, type HealthChecks } from '../handlers/health.ts';
import type { Logger } from '../log.ts';
import type { Filter, Handler, Pipeline, RequestContext } from '../request/http-context.ts';
import { INITIALIZED } from '../request/in-flight-request.ts';
import { sendError } from '../request/respond.ts';

export type RouteHandler = Handler;

export interface RoutingOptions {
  logger: Logger;
  /**
   * The filter chain in order: authentication, impersonation, priority and fairness (unless turned
   * off), request metrics, authorization, admission.
   */
  filters: readonly Filter[];
  health: HealthChecks;
  resources: RouteHandler;
  /** Answers /version, discovery and OpenAPI; resolves false when the path is none of those. */
  describe: (context: RequestContext) => Promise<boolean>;
  /** Exact paths, or prefixes ending in `/`, served after everything else (`/metrics`, `/debug/...`). */
  extraRoutes?: ReadonlyMap<string, RouteHandler>;
}

/** The filters, then the route; shared by every request. */
export function routingPipeline(options: RoutingOptions): Pipeline {
  const { logger } = options;
  const extraRoutes = [...(options.extraRoutes ?? new Map<string, RouteHandler>()).entries()];
  const routeOther = async (context: RequestContext): Promise<void> => {
    try {
      if (await options.describe(context)) return;
      const path = context.requestInfo.path;
      for (const [key, handler] of extraRoutes) {
        if (key.endsWith('/') ? path.startsWith(key) || path === key.slice(0, -1) : path === key) return await handler(context);
      }
      throw new ApiError(routeNotFound());
    } catch (error) {
      sendError(context, error, logger);
    }
  };
  // Resource requests go straight to their handler, which answers every failure itself.
  return {
    filters: options.filters,
    handler: (context) => {
      // Health paths are never resource paths: resource requests skip the health check.
      if (context.requestInfo.isResourceRequest) return options.resources(context);
      if (serveHealth(context, options.health)) return INITIALIZED;
      return routeOther(context);
    },
  };
}
