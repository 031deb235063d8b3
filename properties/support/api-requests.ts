// Random HTTP requests for the API fuzz: methods × paths (both kinds, names good and odd,
// subresources, other groups and versions, non-resource paths) × query strings (bad integers and
// booleans, bad resourceVersions and selectors, odd continue tokens, unknown parameters) × headers
// (bad content types and Accept ranges, missing or wrong tokens, large headers) × bodies (objects
// valid and invalid, the four patch types with good and malformed patches, broken JSON and YAML,
// deep nesting, a body over the 3 MiB cap).
//
// Left out on purpose, because there Kubernetes itself answers 5xx or never answers: a
// resourceVersion (or continue token) newer than the store (a 3 s wait, then 504), `?timeout=` of a
// few milliseconds (the timeout filter's 504), and watches: a GET that would stream is still sent,
// but the fuzz client only reads its status line (see fuzz-client.ts).

import fc from 'fast-check';
import type { FlowcontrolKind } from '../../engine/resources/types.ts';
import { FUZZ_LABEL } from './api-objects.ts';
import { objectBody, PATCH_TYPES, patchBody } from './api-bodies.ts';

export interface FuzzRequest {
  method: string;
  path: string;
  /** Raw (already encoded) query pairs, in order. */
  query: [string, string][];
  headers: Record<string, string>;
  /** Text, or bytes (a protobuf body). */
  body: string | Uint8Array | undefined;
  /** Sent with the admin token unless the headers already say something about Authorization. */
  authorized: boolean;
}

export const GROUP_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1';
const COLLECTIONS: Record<FlowcontrolKind, string> = {
  PriorityLevelConfiguration: `${GROUP_PATH}/prioritylevelconfigurations`,
  FlowSchema: `${GROUP_PATH}/flowschemas`,
};
export const collectionPath = (kind: FlowcontrolKind) => COLLECTIONS[kind];

/** Names the fuzz may create, change and delete. */
export const FUZZ_NAMES = ['fz-a', 'fz-b', 'fz-c'];
/** The bootstrap objects: read and written (they refuse spec changes), never deleted. */
const BOOTSTRAP_NAMES = ['exempt', 'catch-all', 'global-default'];
const ODD_NAMES = ['..', 'a%2Fb', 'UPPER', '%zz', 'a%20b', '%C3%BC', 'x'.repeat(300), '%00'];

const kindArb = fc.constantFrom<FlowcontrolKind>('PriorityLevelConfiguration', 'FlowSchema');

const OTHER_PATHS = [
  `${GROUP_PATH}/foos`,
  `${GROUP_PATH}/foos/x`,
  '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
  '/apis/flowcontrol.apiserver.k8s.io/v2/prioritylevelconfigurations/x',
  `${GROUP_PATH}/namespaces/default/flowschemas`,
  `${GROUP_PATH}/namespaces/default/flowschemas/fz-a`,
  '/apis/flowcontrol.apiserver.k8s.io',
  '/apis',
  '/api',
  '/api/v1/pods',
  '/apis/apps/v1/deployments',
  '/version',
  '/openapi/v2',
  '/openapi/v3',
  '/openapi/v3/apis/flowcontrol.apiserver.k8s.io/v1',
  '/healthz',
  '/healthz/ping',
  '/readyz',
  '/livez',
  '/metrics',
  '/debug/api_priority_and_fairness/dump_priority_levels',
  '/debug/api_priority_and_fairness/dump_queues',
  '/debug/api_priority_and_fairness/nope',
  '/nope',
  '//',
  '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
];

interface Target {
  kind: FlowcontrolKind | undefined;
  path: string;
  /** DELETE is not allowed here (bootstrap objects). */
  keep: boolean;
  collection: boolean;
}

const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 3, arbitrary: kindArb.map((kind) => ({ kind, path: collectionPath(kind), keep: false, collection: true })) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        kindArb,
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FUZZ_NAMES) }, fc.constantFrom(...ODD_NAMES), fc.constantFrom(...BOOTSTRAP_NAMES)),
        fc.constantFrom('', '', '', '/status', '/scale', '/status/x'),
      )
      .map(([kind, name, sub]) => ({ kind, path: `${collectionPath(kind)}/${name}${sub}`, keep: BOOTSTRAP_NAMES.includes(name), collection: false })),
  },
  { weight: 2, arbitrary: fc.constantFrom(...OTHER_PATHS).map((path) => ({ kind: undefined, path, keep: true, collection: false })) },
);

