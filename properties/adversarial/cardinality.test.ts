// Metric cardinality: every label value taken from a request must come from a bounded set, or else
// each made-up URL adds series the server keeps until it exits (50,000 GETs of unserved paths took
// the process past 1 GB). Requests are generated with made-up groups, versions, resources, names,
// subresources and non-resource paths, on served paths too, with any method, odd dryRun and watch
// values, as the admin, as a user every request of whom is denied (403), with a bad token (401) and
// with none. Properties, after each batch:
//   - no label value anywhere in /metrics carries a token the requests made up;
//   - the request families' labels are within their sets: verbs kube reports or `other`, dryRun
//     `''`/`All`/`invalid`, served groups, versions, resources, subresources or `other`, codes of
//     three digits;
//   - the number of series does not grow with the number of distinct paths: the same requests
//     again with every made-up token replaced add none;
//   - every request was answered (no 5xx), nothing would have crashed the server, and it still serves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { checkAsyncProperty } from '../support/runner.ts';
import { startAdversary, type Adversary, type Request } from './harness.ts';
import { VALID_VERBS } from '../../api/metrics/request-metrics.ts';
import { OTHER_LABEL } from '../../api/metrics/served-labels.ts';

/** Every made-up path segment and query value carries this, so it can be looked for in /metrics. */
const MARK = 'adv9';
const DENIED_USER = { token: 'adversarial-denied-user', name: 'denied', groups: ['adversaries'] };
const SERVED_GROUPS = new Set(['', 'other', 'flowcontrol.apiserver.k8s.io', 'authorization.k8s.io']);
const SERVED_VERSIONS = new Set(['', 'other', 'v1']);
const SERVED_RESOURCES = new Set(['', 'other', 'prioritylevelconfigurations', 'flowschemas', 'selfsubjectaccessreviews']);
const SERVED_SUBRESOURCES = new Set(['', 'other', 'status']);
const VERBS = new Set([...VALID_VERBS, OTHER_LABEL]);
const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';

const token = fc.stringMatching(/^[a-z0-9.-]{0,6}$/).map((s) => `${MARK}${s}`);

const pathArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(token, token, token, token, token).map(([g, v, r, n, s]) => `/apis/${g}/${v}/${r}/${n}/${s}`),
  fc.tuple(token, token).map(([r, n]) => `/api/v1/namespaces/${n}/${r}`),
  fc.tuple(token, token).map(([v, r]) => `/apis/flowcontrol.apiserver.k8s.io/${v}/${r}`),
  token.map((r) => `${FC}/${r}`),
  fc.tuple(fc.constantFrom('prioritylevelconfigurations', 'flowschemas'), token, token).map(([r, n, s]) => `${FC}/${r}/${n}/${s}`),
  fc.tuple(fc.constantFrom('prioritylevelconfigurations', 'flowschemas'), token).map(([r, n]) => `${FC}/namespaces/${n}/${r}`),
  fc.tuple(token, token).map(([a, b]) => `/${a}/${b}`),
  token.map((g) => `/apis/${g}`),
  token.map((c) => `/healthz/${c}`),
  token.map((d) => `/debug/api_priority_and_fairness/${d}`),
  token.map((p) => `/openapi/v3/apis/${p}`),
);

const requestArb = fc.record({
  method: fc.constantFrom('GET', 'HEAD', 'DELETE', 'OPTIONS', 'PROPFIND', 'TRACE', 'LOCK', 'POST', 'PUT', 'PATCH'),
  path: pathArb,
  dryRun: fc.option(fc.constantFrom<string>('All', `${MARK}x`, ''), { nil: undefined }),
  watch: fc.option(fc.constantFrom<string>('true', '0', `${MARK}w`), { nil: undefined }),
  who: fc.constantFrom<'admin' | 'denied' | 'bad-token' | 'anonymous'>('admin', 'denied', 'bad-token', 'anonymous'),
});
type Generated = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function toRequest(g: Generated): Request & { authorized: boolean } {
  const query: [string, string][] = [];
  if (g.dryRun !== undefined) query.push(['dryRun', g.dryRun]);
  if (g.watch !== undefined) query.push(['watch', g.watch]);
  const headers: Record<string, string> =
    g.who === 'denied' ? { Authorization: `Bearer ${DENIED_USER.token}` } : g.who === 'bad-token' ? { Authorization: `Bearer ${MARK}-bad` } : {};
  // Bodies of writes are empty: nothing is created, so no stored name can become a label.
  return {
    method: g.method,
    path: g.path,
    query,
    headers,
    authorized: g.who === 'admin',
    body: g.method === 'POST' || g.method === 'PUT' || g.method === 'PATCH' ? '' : undefined,
  };
}

