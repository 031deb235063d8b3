// What the self reviews have in common (SelfSubjectAccessReview, SelfSubjectRulesReview,
// SelfSubjectReview): create-only kinds that are answered, never stored. Only POST is served
// (405 otherwise); the body is JSON, YAML or, as kubectl sends it, the protobuf envelope, and must
// name the review's kind and version; the answer is 201 with the review and its status.
import type { RequestContext } from '../http-context.ts';
import { ApiError, badRequest, malformedBody, routeMethodNotAllowed, unsupportedMediaType } from '../errors.ts';
import { negotiateInput } from '../content-negotiation.ts';
import { decodeEnvelope, PROTOBUF_MEDIA_TYPE } from '../protobuf-envelope.ts';
import { parseText, readBody } from './body.ts';
import { JSON_REPRESENTATION, sendObject } from './respond.ts';

const INPUT_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] as const;

export interface ReviewKind {
  kind: string;
  /** `group/version`. */
  apiVersion: string;
}

/** The review's message bytes (protobuf) or its decoded object (JSON, YAML). */
export type ReviewBody = { format: 'protobuf'; raw: Uint8Array } | { format: 'object'; value: Record<string, unknown> };

/** Reads a review POST: 405 for another method, 415 for another media type, 400 for another kind. */
export async function readReviewBody(context: RequestContext, review: ReviewKind): Promise<ReviewBody> {
  if (context.req.method !== 'POST') throw new ApiError(routeMethodNotAllowed());
  const negotiated = negotiateInput(context.req.headers['content-type'], INPUT_MEDIA_TYPES);
  if (!negotiated.ok) throw new ApiError(unsupportedMediaType(INPUT_MEDIA_TYPES));
  const bytes = await readBody(context.req);
  const version = review.apiVersion.slice(review.apiVersion.indexOf('/') + 1);
  if (negotiated.mediaType === PROTOBUF_MEDIA_TYPE) {
    const unwrapped = decodeEnvelope(bytes);
    if (!unwrapped.ok) throw new ApiError(badRequest(unwrapped.error));
    const { envelope } = unwrapped;
    if (envelope.kind !== review.kind || envelope.apiVersion !== review.apiVersion) {
      throw new ApiError(badRequest(`no kind ${JSON.stringify(envelope.kind)} is registered for version ${JSON.stringify(envelope.apiVersion)}`));
    }
    return { format: 'protobuf', raw: envelope.raw };
  }
  const value = parseText(bytes.toString('utf8'), negotiated.mediaType) as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(malformedBody(review.kind, version, 'expected an object'));
  if ((value.kind !== undefined && value.kind !== review.kind) || (value.apiVersion !== undefined && value.apiVersion !== review.apiVersion)) {
    throw new ApiError(badRequest(`the API version in the data (${String(value.apiVersion)}) does not match the expected API version (${review.apiVersion})`));
  }
  return { format: 'object', value };
}

/** 201 with the answered review, in JSON (which kubectl reads whatever it asked for). */
export function sendReview(context: RequestContext, review: Record<string, unknown>): void {
  sendObject(context.res, 201, review, JSON_REPRESENTATION);
}

export type RouteHandler = (context: RequestContext) => Promise<void>;

export interface ReviewRoute {
  path: string;
  handler: RouteHandler;
}

/** Routes each review's path (trailing slashes ignored) to its handler and everything else to `resources`. */
export function withReviewRoutes(resources: RouteHandler, routes: readonly ReviewRoute[]): RouteHandler {
  const byPath = new Map(routes.map((route) => [route.path, route.handler]));
  return (context) => (byPath.get(context.requestInfo.path.replace(/\/+$/, '')) ?? resources)(context);
}