// ---------------------------------------------------------------------------------------------
// Query strings

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const PARAMS: Record<string, string[]> = {
  limit: ['-1', '0', '1', '2', 'abc', '99999999999999999999', '2.5', ''],
  watch: ['maybe', 'false', '0', 'FALSE', 'yes'],
  resourceVersion: ['', '0', '1', 'abc', '-1', '18446744073709551616', ' 1', '0x1'],
  resourceVersionMatch: ['Exact', 'NotOlderThan', 'Foo', ''],
  labelSelector: [
    'a=b',
    `${FUZZ_LABEL.key}=${FUZZ_LABEL.value}`,
    'a in (',
    '!!x',
    '=x',
    'x==',
    'a,,b',
    'a b c',
    '%25',
    'x in ()',
    `a=${'v'.repeat(70)}`,
    'a notin (b),!c',
    'x>1',
  ],
  fieldSelector: ['metadata.name=fz-a', 'metadata.name!=fz-a', 'spec.type=x', 'metadata.name', 'metadata.name~x', 'a=b=c', 'metadata.namespace=x', ''],
  continue: [
    'garbage',
    b64('{"v":"meta.k8s.io/v1","rv":-1,"start":"fz-a\\u0000"}'),
    b64('{"v":"other/v1","rv":1,"start":"x"}'),
    b64('not json'),
    b64('{"v":"meta.k8s.io/v1","rv":1,"start":"../x"}'),
    b64('{"v":"meta.k8s.io/v1","rv":1}'),
    '%%%',
  ],
  timeoutSeconds: ['-5', 'abc', '1', '99999999999999999999'],
  timeout: ['abc', '-1s', '0s', '30s', '1h', '1x'],
  pretty: ['maybe', 'true', '1', ''],
  dryRun: ['All', 'Some', ''],
  fieldManager: ['fuzz', 'x'.repeat(200), '%01', 'kubectl-client-side-apply', ''],
  fieldValidation: ['Strict', 'Warn', 'Ignore', 'Loud', ''],
  force: ['true', 'maybe', 'false'],
  propagationPolicy: ['Orphan', 'Background', 'Sideways'],
  gracePeriodSeconds: ['5', 'x', '-1'],
  orphanDependents: ['maybe', 'true'],
  includeObject: ['All', 'None', 'Object', 'Metadata'],
  sendInitialEvents: ['maybe', 'true', 'false'],
  allowWatchBookmarks: ['x', 'true'],
  foo: ['bar', ''],
  '%zz': ['1'],
};

const queryPair = fc.constantFrom(...Object.keys(PARAMS)).chain((key) => fc.constantFrom(...PARAMS[key]!).map((value): [string, string] => [key, value]));
const encodePair = ([k, v]: [string, string]): [string, string] => [/%/.test(k) ? k : encodeURIComponent(k), /%/.test(v) ? v : encodeURIComponent(v)];

// ---------------------------------------------------------------------------------------------
// Headers

const CONTENT_TYPES = [
  'application/json',
  'application/yaml',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  '',
  ...PATCH_TYPES,
  'application/vnd.kubernetes.protobuf',
  '*/*',
  'application/json;;;',
  'garbage/',
  'application/yaml; charset=latin1',
];
const ACCEPTS = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'text/html',
  '*/*',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=Foo',
  'application/json;q=0',
  ',,,',
  'application/*;q=0.5, text/*',
  'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io',
];

/** `arbitrary` in one of `n` requests, otherwise nothing. */
const oneIn = <T>(n: number, arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record({
    Accept: oneIn(3, fc.constantFrom(...ACCEPTS)),
    'User-Agent': oneIn(
      4,
      fc.oneof(
        fc.constantFrom('kubectl/v1.32.0 (linux/amd64)', '', 'curl/8.0'),
        fc.integer({ min: 100, max: 4_000 }).map((n) => 'u'.repeat(n)),
      ),
    ),
    // Rare: most requests should get past authentication.
    Authorization: oneIn(20, fc.constantFrom('Bearer wrong', 'Basic YWRtaW46YWRtaW4=', 'Bearer ', 'Bearer a b')),
    'X-Fuzz': oneIn(
      6,
      fc.integer({ min: 1, max: 6_000 }).map((n) => 'y'.repeat(n)),
    ),
    'Impersonate-User': oneIn(20, fc.constantFrom('bob', 'system:admin')),
    'Impersonate-Group': oneIn(20, fc.constantFrom('system:masters', 'team-a')),
  })
  .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>);

