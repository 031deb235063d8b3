// Authorization, after authentication and priority-and-fairness: asks the authorizer chain about
// the request's attributes (context.requestInfo + context.user, plus the parsed field and label
// selectors of a list or watch) and answers as kube-apiserver's WithAuthorization filter does:
// - allowed: on to the next filter;
// - not allowed, with an error (a webhook that failed, a CEL error): HTTP 500 with Go's plain-text
//   `Internal Server Error: "<request URI>": <error>` (http.Error: text/plain, nosniff, newline);
// - otherwise: 403 Forbidden Status, `User "u" cannot <verb> resource "r" ...: <reason>`.
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RequestSelectors, SelectorRequirement } from '../../engine/auth/authorizer.ts';
import { attributesFromRequest, isPending } from '../../engine/auth/authorizer.ts';
import { parseFieldSelector } from '../../engine/store/field-selector.ts';
import { parseLabelSelector } from '../../engine/store/label-selector.ts';
import type { Answered, Filter, RequestContext } from '../request/http-context.ts';
import { forbidden } from '../../engine/status/errors.ts';
import { sendStatusNegotiated } from '../request/respond.ts';
import type { Logger } from '../log.ts';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';

export interface AuthorizationFilterOptions {
  /** The chain (a swappable one when --authorization-config reloads). */
  authorizer: Authorizer;
  logger?: Logger;
  /** Paths served without asking (the health checks, which authentication also lets through); never a resource request's. */
  skipPath?: ((path: string) => boolean) | undefined;
}

export function createAuthorizationFilter(options: AuthorizationFilterOptions): Filter {
  const attributesOf = lastAttributes();
  // Not async: a decision made at once (system:masters, RBAC, AlwaysAllow, a cached webhook answer)
  // goes straight on to `next()`; only a pending one is waited for.
  return (context, next) => {
    // The paths served without asking are health checks, never resource paths: a resource request skips the check.
    if (!context.requestInfo.isResourceRequest && options.skipPath?.(context.requestInfo.path) === true) return next();
    const user = context.user;
    if (user === undefined) {
      writeInternalError(context, 'no user found for request');
      return undefined;
    }
    const attributes = attributesOf(context.requestInfo, user, selectorsOf(context));
    const outcome = options.authorizer.authorize(attributes, context);
    if (isPending(outcome)) return answerLater(options, context, next, attributes, outcome);
    return answer(options, context, next, attributes, outcome);
  };
}

async function answerLater(
  options: AuthorizationFilterOptions,
  context: RequestContext,
  next: () => Answered,
  attributes: AuthorizationAttributes,
  pending: Promise<AuthorizationResult>,
): Promise<void> {
  return answer(options, context, next, attributes, await pending);
}

/** On to `next` when allowed; otherwise the 500 (an authorizer's error) or the 403. */
function answer(
  options: AuthorizationFilterOptions,
  context: RequestContext,
  next: () => Answered,
  attributes: AuthorizationAttributes,
  result: AuthorizationResult,
): Answered {
  if (result.decision === 'allow') return next();
  if (result.error !== undefined && result.error !== '') {
    options.logger?.error(
      `authorization error (user=${JSON.stringify(attributes.user.name)}, verb=${JSON.stringify(attributes.verb)}, path=${JSON.stringify(attributes.path)}): ` +
        `${result.error}`,
    );
    writeInternalError(context, result.error);
    return undefined;
  }
  sendStatusNegotiated(context, forbiddenStatus(attributes, result.reason));
  return undefined;
}

/** The 403 Status for attributes an authorizer did not allow. */
export function forbiddenStatus(attributes: AuthorizationAttributes, reason: string) {
  return forbidden({
    user: attributes.user.name,
    verb: attributes.verb,
    ...(attributes.isResourceRequest
      ? {
          group: attributes.apiGroup,
          resource: attributes.resource,
          subresource: attributes.subresource,
          name: attributes.name,
          namespace: attributes.namespace,
        }
      : { path: attributes.path }),
    reason,
  });
}

/** Go's responsewriters.InternalError: http.Error with the sanitized `Internal Server Error: %q: %v`. */
export function writeInternalError(context: RequestContext, error: string): void {
  const { res } = context;
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = `${sanitize(`Internal Server Error: ${JSON.stringify(context.req.url ?? '')}: ${error}`)}\n`;
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** The HTML escaping kube-apiserver applies to these messages. */
function sanitize(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const NO_SELECTORS: RequestSelectors = Object.freeze({});

/**
 * attributesFromRequest, remembering its last answer without selectors: those attributes follow
 * from the RequestInfo and the UserInfo alone, and requests to one target by one client mostly
 * come in a row. Only a frozen RequestInfo (one shared by a query-less target) is remembered, and
 * it is checked only on a miss: a frozen object stays frozen. Authorizers only read attributes.
 */
function lastAttributes(): (info: RequestInfo, user: UserInfo, selectors: RequestSelectors) => AuthorizationAttributes {
  let lastInfo: RequestInfo | undefined;
  let lastUser: UserInfo | undefined;
  let last: AuthorizationAttributes | undefined;
  return (info, user, selectors) => {
    if (selectors !== NO_SELECTORS) return attributesFromRequest(info, user, selectors);
    if (info === lastInfo && user === lastUser) return last!;
    const attributes = attributesFromRequest(info, user, selectors);
    if (Object.isFrozen(info)) {
      lastInfo = info;
      lastUser = user;
      last = attributes;
    }
    return attributes;
  };
}

/**
 * Field and label selectors as SubjectAccessReview requirements (`=`/`==`/`in` → In, `!=`/`notin` →
 * NotIn, `x` → Exists, `!x` → DoesNotExist). Selectors that do not parse, and `>`/`<` terms, which
 * have no requirement form, are left out, as kube-apiserver leaves them out.
 */
function selectorsOf(context: RequestContext): RequestSelectors {
  const { verb } = context.requestInfo;
  if (verb !== 'list' && verb !== 'watch' && verb !== 'deletecollection') return NO_SELECTORS;
  const out: RequestSelectors = {};
  const fieldText = context.query.get('fieldSelector');
  if (fieldText !== null && fieldText !== '') {
    try {
      out.fieldSelector = parseFieldSelector(fieldText).terms.map((t) => ({ key: t.field, operator: t.operator === '=' ? 'In' : 'NotIn', values: [t.value] }));
    } catch {
      // unparseable: no requirements, as in kube-apiserver
    }
  }
  const labelText = context.query.get('labelSelector');
  if (labelText !== null && labelText !== '') {
    try {
      const requirements: SelectorRequirement[] = [];
      for (const r of parseLabelSelector(labelText).requirements) {
        if (r.operator === '=' || r.operator === '==' || r.operator === 'in') requirements.push({ key: r.key, operator: 'In', values: [...r.values] });
        else if (r.operator === '!=' || r.operator === 'notin') requirements.push({ key: r.key, operator: 'NotIn', values: [...r.values] });
        else if (r.operator === 'exists') requirements.push({ key: r.key, operator: 'Exists' });
        else if (r.operator === '!') requirements.push({ key: r.key, operator: 'DoesNotExist' });
      }
      out.labelSelector = requirements;
    } catch {
      // unparseable: no requirements
    }
  }
  return out;
}
