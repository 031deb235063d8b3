// apiserver_request_total, apiserver_request_duration_seconds and
// apiserver_request_terminations_total, labelled as kube-apiserver labels them
// (k8s.io/apiserver/pkg/endpoints/metrics: CleanScope, CanonicalVerb, CleanVerb, cleanDryRun).
//
// Kubernetes counts a request when its REST handler returns, and counts a request that APF
// rejected separately (RecordDroppedRequest). `createRequestMetricsFilter` plays the first part
// and belongs right after the APF filter in the chain; the APF filter's observer plays the second.
// Only resource requests are counted by the filter, as only REST routes are instrumented upstream.
// Group, version, resource, subresource and path labels go through `ServedLabels`, so what a
// client puts in a URL cannot add series beyond what the server serves (served-labels.ts).

import type { Clock } from '../../engine/clock.ts';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { Filter, RequestContext } from '../request/http-context.ts';
import { REQUEST_DURATION_BUCKETS_SECONDS } from './buckets.ts';
import { CounterVec, HistogramVec, type CollectedFamily, type CounterCell, type HistogramCell } from './metric-family.ts';
import { OTHER_LABEL, type ResourceLabels, type ServedLabels } from './served-labels.ts';

const COMPONENT = 'apiserver';
/** Kubernetes' valid request-metric verbs (metrics.go); anything else is counted as `other`. */
export const VALID_VERBS: ReadonlySet<string> = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);
const CONNECT_SUBRESOURCES: ReadonlySet<string> = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