// ---------------------------------------------------------------------------------------------

const METHODS = ['GET', 'GET', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom(...METHODS),
    target,
    query: fc.array(queryPair, { maxLength: 4 }),
    headers: extraHeaders,
    contentTypeOverride: oneIn(5, fc.constantFrom(...CONTENT_TYPES)),
    withFieldManager: fc.boolean(),
    bodyKind: kindArb,
    bodyName: fc.constantFrom(...FUZZ_NAMES),
    withBody: fc.integer({ min: 0, max: 9 }),
    oversized: fc.integer({ min: 0, max: 199 }),
  })
  .chain((r) => {
    const kind = r.target.kind ?? r.bodyKind;
    const name = /\/([^/]+)(\/[^/]*)?$/.exec(r.target.path)?.[1] ?? r.bodyName;
    const body =
      r.method === 'PATCH' ? patchBody(kind, FUZZ_NAMES.includes(name) ? name : r.bodyName) : objectBody(kind, FUZZ_NAMES.includes(name) ? name : r.bodyName);
    return body.map((b): FuzzRequest => {
      const method = r.target.keep && r.method === 'DELETE' ? 'GET' : r.method;
      let query = r.query.map(encodePair);
      // A DELETE of a collection (deletecollection) may only reach the fuzz's own objects.
      if (method === 'DELETE' && r.target.collection) {
        query = [
          ['labelSelector', encodeURIComponent(`${FUZZ_LABEL.key}=${FUZZ_LABEL.value}`)],
          ...query.filter(([k]) => k !== 'labelSelector' && k !== 'fieldSelector'),
        ];
      }
      if (method === 'PATCH' && r.withFieldManager) query = [['fieldManager', 'fuzz'], ...query];
      const sendBody = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? r.withBody === 0 : r.withBody !== 0;
      const headers: Record<string, string> = { ...r.headers };
      let text = sendBody ? b.body : undefined;
      if (sendBody && r.oversized === 0) text = `{"metadata":{"name":"fz-big","annotations":{"a":"${'x'.repeat(3 * 1024 * 1024)}"}}}`;
      const contentType = r.contentTypeOverride ?? (sendBody ? b.contentType : undefined);
      if (contentType !== undefined) headers['Content-Type'] = contentType;
      const request: FuzzRequest = { method, path: r.target.path, query, headers, body: text, authorized: !('Authorization' in headers) };
      // Counterexamples print as one line, not as a 3 MiB body.
      return Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request), enumerable: false });
    });
  });

/** A PATCH of `kind`/`name`: any of the four types, good or malformed, with random query and headers. */
export function patchRequest(kind: FlowcontrolKind, name: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      patch: patchBody(kind, name),
      query: fc.array(queryPair, { maxLength: 3 }),
      headers: extraHeaders,
      withFieldManager: fc.boolean(),
      subresource: fc.constantFrom('', '', '', '/status'),
    })
    .map(({ patch, query, headers, withFieldManager, subresource }) => {
      const pairs = query.map(encodePair).filter(([k]) => k !== 'dryRun');
      const request: FuzzRequest = {
        method: 'PATCH',
        path: `${collectionPath(kind)}/${name}${subresource}`,
        query: withFieldManager ? [['fieldManager', 'fuzz'], ...pairs] : pairs,
        headers: { ...headers, 'Content-Type': patch.contentType },
        body: patch.body,
        authorized: !('Authorization' in headers),
      };
      return Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request), enumerable: false });
    });
}

export function describeRequest(r: FuzzRequest): string {
  const query = r.query.length > 0 ? `?${r.query.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 20)}…(${v.length})` : v}`);
  const body = r.body === undefined ? '' : ` body(${r.body.length}): ${r.body.length > 120 ? `${r.body.slice(0, 120)}…` : r.body}`;
  return `${r.method} ${r.path.length > 120 ? `${r.path.slice(0, 120)}…` : r.path}${query} [${headers.join('; ')}]${body}`;
}
