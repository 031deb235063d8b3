// Reliability 3 (docs/reliability.md), bad input against a running `fairway serve`: the corpus
// (api/testing/bad-input-corpus.ts, each case with kube-apiserver's answer) plus generated cases
// from a seeded generator (mutated and truncated objects as JSON and YAML under every
// fieldValidation mode, mutated patches of each type, random query values, random names). Every
// case must get its expected answer; every generated one a success or a 4xx Status that says what
// is wrong, never a 5xx. Afterwards the server still answers /readyz, logged no internal error,
// and the store's revision has not moved (every write carried dryRun=All, so nothing may change).
// FAIRWAY_LONG=1: 5,000 generated cases instead of 300.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as yamlParse, stringify as yamlStringify } from 'yaml';
import { createPrng, type Prng } from '../../engine/random.ts';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { sleep, timedRequest, type Endpoint, type TimedResponse } from '../testing/load.ts';
import { BAD_INPUT_CORPUS, FS, GROUP, PLC, validPlc } from '../testing/bad-input-corpus.ts';

const LONG = process.env.FAIRWAY_LONG === '1';
const GENERATED = LONG ? 5_000 : 300;
const SEED = process.env.FAIRWAY_BAD_INPUT_SEED ?? 'reliability-bad-input-1';

let server: ServerProcess;
let endpoint: Endpoint;

const goodFs = {
  apiVersion: `${GROUP}/v1`,
  kind: 'FlowSchema',
  metadata: { name: 'good-fs' },
  spec: {
    priorityLevelConfiguration: { name: 'good' },
    matchingPrecedence: 9000,
    rules: [
      {
        subjects: [{ kind: 'Group', group: { name: 'nobody' } }],
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }],
      },
    ],
  },
};

async function send(method: string, path: string, body?: string | Buffer, headers?: Record<string, string>): Promise<TimedResponse> {
  return timedRequest(endpoint, path, {
    method,
    token: server.token,
    body,
    headers,
    timeoutMs: 15_000,
  });
}

/** The store's revision: a LIST's resourceVersion is the newest revision of the whole store. */
async function revision(): Promise<string> {
  const list = await send('GET', `${PLC}?limit=1`);
  return JSON.parse(list.text).metadata.resourceVersion;
}

test.before(async () => {
  server = await startServerProcess();
  endpoint = { url: server.url, caPem: server.caPem };
  assert.is((await send('POST', PLC, JSON.stringify(validPlc('good')))).status, 201);
  assert.is((await send('POST', FS, JSON.stringify(goodFs))).status, 201);
  // The Dangling condition writer updates a new FlowSchema once; let it, before data must stand still.
  for (let i = 0; i < 200 && JSON.parse((await send('GET', `${FS}/good-fs`)).text).status?.conditions === undefined; i++) await sleep(25);
});

test.after(async () => {
  assert.is(await server.stop(), 0, 'the server exits 0 on SIGTERM');
});

/** What V8's and Node's exceptions say, which no Kubernetes message does. */
const JS_ERROR_TEXT = new RegExp(
  'Unexpected token|is not valid JSON|Unexpected end of JSON|SyntaxError|TypeError|RangeError' +
    String.raw`|ReferenceError|Cannot read propert|is not a function|undefined|\[object Object\]|at position \d+`,
);

/** A failure is a Status (JSON, or YAML when the client asked for YAML) whose code is the HTTP status and whose message says something. */
function assertStatusBody(response: TimedResponse, what: string): any {
  const contentType = String(response.headers['content-type']);
  assert.ok(contentType === 'application/json' || contentType === 'application/yaml', `${what}: a Status, not ${contentType}`);
  const status = contentType === 'application/json' ? JSON.parse(response.text) : yamlParse(response.text);
  assert.is(status.kind, 'Status', what);
  assert.is(status.status, 'Failure', what);
  assert.is(status.code, response.status, `${what}: code matches the HTTP status`);
  assert.ok(typeof status.message === 'string' && status.message.length > 0, `${what}: has a message`);
  // Messages read as Kubernetes' do: never the text of a JavaScript exception.
  assert.not.match(status.message, JS_ERROR_TEXT, `${what}: ${status.message}`);
  return status;
}

