// The shared runner of the adversarial suite (one file per attack class beside this one): a whole
// server in the test's process (memory store, APF on, an ordinary user besides the admin), a trap
// for what would have crashed `fairway serve`, and the check every attack ends with: the process
// is as it was (Object.prototype and the other built-in prototypes untouched), an ordinary user's
// request is still served, /metrics still renders and /healthz still says ok.
//
// `npm test` runs each attack briefly at the fixed seed; `npm run properties -- adversarial --runs N
// --seed S` runs them long (the runner prints the seed, and a failure prints its replay command).
import * as assert from 'uvu/assert';
import { startInProcessServer, type InProcessOptions, type InProcessServer } from '../../api/integration/testing/in-process.ts';
import type { FuzzRequest } from '../support/api-requests.ts';
import { trapCrashes } from '../support/crash-trap.ts';
import { assertWellFormed, send, type FuzzResponse } from '../support/fuzz-client.ts';
import { readPropertySettings } from '../support/runner.ts';

/**
 * Under `npm test` the attacks stay small (a brief check); given `--runs`, they also grow (lists of
 * tens of thousands, values of hundreds of kilobytes), which is where amplification shows.
 */
export const LONG_RUN = readPropertySettings().runsOverride !== undefined;
export const sized = (brief: number, long: number): number => (LONG_RUN ? long : brief);

export const ORDINARY_USER = { token: 'adversarial-ordinary-user', name: 'mallory', groups: ['adversaries'] } as const;

export type Request = Pick<FuzzRequest, 'method' | 'path'> & Partial<FuzzRequest>;

export interface Adversary {
  server: InProcessServer;
  /** As the admin (system:masters), unless `request.authorized` is false or headers say otherwise. */
  send(request: Request): Promise<FuzzResponse>;
  /** As the ordinary user, whose requests APF classifies and queues like anyone's. */
  sendAsOrdinaryUser(request: Request): Promise<FuzzResponse>;
  /** No 5xx, and every error a Status (fuzz-client's rules); also fails if the server would have crashed. */
  assertAnswered(response: FuzzResponse, request: Request): Promise<void>;
  /** The process and the server are as they were before the attack. */
  assertHealthy(): Promise<void>;
  close(): Promise<void>;
}

const PROTOTYPES: readonly [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];

type Snapshot = Map<string, PropertyDescriptor | undefined>;

function snapshotPrototypes(): Snapshot {
  const out: Snapshot = new Map();
  for (const [name, proto] of PROTOTYPES) {
    for (const key of Reflect.ownKeys(proto)) out.set(`${name}.${String(key)}`, Object.getOwnPropertyDescriptor(proto, key));
  }
  return out;
}

function assertSameSnapshot(before: Snapshot): void {
  const now = snapshotPrototypes();
  for (const [key, descriptor] of now) {
    const was = before.get(key);
    assert.ok(was !== undefined, `${key} appeared`);
    assert.ok(descriptor?.value === was.value && descriptor?.get === was.get && descriptor?.set === was.set, `${key} changed`);
  }
  for (const key of before.keys()) assert.ok(now.has(key), `${key} disappeared`);
}

export interface AdversaryOptions {
  /** `--authorization-mode` (`['AlwaysDeny']`: every user but the admin meets 403s). */
  authorizationMode?: string[];
  /** More bearer tokens, besides the admin's and the ordinary user's. */
  users?: InProcessOptions['users'];
  /** The store's request limit (default etcd's 1.5 MiB). */
  maxRequestBytes?: number;
  /** The server's log (default: silent). */
  logger?: InProcessOptions['logger'];
  /** Also serve HTTP/2 over TLS (`server.h2`). */
  http2?: boolean;
}

export async function startAdversary(options: AdversaryOptions = {}): Promise<Adversary> {
  const prototypes = snapshotPrototypes();
  const crashes = trapCrashes();
  const server = await startInProcessServer({
    users: new Map([...(options.users ?? []), [ORDINARY_USER.token, { name: ORDINARY_USER.name, groups: [...ORDINARY_USER.groups] }]]),
    authorizationMode: options.authorizationMode,
    maxRequestBytes: options.maxRequestBytes,
    logger: options.logger,
    http2: options.http2,
  });
  await server.ready();

  const full = (r: Request): FuzzRequest => ({ query: [], headers: {}, authorized: true, body: undefined, ...r });
  const assertNoCrash = (): Promise<void> => crashes.assertNone();

  const adversary: Adversary = {
    server,
    send: (r) => send(server.baseUrl, server.token, full(r)),
    sendAsOrdinaryUser: (r) =>
      send(server.baseUrl, '', { ...full(r), authorized: false, headers: { ...r.headers, Authorization: `Bearer ${ORDINARY_USER.token}` } }),
    async assertAnswered(response, request) {
      await assertNoCrash();
      assertWellFormed(response, full(request));
    },
    async assertHealthy() {
      await assertNoCrash();
      assertSameSnapshot(prototypes);
      const list = await adversary.sendAsOrdinaryUser({ method: 'GET', path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations?limit=1' });
      assert.is(list.status, 200, `an ordinary user's list: ${list.text.slice(0, 300)}`);
      assert.is(JSON.parse(list.text).kind, 'PriorityLevelConfigurationList');
      const metrics = await adversary.send({ method: 'GET', path: '/metrics' });
      assert.is(metrics.status, 200, `/metrics: ${metrics.text.slice(0, 300)}`);
      assert.match(metrics.text, /^apiserver_request_total\{/m);
      const health = await adversary.sendAsOrdinaryUser({ method: 'GET', path: '/healthz' });
      assert.equal([health.status, health.text], [200, 'ok']);
    },
    async close() {
      await server.close();
      crashes.release();
    },
  };
  return adversary;
}
