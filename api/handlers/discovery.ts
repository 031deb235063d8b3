// Non-resource GET endpoints that describe the server: /version, /api, /apis (aggregated v2 or
// legacy, by Accept), /apis/<group>, /apis/<group>/<version>, /openapi/v3 and its documents.
// Bodies that never change are serialised once.
import type { RequestContext } from '../request/http-context.ts';
import {
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  chooseDiscoveryRepresentation,
  type DiscoveryModel,
} from '../discovery/discovery.ts';
import { openApiDocuments, openApiIndex } from '../openapi/openapi.ts';
import { ApiError, routeMethodNotAllowed, routeNotFound } from '../../engine/status/errors.ts';
import { negotiateOutput } from '../request/content-negotiation.ts';
import { sendText, wantsPretty } from '../request/respond.ts';
import { encode } from '../../engine/render/serializer.ts';

/** kube-apiserver's /version for 1.32 (the gcloud kubectl dispatcher runs the kubectl whose minor matches). */
export function versionInfo() {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-fairway',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsx',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

export interface DescriptionDeps {
  model: DiscoveryModel;
  apiDomain?: string | undefined;
  /** `host:port` the server answers on, for /api's serverAddressByClientCIDRs. */
  serverAddress: () => string;
}

/** The fixed paths the description handler answers (the discovery model's own paths aside). */
export function describedPaths(model: DiscoveryModel): string[] {
  return ['/version', '/openapi/v3', ...openApiDocuments(model).map((d) => `/openapi/v3/${d.path}`)];
}

/** A handler for the describing endpoints, or undefined when `path` is not one of them. */
export function createDescriptionHandler(deps: DescriptionDeps): (context: RequestContext) => Promise<boolean> {
  const documents = openApiDocuments(deps.model);
  const documentByPath = new Map(documents.map((d) => [`/openapi/v3/${d.path}`, d]));
  const index = `${JSON.stringify(openApiIndex(documents))}\n`;

  const send = (context: RequestContext, value: unknown, contentType?: string) => {
    const negotiated = negotiateOutput(context.req.headers.accept, { conversions: [] });
    if (!negotiated.ok) throw new ApiError(negotiated.status);
    const pretty = negotiated.pretty || wantsPretty(context.query, context.req.headers['user-agent']);
    sendText(context.res, 200, encode(value, { mediaType: negotiated.mediaType, pretty }), contentType ?? negotiated.contentType);
  };

  const discovery = (context: RequestContext, which: 'core' | 'apis') => {
    const choice = chooseDiscoveryRepresentation(context.req.headers.accept, deps.model);
    if (choice.format === 'not-acceptable') throw new ApiError(choice.status);
    const pretty = wantsPretty(context.query, context.req.headers['user-agent']);
    if (choice.format === 'aggregated') {
      const body = encode(aggregatedDiscovery(deps.model, which), { mediaType: choice.mediaType, pretty });
      sendText(context.res, 200, body, aggregatedDiscoveryContentType(deps.model, choice.mediaType));
      return;
    }
    const legacy = which === 'core' ? apiVersions(deps.model, deps.serverAddress()) : apiGroupList(deps.model);
    sendText(context.res, 200, encode(legacy, { mediaType: choice.mediaType, pretty }), choice.contentType);
  };

  return async (context) => {
    const path = context.requestInfo.path.replace(/\/+$/, '') || '/';
    const isDescription =
      path === '/version' || path === '/api' || path === '/apis' || path.startsWith('/apis/') || path.startsWith('/api/') || path.startsWith('/openapi/');
    if (!isDescription) return false;
    if (context.req.method !== 'GET' && context.req.method !== 'HEAD') throw new ApiError(routeMethodNotAllowed());
    if (path === '/version') {
      send(context, versionInfo());
      return true;
    }
    if (path === '/api' || path === '/apis') {
      discovery(context, path === '/api' ? 'core' : 'apis');
      return true;
    }
    if (path === '/openapi/v3') {
      sendText(context.res, 200, index, 'application/json');
      return true;
    }
    const document = documentByPath.get(path);
    if (document !== undefined) {
      // The hash in the URL names these exact bytes, so clients may cache them for good.
      if (context.query.has('hash')) context.res.setHeader('Cache-Control', 'public, immutable');
      context.res.setHeader('Etag', `"${document.hash}"`);
      sendText(context.res, 200, document.json, 'application/json');
      return true;
    }
    const parts = path.split('/').slice(1);
    if (parts[0] === 'api' && parts.length === 2) {
      const list = apiResourceList(deps.model, '', parts[1]!);
      if (list === undefined) throw new ApiError(routeNotFound());
      send(context, list);
      return true;
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const group = apiGroup(deps.model, parts[1]!);
      if (group === undefined) throw new ApiError(routeNotFound());
      send(context, group);
      return true;
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const list = apiResourceList(deps.model, parts[1]!, parts[2]!);
      if (list === undefined) throw new ApiError(routeNotFound());
      send(context, list);
      return true;
    }
    return false;
  };
}