test('every corpus case gets its answer, with a clear Status', async () => {
  const before = await revision();
  for (const entry of BAD_INPUT_CORPUS) {
    const response = await send(entry.method, entry.path, entry.body, entry.headers);
    const what = `${entry.name} (${entry.method} ${entry.path.slice(0, 80)})`;
    assert.is(response.status, entry.status, `${what}: ${response.error ?? response.text.slice(0, 300)}`);
    if (entry.status >= 400) {
      const status = assertStatusBody(response, what);
      assert.is(status.reason, entry.reason, `${what}: reason`);
      assert.match(status.message, entry.message, `${what}: message`);
    } else {
      assert.match(response.text, entry.message, what);
    }
    if (entry.header !== undefined) assert.match(String(response.headers[entry.header[0]] ?? ''), entry.header[1], `${what}: ${entry.header[0]} header`);
  }
  assert.is(await revision(), before, 'the corpus changed nothing in the store');
});

const WEIRD_VALUES: unknown[] = [null, -1, 0, 2 ** 31, 2 ** 53 + 1, 1.5, '', 'x'.repeat(300), [], {}, true, 'Limited\u0000', '💥', { '': 1 }, [[[]]]];
const INSERTS = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ',',
  ':',
  'null',
  '-1',
  '1e999',
  '"\\u0000"',
  '\n',
  '\t',
  '#',
  '&a ',
  '*a',
  '!!binary ',
  '---\n',
  "'",
  '\\',
  '\u0000',
  '\ud800',
];
const QUERY_KEYS = [
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'labelSelector',
  'fieldSelector',
  'continue',
  'timeoutSeconds',
  'timeout',
  'sendInitialEvents',
  'allowWatchBookmarks',
  'pretty',
  'includeObject',
  'fieldValidation',
  'dryRun',
];
// Values a client could mean as a time or version that does not make the request wait: a future
// resourceVersion waits 3 s then gets kube's 504, and a tiny ?timeout gets kube's 504 too.
const QUERY_VALUES = [
  '',
  '-1',
  '0',
  '1',
  'abc',
  '1.5',
  '18446744073709551616',
  '9'.repeat(40),
  'NotOlderThan',
  'Exact',
  'true',
  'maybe',
  'a in (',
  '!',
  'a=b,c',
  'metadata.name=good',
  'spec.x=1',
  '%',
  '\u00e9',
  'x'.repeat(2000),
  '10s',
  '-1s',
  'Object',
  'Table',
  'All',
  'Strict',
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0',
];

const pick = <T>(prng: Prng, values: readonly T[]): T => values[prng.int(values.length)]!;

/** A random path into a JSON value, and a setter at it. */
function mutateValue(prng: Prng, root: any): void {
  let node = root;
  for (let depth = 0; depth < 4 && node !== null && typeof node === 'object'; depth++) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = pick(prng, keys);
    if (depth === 3 || node[key] === null || typeof node[key] !== 'object' || prng.next() < 0.3) {
      if (prng.next() < 0.3) {
        node[`${key}x`] = node[key]; // an unknown field
        delete node[key];
      } else node[key] = pick(prng, WEIRD_VALUES);
      return;
    }
    node = node[key];
  }
}

function mutateText(prng: Prng, text: string): string {
  const at = prng.int(text.length + 1);
  switch (prng.int(3)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1 + prng.int(5));
    default:
      return text.slice(0, at) + pick(prng, INSERTS) + text.slice(at);
  }
}

