// Access control for the request path — authentication, authorization and admission — built from
// `fairway serve` options in one call, so the server assembly wires it with a few lines: the
// authenticator (client certificates, bearer tokens, anonymous) and its filter, impersonation, the
// authorizer (from --authorization-config, reloading on change, or from --authorization-mode,
// default AlwaysAllow) and its filter, the admission chain the kinds' registries run, and the
// self-review routes (SelfSubjectAccessReview and SelfSubjectRulesReview, answered by the same
// authorizer, and SelfSubjectReview).
//
// Without authorization options (in-process test servers) everyone who authenticates is allowed,
// no admission runs and no self-review route is served.
import { Registry } from 'prom-client';
import type { Clock } from '../../engine/clock.ts';
import { createPrng, type Prng } from '../../engine/random.ts';
import type { Authorizer } from '../../engine/auth/authorizer.ts';
import { createPromAuthorizationMetrics } from '../../engine/auth/authorization-metrics.ts';
import { startAuthorizationConfigController, type AuthorizationConfigController } from '../../engine/auth/authorization-reloader.ts';
import { buildAuthorizerFromModes } from '../../engine/auth/build-authorizer.ts';
import type { RetryBackoff } from '../../engine/auth/webhook-client.ts';
import type { AdmissionChain } from '../../engine/auth/admission/admission.ts';
import { buildAdmissionChain } from '../../engine/auth/admission/build-admission.ts';
import { apiGroupsFor } from '../../engine/resources/api-domain.ts';
import { formatRfc3339 } from '../../engine/clock.ts';
import type { Filter } from '../request/http-context.ts';
import type { Logger } from '../log.ts';
import { createAuthorizationFilter } from '../filters/authorization.ts';
import { alwaysAllowAuthorizer } from '../../engine/auth/always.ts';
import type { Authenticator } from '../../engine/auth/authenticator.ts';
import { buildAuthenticator } from '../../engine/auth/build-authenticator.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import { createAuthenticationFilter } from '../filters/authentication.ts';
import { createImpersonationFilter } from '../filters/impersonation.ts';
import { createSelfSubjectAccessReviewHandler, selfSubjectAccessReviewPath } from '../handlers/self-subject-access-review.ts';
import { createSelfSubjectRulesReviewHandler, selfSubjectRulesReviewPath } from '../handlers/self-subject-rules-review.ts';
import { createSelfSubjectReviewHandler, selfSubjectReviewPath } from '../handlers/self-subject-review.ts';
import type { ReviewRoute } from '../handlers/review.ts';

export interface AccessControl {
  authenticator: Authenticator;
  /** The chain's first filter: the request's user, or 401. */
  authenticationFilter: Filter;
  /** Right after authentication: `Impersonate-*` headers, checked with the authorizer. */
  impersonationFilter: Filter;
  authorizer: Authorizer;
  /** Absent without authorization options: every authenticated request is allowed. */
  authorizationFilter?: Filter;
  /** Validating admission, an explicit dependency of each kind's registry; absent: writes are not checked. */
  admission?: AdmissionChain;
  /** POST routes of selfsubjectaccessreviews, selfsubjectrulesreviews (authorization) and selfsubjectreviews (authentication). */
  reviews: readonly ReviewRoute[];
  /** The authorization metrics (the given registry, or a new one to merge into /metrics). */
  registry: Registry;
  /** Present with --authorization-config: the reload controller. */
  authorizationConfig?: AuthorizationConfigController;
  /** Stops the reload watch and closes webhook connections. */
  stop(): void;
}

export interface AuthenticationOptions {
  /** Bearer token → user (--token-auth-file and the admin token). */
  tokens: ReadonlyMap<string, UserInfo>;
  anonymousAuth?: boolean;
  /** The --client-ca-file bundle: client certificates it verifies authenticate (CN user, O groups). */
  clientCaPem?: string | undefined;
}

/** What authorization and admission are built from (`fairway serve`'s flags of the same names). */
export interface AuthorizationOptions {
  /** An AuthorizationConfiguration file, followed for changes; '' for none (then `authorizationMode`). */
  authorizationConfig: string;
  /** Authorizers in order (AlwaysAllow, AlwaysDeny, RBAC, Webhook...); empty: AlwaysAllow. */
  authorizationMode: readonly string[];
  /** An AdmissionConfiguration file; '' for none. */
  admissionControlConfigFile: string;
  /** Admission plugins enabled besides the default ones. */
  enableAdmissionPlugins: readonly string[];
  apiDomain: string;
}

