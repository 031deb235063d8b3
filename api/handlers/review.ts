// What the self reviews have in common (SelfSubjectAccessReview, SelfSubjectRulesReview,
// SelfSubjectReview): create-only kinds that are answered, never stored. Only POST is served
// (405 otherwise); the body is JSON, YAML or, as kubectl sends it, protobuf, and must name the
// review's kind and version; the answer is 201 with the review and its status, in the negotiated
// representation.
import type { Handler, RequestContext } from '../request/http-context.ts';
import { ApiError, badRequest, malformedBody, routeMethodNotAllowed } from '../../engine/status/errors.ts';
import { negotiateOutput, OBJECT_MEDIA_TYPES } from '../request/content-negotiation.ts';
import type { Representation, SerializerMediaType } from '../../engine/render/serializer.ts';
import { parseBody, readBody } from './body.ts';
import { inlineYamlDecoder, type YamlDecoder } from '../../workers/decode-yaml.ts';
import { sendObject, wantsPretty } from '../request/respond.ts';

export interface ReviewKind {
  kind: string;
  /** `group/version`. */
  apiVersion: string;
}

/**
 * Checks the method and negotiates the answer's representation (before reading, as
 * kube-apiserver does): 405 for anything but POST, 406 when nothing acceptable is served.
 */
export function reviewOutput(context: RequestContext, mediaTypes: readonly SerializerMediaType[] = OBJECT_MEDIA_TYPES): Representation {
  if (context.req.method !== 'POST') throw new ApiError(routeMethodNotAllowed());
  const negotiated = negotiateOutput(context.req.headers.accept, { conversions: [], mediaTypes });
  if (!negotiated.ok) throw new ApiError(negotiated.status);
  return { mediaType: negotiated.mediaType, pretty: negotiated.pretty || wantsPretty(context.query, context.req.headers['user-agent']) };
}

/** Reads the review's body in any of its forms as its JSON value; 400 for another kind or version. */
export async function readReviewBody(context: RequestContext, review: ReviewKind, decodeYaml: YamlDecoder): Promise<Record<string, unknown>> {
  const bytes = await readBody(context.req);
  const version = review.apiVersion.slice(review.apiVersion.indexOf('/') + 1);
  const value = (await parseBody(bytes, context.req.headers['content-type'], { kind: review.kind }, decodeYaml)).value as
    | Record<string, unknown>
    | null
    | undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(malformedBody(review.kind, version, 'expected an object'));
  if ((value.kind !== undefined && value.kind !== review.kind) || (value.apiVersion !== undefined && value.apiVersion !== review.apiVersion)) {
    throw new ApiError(badRequest(`the API version in the data (${String(value.apiVersion)}) does not match the expected API version (${review.apiVersion})`));
  }
  return value;
}

/** 201 with the answered review. */
export function sendReview(context: RequestContext, review: Record<string, unknown>, output: Representation): void {
  sendObject(context.res, 201, review, output);
}

/** A review's handler; YAML bodies are read by `decodeYaml` (the server's: on its execution plane). */
export type ReviewHandler = (context: RequestContext, decodeYaml: YamlDecoder) => Promise<void>;

export interface ReviewRoute {
  path: string;
  handler: ReviewHandler;
}

/** Routes each review's path (trailing slashes ignored) to its handler and everything else to `resources`. */
export function withReviewRoutes(resources: Handler, routes: readonly ReviewRoute[], decodeYaml: YamlDecoder = inlineYamlDecoder): Handler {
  const byPath = new Map<string, Handler>(routes.map((route) => [route.path, (context) => route.handler(context, decodeYaml)]));
  const reviewResources = new Set(routes.map((route) => route.path.slice(route.path.lastIndexOf('/') + 1)));
  // The resource name first: most requests are for other resources, and the path check builds a string.
  return (context) =>
    (reviewResources.has(context.requestInfo.resource) ? (byPath.get(context.requestInfo.path.replace(/\/+$/, '')) ?? resources) : resources)(context);
}
