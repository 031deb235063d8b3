// Impersonation, right after authentication and before priority and fairness, as in
// kube-apiserver: a request carrying `Impersonate-*` headers (kubectl --as, --as-group, --as-uid)
// is authorized for the verb `impersonate` on each thing it names (engine/auth/impersonation.ts),
// then classified, authorized and served as the impersonated user. Refused: 403 with Kubernetes'
// message. Malformed (groups or extras without a user): 400 with Kubernetes' text, where
// kube-apiserver answers 500. The headers go no further down the chain; the authenticated user is
// kept as `context.impersonator` for the access log.
import type { Authorizer } from '../../engine/auth/authorizer.ts';
import { IMPERSONATE_HEADER_PREFIX, impersonate, type HeaderLine } from '../../engine/auth/impersonation.ts';
import type { Answered, Filter, RequestContext } from '../request/http-context.ts';
import { badRequest } from '../../engine/status/errors.ts';
import { sendStatusNegotiated } from '../request/respond.ts';
import { forbiddenStatus, writeInternalError } from './authorization.ts';

export interface ImpersonationFilterOptions {
  /** The same chain that authorizes requests. */
  authorizer: Authorizer;
  apiDomain?: string | undefined;
}

export function createImpersonationFilter(options: ImpersonationFilterOptions): Filter {
  // Not async on the common path: a request without impersonation headers (nearly all) is handed
  // on without another promise wrapped around the rest of the chain, which a watch would keep.
  return (context, next) => (hasImpersonationHeader(context.req.rawHeaders) ? impersonateThenNext(options, context, next) : next());
}

const LOWER_I = 0x69;

/**
 * Whether any header line starts with `Impersonate-` (any case). Read from the raw lines, an array,
 * rather than by enumerating the headers object, which costs a runtime call per request; a name is
 * lower-cased only when it starts with an `i`.
 */
function hasImpersonationHeader(raw: readonly string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length >= IMPERSONATE_HEADER_PREFIX.length && (name.charCodeAt(0) | 0x20) === LOWER_I && name.toLowerCase().startsWith(IMPERSONATE_HEADER_PREFIX))
      return true;
  }
  return false;
}

async function impersonateThenNext(options: ImpersonationFilterOptions, context: RequestContext, next: () => Answered): Promise<void> {
  const headers = context.req.headers;
  const requestor = context.user;
  if (requestor === undefined) {
    writeInternalError(context, 'no user found for request');
    return;
  }
  const outcome = await impersonate(requestor, impersonationHeaders(context.req.rawHeaders), options.authorizer, {
    apiDomain: options.apiDomain,
    cancellation: context,
  });
  switch (outcome.kind) {
    case 'none':
      return next();
    case 'invalid':
      sendStatusNegotiated(context, badRequest(outcome.error));
      return;
    case 'forbidden':
      sendStatusNegotiated(context, forbiddenStatus(outcome.attributes, outcome.reason));
      return;
    case 'impersonating':
      for (const name of Object.keys(headers)) if (name.startsWith(IMPERSONATE_HEADER_PREFIX)) delete headers[name];
      context.impersonator = requestor;
      context.user = outcome.user;
      return next();
  }
}

/** The impersonation header lines in order, names lower-cased, one value per line. */
function impersonationHeaders(raw: readonly string[]): HeaderLine[] {
  const lines: HeaderLine[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name.startsWith(IMPERSONATE_HEADER_PREFIX)) lines.push([name, raw[i + 1]!]);
  }
  return lines;
}