/** `resource` (one object, or a create), `namespace`, `cluster`, or `""` for non-resource requests. */
export function cleanScope(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

/** The `verb` label: the HTTP method made canonical (LIST, WATCH, APPLY, CONNECT), or `other`. */
export function reportedVerb(method: string, info: RequestInfo, query: URLSearchParams, contentType: string | undefined): string {
  const scope = cleanScope(info);
  // Node hands over methods in upper case already; upper-casing anyway costs a string each time.
  let verb = VALID_VERBS.has(method) ? method : method.toUpperCase();
  if (verb === 'GET' || verb === 'HEAD') verb = scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  if (info.verb === 'watch' || ((verb === 'GET' || verb === 'LIST') && isTrueParam(query.get('watch')))) return 'WATCH';
  if (verb === 'PATCH' && contentType === APPLY_PATCH_CONTENT_TYPE) verb = 'APPLY';
  if (info.isResourceRequest && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return VALID_VERBS.has(verb) ? verb : OTHER_LABEL;
}

/** The `dry_run` label: `""`, `All`, or `invalid` (only `All` is a valid dryRun value). */
export function cleanDryRun(query: URLSearchParams): string {
  if (query.size === 0) return '';
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  return values.every((v) => v === 'All') ? 'All' : 'invalid';
}

function isTrueParam(value: string | null): boolean {
  if (value === null) return false;
  const lower = value.toLowerCase();
  return lower !== '0' && lower !== 'false';
}

export class RequestMetrics {
  private readonly total = new CounterVec(
    'apiserver_request_total',
    '[STABLE] Requests answered, by verb, dry run, group, version, resource, subresource, scope, component and HTTP code.',
    ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
  );
  private readonly duration = new HistogramVec(
    'apiserver_request_duration_seconds',
    '[STABLE] Time from arrival to the end of the response, by verb, dry run, group, version, resource, subresource, scope and component.',
    ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    REQUEST_DURATION_BUCKETS_SECONDS,
  );
  private readonly terminations = new CounterVec(
    'apiserver_request_terminations_total',
    '[ALPHA] Requests the server ended in self-defense (rejected by API Priority and Fairness, timed out).',
    ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
  );

  readonly families: readonly CollectedFamily[] = [this.total.family, this.duration.family, this.terminations.family];

  constructor(private readonly served: ServedLabels) {}

  /**
   * Series by what labels them: resource labels (shared objects, compared by identity), then verb,
   * scope and dry run. An observation walks these small maps with strings it already holds instead
   * of joining nine label values into a key and hashing it, twice, per request.
   */
  private readonly series = new Map<ResourceLabels, Map<string, Map<string, Map<string, RequestSeries>>>>();

  /**
   * The series of requests without a query string, by RequestInfo: such a target's RequestInfo is
   * read once per method and shared (request-target.ts), and its labels follow from it alone (no
   * dryRun, no watch parameter; the body's type matters only to PATCH, left out).
   */
  private readonly seriesByTarget = new WeakMap<RequestInfo, { method: string; series: RequestSeries }>();
  /** The last target answered from seriesByTarget: requests to one target in a row need no lookup. */
  private lastTarget: RequestInfo | undefined = undefined;
  private lastTargetMethod = '';
  private lastTargetSeries: RequestSeries | undefined = undefined;

  /** One answered resource request. */
  observe(context: RequestContext, statusCode: number, durationSeconds: number): void {
    const info = context.requestInfo;
    if (!info.isResourceRequest) return;
    const series = this.seriesFor(context, info);
    series.total(statusCode).value++;
    series.duration.observe(Math.max(0, durationSeconds));
  }

  private seriesFor(context: RequestContext, info: RequestInfo): RequestSeries {
    const method = context.req.method ?? 'GET';
    if (context.query.size !== 0 || method === 'PATCH') return this.seriesOf(context, this.served.resource(info));
    if (info === this.lastTarget && method === this.lastTargetMethod) return this.lastTargetSeries!;
    const known = this.seriesByTarget.get(info);
    let series: RequestSeries;
    if (known !== undefined && known.method === method) series = known.series;
    else {
      series = this.seriesOf(context, this.served.resource(info));
      this.seriesByTarget.set(info, { method, series });
    }
    this.lastTarget = info;
    this.lastTargetMethod = method;
    this.lastTargetSeries = series;
    return series;
  }

  private seriesOf(context: RequestContext, labels: ResourceLabels): RequestSeries {
    const info = context.requestInfo;
    const verb = reportedVerb(context.req.method ?? 'GET', info, context.query, context.req.headers['content-type']);
    const scope = cleanScope(info);
    const dryRun = cleanDryRun(context.query);
    let byVerb = this.series.get(labels);
    if (byVerb === undefined) this.series.set(labels, (byVerb = new Map()));
    let byScope = byVerb.get(verb);
    if (byScope === undefined) byVerb.set(verb, (byScope = new Map()));
    let byDryRun = byScope.get(scope);
    if (byDryRun === undefined) byScope.set(scope, (byDryRun = new Map()));
    let series = byDryRun.get(dryRun);
    if (series === undefined) {
      const { group, version, resource, subresource } = labels;
      series = new RequestSeries(this.duration.cell(verb, dryRun, group, version, resource, subresource, scope, COMPONENT), (code) =>
        this.total.cell(verb, dryRun, group, version, resource, subresource, scope, COMPONENT, code),
      );
      byDryRun.set(dryRun, series);
    }
    return series;
  }

  /** A 429 from APF (RecordDroppedRequest + RecordRequestTermination). */
  recordDropped(context: RequestContext): void {
    const info = context.requestInfo;
    const { verb, dryRun, scope } = this.labelsOf(context);
    if (info.isResourceRequest) {
      const { group, version, resource, subresource } = this.served.resource(info);
      this.total.cell(verb, dryRun, group, version, resource, subresource, scope, COMPONENT, '429').value++;
      this.terminations.cell(verb, group, version, resource, subresource, scope, COMPONENT, '429').value++;
      return;
    }
    // kube-apiserver puts a non-resource request's path in the subresource label.
    this.total.cell(verb, dryRun, '', '', '', '', scope, COMPONENT, '429').value++;
    this.terminations.cell(verb, '', '', '', this.served.path(info.path), scope, COMPONENT, '429').value++;
  }

  private labelsOf(context: RequestContext): { verb: string; dryRun: string; scope: string } {
    const info = context.requestInfo;
    const contentType = context.req.headers['content-type'];
    return {
      verb: reportedVerb(context.req.method ?? 'GET', info, context.query, contentType),
      dryRun: cleanDryRun(context.query),
      scope: cleanScope(info),
    };
  }
}

/** The cells of one (resources, verb, scope, dry run) combination; the counter per status code. */
class RequestSeries {
  private readonly byCode = new Map<number, CounterCell>();
  /** The code counted last and its cell: a series' requests mostly answer the same code, which then needs no lookup. */
  private lastCode = 0;
  private lastCell: CounterCell | undefined = undefined;

  constructor(
    readonly duration: HistogramCell,
    private readonly totalCell: (code: string) => CounterCell,
  ) {}

  total(statusCode: number): CounterCell {
    if (statusCode === this.lastCode && this.lastCell !== undefined) return this.lastCell;
    let cell = this.byCode.get(statusCode);
    if (cell === undefined) {
      const code = codeLabel(statusCode);
      // Codes outside the label's set share the `other` cell, so this map stays bounded too.
      cell = this.totalCell(code);
      if (code !== OTHER_LABEL) this.byCode.set(statusCode, cell);
    }
    this.lastCode = statusCode;
    this.lastCell = cell;
    return cell;
  }
}

/** The `code` label: a status code the server can send, or `other` (a handler never sets anything else). */
function codeLabel(statusCode: number): string {
  return statusCode >= 100 && statusCode <= 599 && Number.isInteger(statusCode) ? String(statusCode) : OTHER_LABEL;
}

/**
 * Counts every response that reaches it, when the request ends (a detached watch when the watch
 * ends; a request whose handler threw once its error response is set, so with that code); put it
 * right after the APF filter.
 */
export function createRequestMetricsFilter(metrics: RequestMetrics, clock: Clock): Filter {
  const observe = (context: RequestContext) => metrics.observe(context, context.res.statusCode, (clock.now() - context.receivedMs) / 1000);
  return (context, next) => {
    context.onEnd(observe);
    return next();
  };
}