/** The same request with each made-up token replaced by another (the request's shape unchanged). */
function retoken(g: Generated, round: number): Generated {
  let n = 0;
  const swap = (text: string) => text.replace(new RegExp(`${MARK}[a-z0-9.-]*`, 'g'), () => `${MARK}r${round}n${n++}`);
  return {
    ...g,
    path: swap(g.path),
    ...(g.dryRun !== undefined ? { dryRun: swap(g.dryRun) } : {}),
    ...(g.watch !== undefined ? { watch: swap(g.watch) } : {}),
  };
}

interface Series {
  name: string;
  labels: Map<string, string>;
}

/** The samples of the Prometheus text format with their labels (values unescaped enough for membership checks). */
function parseSeries(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const name = brace < 0 ? line.split(' ')[0]! : line.slice(0, brace);
    const labels = new Map<string, string>();
    if (brace >= 0) {
      const body = line.slice(brace + 1, line.lastIndexOf('}'));
      for (const match of body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels.set(match[1]!, match[2]!);
    }
    out.push({ name, labels });
  }
  return out;
}

function assertBounded(text: string): number {
  assert.not.ok(text.includes(MARK), `a made-up token reached /metrics: ${text.split('\n').find((l) => l.includes(MARK))}`);
  const requestSeries = parseSeries(text).filter((s) => s.name.startsWith('apiserver_request_'));
  for (const { name, labels } of requestSeries) {
    const where = `${name}{${[...labels].map(([k, v]) => `${k}="${v}"`).join(',')}}`;
    const check = (label: string, allowed: (value: string) => boolean) => {
      const value = labels.get(label);
      if (value !== undefined) assert.ok(allowed(value), `${label}="${value}" in ${where}`);
    };
    check('verb', (v) => VERBS.has(v));
    check('dry_run', (v) => v === '' || v === 'All' || v === 'invalid');
    check('group', (v) => SERVED_GROUPS.has(v));
    check('version', (v) => SERVED_VERSIONS.has(v));
    check('resource', (v) => SERVED_RESOURCES.has(v));
    // A non-resource request's path is reported as its subresource, as kube-apiserver does.
    check('subresource', (v) => SERVED_SUBRESOURCES.has(v) || v.startsWith('/'));
    check('code', (v) => /^[1-5]\d\d$/.test(v));
  }
  return requestSeries.length;
}

let adversary: Adversary;

test.before(async () => {
  adversary = await startAdversary({
    authorizationMode: ['AlwaysDeny'],
    users: new Map([[DENIED_USER.token, { name: DENIED_USER.name, groups: DENIED_USER.groups }]]),
  });
});
test.after(() => adversary.close());

/** /metrics as the admin; also fails if anything sent so far would have crashed the server. */
const scrape = async () => {
  const request = { method: 'GET', path: '/metrics' };
  const metrics = await adversary.send(request);
  await adversary.assertAnswered(metrics, request);
  assert.is(metrics.status, 200);
  return metrics.text;
};

test('made-up URLs, methods and query values, allowed or denied, add no label value and a bounded number of series', async () => {
  await checkAsyncProperty(
    'metric labels from requests stay in bounded sets',
    fc.asyncProperty(fc.array(requestArb, { minLength: 20, maxLength: 40 }), async (batch) => {
      for (const generated of batch) {
        const response = await adversary.send(toRequest(generated));
        // Health and debug paths answer an unknown check with Go's plain `404 page not found`.
        assert.ok(response.status < 500, `${generated.method} ${generated.path}: HTTP ${response.status} ${response.text.slice(0, 200)}`);
        if (generated.who === 'denied' && !generated.path.startsWith('/healthz')) {
          assert.ok(response.status === 403 || response.status === 405, `the denied user got ${response.status} for ${generated.method} ${generated.path}`);
        }
      }
      assertBounded(await scrape());
    }),
    { runs: 4 },
  );
  // The same requests again with every made-up token replaced by a new one: thousands of new
  // distinct paths, and not one new series.
  const shapes = fc.sample(fc.array(requestArb, { minLength: 200, maxLength: 200 }), { seed: 7, numRuns: 1 })[0]!;
  for (const generated of shapes) await adversary.send(toRequest(generated));
  const settled = assertBounded(await scrape());
  for (let round = 0; round < 10; round++) {
    for (const generated of shapes) await adversary.send(toRequest(retoken(generated, round)));
  }
  assert.is(assertBounded(await scrape()), settled, '2,000 requests on new made-up paths added series');

  const list = await adversary.send({ method: 'GET', path: `${FC}/prioritylevelconfigurations?limit=1` });
  assert.is(list.status, 200);
  const health = await adversary.send({ method: 'GET', path: '/healthz' });
  assert.equal([health.status, health.text], [200, 'ok']);
});

test.run();
