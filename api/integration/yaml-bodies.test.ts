// YAML request bodies through the whole server: beyond a few hundred bytes they are composed on the
// execution plane's pool, never on the main thread, and hostile ones (a long flow sequence, alias
// bombs, an alias inside its own anchor, deep nesting) are refused with a 400 naming the bound.
// The pool here is a recording executor that clones what crosses, as a worker thread's messages do.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Executor, Work } from '../../workers/executor.ts';
import { createInlineExecutor } from '../../workers/inline-executor.ts';
import { createRoutingExecutor } from '../../workers/routing-executor.ts';
import type { ExecutionPlane } from '../assembly/execution-plane.ts';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const YAML = { 'Content-Type': 'application/yaml' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

const ranOn = { inline: [] as string[], pool: [] as string[] };

function recording(where: 'inline' | 'pool'): Executor {
  const inner = createInlineExecutor();
  return {
    async execute<R>(work: Work): Promise<R> {
      ranOn[where].push(work.stage);
      if (where === 'inline') return inner.execute<R>(work);
      return structuredClone(await inner.execute<R>({ stage: work.stage, payload: structuredClone(work.payload) }));
    },
    close: () => inner.close(),
  };
}

const executor = createRoutingExecutor({ inline: recording('inline'), pool: recording('pool') });
const plane: ExecutionPlane = { executor, threads: 1, ready: Promise.resolve(), registerMetrics: () => {}, close: () => executor.close() };

let server: InProcessServer;

test.before(async () => {
  server = await startInProcessServer({ authorizationMode: ['AlwaysAllow'], executionPlane: plane });
  await server.ready();
});

test.after(async () => {
  await server.close();
});

test.before.each(() => {
  ranOn.inline.length = 0;
  ranOn.pool.length = 0;
});

const flowSchema = (name: string, extra = '') => `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: ${name}
${extra}spec:
  priorityLevelConfiguration:
    name: global-default
  matchingPrecedence: 5000
  rules:
  - subjects:
    - kind: Group
      group: {name: system:authenticated}
    nonResourceRules:
    - {verbs: ["get"], nonResourceURLs: ["/yaml-bodies"]}
`;

function assertRefused(response: { status: number; text: string; json(): any }, message: RegExp): void {
  assert.is(response.status, 400, response.text.slice(0, 300));
  const status = response.json();
  assert.is(status.kind, 'Status');
  assert.is(status.reason, 'BadRequest');
  assert.match(status.message, message, status.message);
}

test('a YAML FlowSchema of a few hundred bytes is composed on the pool and stored as written', async () => {
  const created = await server.client.request('POST', FS, { body: flowSchema('yaml-on-the-pool'), headers: YAML });
  assert.is(created.status, 201, created.text);
  assert.ok(ranOn.pool.includes('decode-yaml'), `pool ran ${ranOn.pool}`);
  assert.not.ok(ranOn.inline.includes('decode-yaml'));
  const stored = (await server.client.get(`${FS}/yaml-on-the-pool`)).json();
  assert.equal(stored.spec.rules[0].nonResourceRules, [{ verbs: ['get'], nonResourceURLs: ['/yaml-bodies'] }]);
});

test('a 1.2 MB YAML flow sequence in a SelfSubjectAccessReview is refused on the pool for its node count', async () => {
  const body = [
    'apiVersion: authorization.k8s.io/v1',
    'kind: SelfSubjectAccessReview',
    'spec:',
    '  resourceAttributes: {verb: get, resource: flowschemas}',
    `  extra: [${'0,'.repeat(600_000)}0]`,
    '',
  ].join('\n');
  assert.ok(body.length > 1_200_000);
  const response = await server.client.request('POST', SSAR, { body, headers: YAML });
  assertRefused(
    response,
    new RegExp(
      '^the object provided is unrecognized \\(must be of type SelfSubjectAccessReview\\): ' +
        'error converting YAML to JSON: yaml: document has more than 100000 nodes',
    ),
  );
  assert.equal(ranOn.pool, ['decode-yaml']);
  assert.equal(ranOn.inline, []);
});

test('alias bombs are refused before their expansion is made', async () => {
  let laughs = '  annotations:\n    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
  for (let level = 1; level < 9; level++)
    laughs += `    l${level}: &l${level} [${Array(9)
      .fill(level === 1 ? '*a' : `*l${level - 1}`)
      .join(', ')}]\n`;
  assertRefused(await server.client.request('POST', FS, { body: flowSchema('laughs', laughs), headers: YAML }), /yaml: document contains excessive aliasing/);
  let anchors = '  annotations:\n';
  for (let i = 0; i < 2_000; i++) anchors += `    a${i}: &a${i} v\n`;
  assertRefused(await server.client.request('POST', FS, { body: flowSchema('anchors', anchors), headers: YAML }), /yaml: document has more than 1000 anchors/);
  // An alias inside the node it names would be a cyclic value, which nothing after decoding can walk.
  const cycle = '  labels: &self\n    x: *self\n';
  assertRefused(await server.client.request('POST', FS, { body: flowSchema('cycle', cycle), headers: YAML }), /yaml: anchor 'self' value contains itself/);
  const apply = await server.client.request('PATCH', `${FS}/laughs?fieldManager=test`, { body: flowSchema('laughs', laughs), headers: APPLY });
  assertRefused(apply, /yaml: document contains excessive aliasing/);
  assert.equal(
    ranOn.inline.filter((stage) => stage === 'decode-yaml'),
    [],
  );
});

test('deep YAML nesting is refused with the nesting 400, measured on the pool', async () => {
  const deep = `  annotations: ${'['.repeat(300)}${']'.repeat(300)}\n`;
  const response = await server.client.request('POST', FS, { body: flowSchema('deep', deep), headers: YAML });
  assertRefused(response, /^the request body nests objects and lists more than 256 levels deep$/);
  assert.equal(ranOn.pool, ['decode-yaml']);
});

test.run();