interface Generated {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

function generate(prng: Prng): Generated {
  const fieldValidation = pick(prng, ['', 'Strict', 'Warn', 'Ignore']);
  const asYaml = prng.next() < 0.3;
  const encode = (value: unknown) => (asYaml ? yamlStringify(value) : JSON.stringify(value));
  const contentType = asYaml ? 'application/yaml' : 'application/json';
  switch (prng.int(5)) {
    case 0: {
      // A create or replace whose object has a wrong value or an unknown field, or whose text is broken.
      const [collection, object] = prng.next() < 0.5 ? [PLC, validPlc('good')] : [FS, structuredClone(goodFs)];
      const replace = prng.next() < 0.4;
      if (prng.next() < 0.6) mutateValue(prng, object);
      let body = encode(object);
      if (prng.next() < 0.5) body = mutateText(prng, body);
      const path = `${collection}${replace ? `/${object.metadata?.name ?? 'good'}` : ''}?dryRun=All&fieldValidation=${fieldValidation}`;
      return { method: replace ? 'PUT' : 'POST', path, body, headers: { 'Content-Type': contentType } };
    }
    case 1: {
      // A patch of each type, mutated.
      const type = pick(prng, ['merge', 'strategic', 'json', 'apply'] as const);
      let body: string;
      if (type === 'json')
        body = JSON.stringify([
          {
            op: pick(prng, ['add', 'replace', 'remove', 'test', 'move', 'copy']),
            path: pick(prng, ['/spec/limited/nominalConcurrencyShares', '/metadata/labels', '/spec', '/x/y', '', '/']),
            value: pick(prng, WEIRD_VALUES),
            from: '/spec/type',
          },
        ]);
      else if (type === 'apply') {
        const object: any = validPlc('good');
        mutateValue(prng, object);
        body = prng.next() < 0.5 ? yamlStringify(object) : JSON.stringify(object);
      } else {
        const patch: any = { spec: { limited: { nominalConcurrencyShares: 7, limitResponse: { type: 'Reject' } } }, metadata: { labels: { a: 'b' } } };
        mutateValue(prng, patch);
        body = JSON.stringify(patch);
      }
      if (prng.next() < 0.4) body = mutateText(prng, body);
      const contentTypes = {
        merge: 'application/merge-patch+json',
        strategic: 'application/strategic-merge-patch+json',
        json: 'application/json-patch+json',
        apply: 'application/apply-patch+yaml',
      };
      return {
        method: 'PATCH',
        path: `${PLC}/good?dryRun=All&fieldValidation=${fieldValidation}${type === 'apply' ? '&fieldManager=fuzz' : ''}`,
        body,
        headers: { 'Content-Type': contentTypes[type] },
      };
    }
    case 2: {
      // A list with odd query values.
      const params = new URLSearchParams();
      for (let i = 1 + prng.int(3); i > 0; i--) params.append(pick(prng, QUERY_KEYS), pick(prng, QUERY_VALUES));
      return { method: 'GET', path: `${pick(prng, [PLC, FS])}?${params}` };
    }
    case 3: {
      // An odd name in the URL.
      const alphabet = ['a', 'Z', '-', '.', '..', '_', '%', '%2F', '%00', '%zz', ' ', '\u00e9', '😀', '/', ':', '@', '~', '0'];
      let name = '';
      for (let i = 1 + prng.int(12); i > 0; i--) name += pick(prng, alphabet);
      if (prng.next() < 0.1) name = 'a'.repeat(300);
      const path = `${pick(prng, [PLC, FS])}/${name.replace(/[ \u00e9😀]/gu, encodeURIComponent)}`;
      const method = pick(prng, ['GET', 'DELETE', 'PUT', 'PATCH']);
      const query = method === 'GET' ? '' : '?dryRun=All';
      return {
        method,
        path: `${path}${query}`,
        body: method === 'PUT' || method === 'PATCH' ? '{}' : undefined!,
        headers: method === 'PATCH' ? { 'Content-Type': 'application/merge-patch+json' } : {},
      };
    }
    default: {
      // A create with the wrong content type or Accept.
      const [contentTypeHeader, accept] = [
        pick(prng, ['text/plain', 'application/json; charset=latin1', 'application/yaml; x=y', '', 'application/vnd.kubernetes.protobuf', '*/*']),
        pick(prng, ['application/json', 'application/yaml', 'text/html', '*/*', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=Bogus']),
      ];
      return {
        method: 'POST',
        path: `${PLC}?dryRun=All`,
        body: JSON.stringify(validPlc('generated')),
        headers: { 'Content-Type': contentTypeHeader, Accept: accept },
      };
    }
  }
}

test(`${GENERATED} generated cases get a success or a 4xx Status, never a 5xx; nothing is stored`, async () => {
  const prng = createPrng(SEED);
  const before = await revision();
  const seen = new Map<number, number>();
  for (let i = 0; i < GENERATED; i++) {
    const request = generate(prng.fork(String(i)));
    const response = await send(request.method, request.path, request.body, request.headers);
    const what =
      `generated #${i} (seed ${SEED}): ${request.method} ${request.path.slice(0, 120)} ${JSON.stringify(request.headers ?? {})} ` +
      `${JSON.stringify((request.body ?? '').slice(0, 300))}`;
    seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
    assert.ok(response.status >= 200 && response.status < 500, `${what} → ${response.status} ${response.error ?? response.text.slice(0, 400)}`);
    if (response.status >= 400) assertStatusBody(response, what);
  }
  console.log(
    `\n  reliability-bad-input: ${BAD_INPUT_CORPUS.length} corpus cases, ${GENERATED} generated (seed ${SEED}): ${[...seen]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ')}`,
  );
  assert.is(await revision(), before, 'generated requests changed nothing in the store');
  assert.ok((seen.get(400) ?? 0) > 0 && (seen.get(200) ?? 0) + (seen.get(201) ?? 0) > 0, `a mix of answers: ${[...seen].sort().join(' ')}`);
});

test('the server is still healthy and logged no internal error', async () => {
  assert.is((await send('GET', '/readyz')).status, 200);
  assert.not.match(server.stderr(), /internal error/, 'no 500 was logged');
});

test.run();