export interface AccessControlOptions {
  authentication: AuthenticationOptions;
  /** Authorization and admission settings; absent: AlwaysAllow without its filter, no admission, no self reviews. */
  options?: AuthorizationOptions;
  clock: Clock;
  logger: Logger;
  /** Where the authorization metrics are registered; a new Registry when absent. */
  registry?: Registry;
  /** Paths served without credentials and without asking the authorizer (the health checks). */
  isPublicPath?: ((path: string) => boolean) | undefined;
  /** Tests shorten the reload poll and the webhook backoff. */
  reloadIntervalMs?: number;
  webhookBackoff?: RetryBackoff;
  prng?: Prng;
}

export async function createAccessControl(input: AccessControlOptions): Promise<{ ok: true; value: AccessControl } | { ok: false; error: string }> {
  const { options, clock, logger } = input;
  const apiDomain = options?.apiDomain;
  const registry = input.registry ?? new Registry();
  const { tokens, anonymousAuth, clientCaPem } = input.authentication;
  const authentication = buildAuthenticator({
    tokens,
    anonymous: anonymousAuth ?? false,
    ...(clientCaPem !== undefined ? { clientCaPems: [clientCaPem] } : {}),
    wallClockMs: () => clock.now(),
  });
  if (!authentication.ok) return { ok: false, error: authentication.error };
  const { authenticator } = authentication;
  const authenticationFilter = createAuthenticationFilter({
    authenticator,
    isPublicPath: input.isPublicPath,
    logger,
  });
  const impersonation = (authorizer: Authorizer) => createImpersonationFilter({ authorizer, apiDomain });
  if (options === undefined) {
    return {
      ok: true,
      value: {
        authenticator,
        authenticationFilter,
        impersonationFilter: impersonation(alwaysAllowAuthorizer),
        authorizer: alwaysAllowAuthorizer,
        reviews: [],
        registry,
        stop: () => {},
      },
    };
  }
  const metrics = createPromAuthorizationMetrics(registry);
  // Jitter only spreads webhook retries; nothing depends on replaying it.
  const prng = input.prng ?? createPrng(`${process.pid}:${clock.now()}`);
  const deps = { clock, prng, metrics, apiDomain, backoff: input.webhookBackoff };

  let authorizer: Authorizer;
  let controller: AuthorizationConfigController | undefined;
  if (options.authorizationConfig !== '') {
    const started = await startAuthorizationConfigController({
      ...deps,
      file: options.authorizationConfig,
      config: { apiDomain },
      intervalMs: input.reloadIntervalMs,
      log: { info: (m) => logger.info(m), error: (m) => logger.error(m) },
    });
    if (!started.ok) return { ok: false, error: started.error };
    controller = started.controller;
    authorizer = controller.authorizer;
  } else {
    const built = buildAuthorizerFromModes(options.authorizationMode, deps);
    if (!built.ok) return { ok: false, error: built.error };
    authorizer = built.authorizer;
  }

  const admission = await buildAdmissionChain({
    enablePlugins: options.enableAdmissionPlugins,
    configFile: options.admissionControlConfigFile,
    clock,
    apiDomain,
  });
  if (!admission.ok) {
    controller?.stop();
    authorizer.close?.();
    // kube-apiserver's plugin errors name the fields but not the file they came from.
    const file = options.admissionControlConfigFile;
    return { ok: false, error: file === '' || admission.error.includes(file) ? admission.error : `${file}: ${admission.error}` };
  }

  const groups = apiGroupsFor(apiDomain);
  const group = groups.authorization;
  const value: AccessControl = {
    authenticator,
    authenticationFilter,
    impersonationFilter: impersonation(authorizer),
    authorizer,
    registry,
    authorizationFilter: createAuthorizationFilter({
      authorizer,
      logger,
      skipPath: input.isPublicPath,
    }),
    admission: admission.chain,
    reviews: [
      { path: selfSubjectAccessReviewPath(group), handler: createSelfSubjectAccessReviewHandler({ authorizer, group }) },
      { path: selfSubjectRulesReviewPath(group), handler: createSelfSubjectRulesReviewHandler({ authorizer, group }) },
      {
        path: selfSubjectReviewPath(groups.authentication),
        handler: createSelfSubjectReviewHandler({ group: groups.authentication, nowTime: () => formatRfc3339(clock.now()) }),
      },
    ],
    stop: () => {
      if (controller !== undefined) controller.stop();
      else authorizer.close?.();
    },
  };
  if (controller !== undefined) value.authorizationConfig = controller;
  return { ok: true, value };
}
