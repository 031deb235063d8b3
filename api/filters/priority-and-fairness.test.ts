import { once } from 'node:events';
import { createServer, IncomingMessage, request as httpRequest, ServerResponse, type Server } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realClock, type Clock } from '../../engine/clock.ts';
import type { FlowController } from '../../engine/flowcontrol/controller.ts';
import { InterestedWatches } from '../../engine/flowcontrol/interested-watches.ts';
import type { RequestInfo } from '../../engine/request/request-info.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import { SimClock } from '../../engine/sim-clock.ts';
import { chain, type RequestContext } from '../request/http-context.ts';
import { AUTHENTICATED, FLOOD_SCHEMA_UID, MASTERS, newTestController, podsInfo, TINY_LEVEL_UID } from './testing/apf-fixtures.ts';
import { UNDETACHED, withEndHooks } from '../request/testing/request-context.ts';
import {
  createPriorityAndFairnessFilter,
  FLOW_SCHEMA_UID_HEADER,
  isLongRunning,
  MAX_QUEUE_WAIT_MS,
  PRIORITY_LEVEL_UID_HEADER,
  queueWaitLimitMs,
  type PriorityAndFairnessFilterObserver,
} from './priority-and-fairness.ts';

// --- a tiny server: the filter in front of a test handler ------------------------------------

/** Enough of request-info for the test paths: /api/v1/namespaces/<ns>/pods[/<name>[/<sub>]]. */
function requestInfoOf(method: string, url: URL): RequestInfo {
  const parts = url.pathname.split('/').filter((p) => p !== '');
  if (parts[0] !== 'api')
    return {
      isResourceRequest: false,
      path: url.pathname,
      verb: method.toLowerCase(),
      apiGroup: '',
      apiVersion: '',
      namespace: '',
      resource: '',
      subresource: '',
      name: '',
    };
  const [, , , namespace = '', , name = '', subresource = ''] = parts;
  const watch = url.searchParams.get('watch') === '1';
  const verb = method === 'POST' ? 'create' : watch ? 'watch' : name === '' ? 'list' : 'get';
  return { ...podsInfo(verb, namespace, name), path: url.pathname, subresource };
}

function userOf(req: IncomingMessage): UserInfo | undefined {
  const name = req.headers['x-user'];
  if (typeof name !== 'string') return undefined;
  const groups = req.headers['x-groups'];
  return { name, groups: typeof groups === 'string' ? groups.split(',') : [] };
}

interface Harness {
  server: Server;
  port: number;
  controller: FlowController;
  tracker: InterestedWatches;
  close(): Promise<void>;
}

async function startServer(options: {
  enforce: boolean;
  handler: (context: RequestContext) => Promise<void>;
  observer?: PriorityAndFairnessFilterObserver;
}): Promise<Harness> {
  const clock = realClock();
  const tracker = new InterestedWatches();
  const controller = newTestController({ clock, watchTracker: tracker });
  const filter = createPriorityAndFairnessFilter({
    controller,
    enforce: options.enforce,
    clock,
    watchTracker: tracker,
    observer: options.observer,
  });
  const run = chain([filter], options.handler);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const aborter = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    let markInitialized = () => {};
    const requestInfo = requestInfoOf(req.method ?? 'GET', url);
    const watchInitialized = requestInfo.verb === 'watch' ? new Promise<void>((resolve) => (markInitialized = resolve)) : Promise.resolve();
    const receivedMs = clock.now();
    const context = withEndHooks<RequestContext>({
      req,
      res,
      url,
      query: url.searchParams,
      requestInfo,
      user: userOf(req),
      receivedMs,
      deadlineMs: receivedMs + 60_000,
      signal: aborter.signal,
      watchInitialized,
      markWatchInitialized: () => markInitialized(),
      ...UNDETACHED,
    });
    // The end of the request as the server ends it: the end hooks once the chain has settled.
    const answered = run(context);
    if (answered === undefined) context.runEndHooks();
    else
      answered.then(context.runEndHooks, (error: unknown) => {
        res.destroy(error as Error);
        context.runEndHooks();
      });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    controller,
    tracker,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Resolves with the reply; a connection error rejects, and is also noted so that no rejection goes unhandled when a test fails early. */
function send(port: number, path: string, user: string, groups: string[], onRequest?: (req: ReturnType<typeof httpRequest>) => void): Promise<Reply> {
  const reply = new Promise<Reply>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, headers: { 'x-user': user, 'x-groups': groups.join(',') } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
    onRequest?.(req);
  });
  reply.catch(() => undefined);
  return reply;
}

/** A latch the test opens to let held handlers finish. */
function latch() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Polls a condition across event-loop turns (no wall-clock threshold: it only bounds the wait). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  assert.unreachable(`never happened: ${what}`);
}

const tiny = (controller: FlowController) => controller.dump().levels.find((l) => l.name === 'tiny')!.queueSet;

async function respond(context: RequestContext, body: string): Promise<void> {
  if (!context.res.headersSent) context.res.setHeader('Content-Type', 'text/plain');
  context.res.end(body);
  await once(context.res, 'finish');
}

// --- enforcing -------------------------------------------------------------------------------

test('a flood of one flow gets 429 with the plain-text body, headers and Retry-After, while exempt requests succeed', async () => {
  const gate = latch();
  let entered = 0;
  const levelsSeen = new Set<string>();
  const h = await startServer({
    enforce: true,
    handler: async (context) => {
      if (context.user?.name === 'mallory') {
        entered++;
        levelsSeen.add(context.priorityLevelUid);
        await gate.opened;
      }
      await respond(context, 'ok');
    },
  });
  try {
    const flood = Array.from({ length: 8 }, () => send(h.port, '/api/v1/namespaces/default/pods', 'mallory', AUTHENTICATED));
    await eventually(() => tiny(h.controller).rejected === 4 && tiny(h.controller).waitingRequests === 2, '4 rejected, 2 waiting');
    assert.is(entered, 2);
    assert.is(tiny(h.controller).executingRequests, 2);

    const root = await send(h.port, '/api/v1/namespaces/default/pods', 'root', MASTERS);
    assert.is(root.status, 200);
    assert.is(root.headers[FLOW_SCHEMA_UID_HEADER.toLowerCase()], '', 'the imagined exempt schema has no UID');
    assert.is(root.headers[PRIORITY_LEVEL_UID_HEADER.toLowerCase()], '');

    gate.open();
    const replies = await Promise.all(flood);
    const rejected = replies.filter((r) => r.status === 429);
    assert.is(rejected.length, 4);
    assert.is(replies.filter((r) => r.status === 200).length, 4);
    for (const r of rejected) {
      assert.is(r.body, 'Too many requests, please try again later.\n');
      assert.is(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.is(r.headers['x-content-type-options'], 'nosniff');
      assert.match(String(r.headers['retry-after']), /^[1-9][0-9]*$/);
    }
    for (const r of replies) {
      assert.is(r.headers[FLOW_SCHEMA_UID_HEADER.toLowerCase()], FLOOD_SCHEMA_UID);
      assert.is(r.headers[PRIORITY_LEVEL_UID_HEADER.toLowerCase()], TINY_LEVEL_UID);
    }
    assert.equal([...levelsSeen], [TINY_LEVEL_UID], 'the handler is told the level its header names (its streaming body is written under it)');
    await eventually(() => tiny(h.controller).isIdle, 'tiny idle');
  } finally {
    await h.close();
  }
});

test('seats are held until the response is completely written, not when the handler first writes', async () => {
  const gate = latch();
  let flushed = false;
  const h = await startServer({
    enforce: true,
    handler: async (context) => {
      context.res.write('first part ', () => (flushed = true));
      await gate.opened;
      await respond(context, 'rest');
    },
  });
  try {
    const reply = send(h.port, '/api/v1/namespaces/default/pods/p1', 'mallory', AUTHENTICATED);
    await eventually(() => flushed, 'first chunk on the wire');
    assert.is(tiny(h.controller).executingRequests, 1);
    assert.is(tiny(h.controller).seatsInUse, 1);
    gate.open();
    assert.is((await reply).body, 'first part rest');
    await eventually(() => tiny(h.controller).executingRequests === 0 && tiny(h.controller).seatsInUse === 0, 'released');
  } finally {
    await h.close();
  }
});

test('a watch releases its seats when initialised, keeps streaming, and stays registered until it ends', async () => {
  const gate = latch();
  const h = await startServer({
    enforce: true,
    handler: async (context) => {
      context.res.writeHead(200, { 'Content-Type': 'application/json' });
      context.res.write('{"type":"ADDED"}\n');
      context.markWatchInitialized();
      await gate.opened;
      await respond(context, '{"type":"MODIFIED"}\n');
    },
  });
  try {
    const reply = send(h.port, '/api/v1/namespaces/default/pods?watch=1', 'mallory', AUTHENTICATED);
    await eventually(() => h.tracker.size === 1, 'watch registered');
    await eventually(() => tiny(h.controller).executingRequests === 0 && tiny(h.controller).dispatched === 1, 'seats released at initialisation');
    assert.is(h.tracker.countInterested(podsInfo('create')), 1, 'a pod create now counts the watch');
    gate.open();
    assert.is((await reply).body, '{"type":"ADDED"}\n{"type":"MODIFIED"}\n');
    await eventually(() => h.tracker.size === 0, 'watch forgotten');
  } finally {
    await h.close();
  }
});

test('a client that disconnects while queued leaves the queue (counted as cancelled)', async () => {
  const gate = latch();
  const h = await startServer({
    enforce: true,
    handler: async (context) => {
      await gate.opened;
      await respond(context, 'ok');
    },
  });
  try {
    const held = [0, 1].map(() => send(h.port, '/api/v1/namespaces/default/pods', 'mallory', AUTHENTICATED));
    await eventually(() => tiny(h.controller).executingRequests === 2, 'level full');
    let client: ReturnType<typeof httpRequest> | undefined;
    const queued = send(h.port, '/api/v1/namespaces/default/pods', 'mallory', AUTHENTICATED, (req) => (client = req)).catch((e: Error) => e);
    await eventually(() => tiny(h.controller).waitingRequests === 1, 'queued');
    client!.destroy();
    await eventually(() => tiny(h.controller).waitingRequests === 0, 'left the queue');
    assert.is(tiny(h.controller).cancelled, 1);
    assert.is(tiny(h.controller).dispatched, 2, 'the cancelled request never ran');
    assert.instance(await queued, Error);
    gate.open();
    await Promise.all(held);
  } finally {
    await h.close();
  }
});

test('long-running requests other than watches bypass APF; a request without a user is a 500', async () => {
  assert.ok(isLongRunning({ ...podsInfo('get', 'default', 'p'), subresource: 'exec' }));
  assert.ok(isLongRunning(podsInfo('proxy', 'default', 'p')));
  assert.ok(isLongRunning(podsInfo('watch')), 'watch is long-running, but APF handles it anyway');
  assert.not.ok(isLongRunning({ ...podsInfo('get', 'default', 'p'), subresource: 'status' }));
  const h = await startServer({ enforce: true, handler: (context) => respond(context, 'ok') });
  try {
    const exec = await send(h.port, '/api/v1/namespaces/default/pods/p/exec', 'mallory', AUTHENTICATED);
    assert.is(exec.status, 200);
    assert.is(exec.headers[FLOW_SCHEMA_UID_HEADER.toLowerCase()], undefined, 'never classified');
    assert.is(tiny(h.controller).dispatched, 0);
    const anonymous = await new Promise<Reply>((resolve) => {
      httpRequest({ host: '127.0.0.1', port: h.port, path: '/api/v1/namespaces/default/pods', agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      }).end();
    });
    assert.is(anonymous.status, 500);
    assert.is(anonymous.body, 'Internal Server Error: "/api/v1/namespaces/default/pods": no User found in context\n');
  } finally {
    await h.close();
  }
});

test('the queue wait limit is a quarter of the deadline, at most a minute, counted from arrival', () => {
  assert.is(queueWaitLimitMs(1000, 61_000, 1000, 15_000), 15_000);
  assert.is(queueWaitLimitMs(1000, 61_000, 4000, 15_000), 12_000, 'time already spent before APF counts');
  assert.is(queueWaitLimitMs(0, 3_600_000, 0, 15_000), MAX_QUEUE_WAIT_MS);
  assert.is(queueWaitLimitMs(0, 400, 500, 15_000), 0, 'never negative');
});

// server/filters/priority-and-fairness.go getRequestWaitContext: a request without a deadline
// (endpoints/filters/request_deadline.go gives long-running requests, i.e. watches, none) waits
// defaultRequestWaitLimit, which kube-apiserver sets to --request-timeout / 4; capped at 1 min.
test('a request without a deadline (a watch) waits the server default, request timeout / 4, not the one-minute cap', async () => {
  assert.is(queueWaitLimitMs(1000, Number.POSITIVE_INFINITY, 1000, 15_000), 15_000);
  assert.is(queueWaitLimitMs(1000, Number.POSITIVE_INFINITY, 3000, 15_000), 13_000, 'counted from arrival');
  assert.is(queueWaitLimitMs(0, Number.POSITIVE_INFINITY, 0, 120_000), MAX_QUEUE_WAIT_MS, 'the cap still applies');

  const clock = new SimClock(1_000_000);
  const controller = newTestController({ clock });
  const filter = createPriorityAndFairnessFilter({ controller, enforce: true, clock });
  const start = (info: RequestInfo, deadlineInMs: number) => {
    const r = fakeContext(clock, deadlineInMs, info);
    return { ...r, served: filter(r.context, r.run) };
  };
  const a = start(podsInfo('list'), 60_000);
  const b = start(podsInfo('list'), 60_000);
  const watch = start(podsInfo('watch'), Number.POSITIVE_INFINITY);
  await settle();
  assert.is(tiny(controller).waitingRequests, 1, 'the watch waits behind two executing lists');
  clock.advance(controller.defaultWaitLimitMs - 1);
  assert.is(tiny(controller).waitingRequests, 1);
  clock.advance(1);
  await watch.served;
  assert.is(watch.context.res.statusCode, 429, 'rejected after request-timeout / 4 = 15 s, not after 60 s');
  a.done();
  b.done();
  await Promise.all([a.served, b.served]);
});

test('a queued request waits a quarter of its deadline counted from its arrival at the server: time before APF is used up', async () => {
  const clock = new SimClock(1_000_000);
  const controller = newTestController({ clock });
  const filter = createPriorityAndFairnessFilter({ controller, enforce: true, clock });
  const a = fakeContext(clock);
  const b = fakeContext(clock);
  const served = [filter(a.context, a.run), filter(b.context, b.run)];
  const late = fakeContext(clock, 60_000);
  clock.advance(4_000); // spent in the filters before APF (an authentication webhook, say)
  const lateServed = filter(late.context, late.run);
  await settle();
  assert.is(tiny(controller).waitingRequests, 1);
  clock.advance(11_000 - 1);
  assert.is(tiny(controller).waitingRequests, 1, 'still within 15 s - 4 s');
  clock.advance(1);
  await lateServed;
  assert.is(late.context.res.statusCode, 429);
  a.done();
  b.done();
  await Promise.all(served);
});

test('an exempt request holds its seat until its response is written, and one whose client stops reading releases it when the connection closes', async () => {
  const gate = latch();
  let flushed = false;
  let bigEnded = false;
  // More than loopback socket buffers take, so the body stays in user space while the client does not read.
  const big = 'x'.repeat(32 * 1024 * 1024);
  const h = await startServer({
    enforce: true,
    handler: async (context) => {
      if (context.requestInfo.name === 'big') {
        context.res.end(big);
        bigEnded = true;
        return;
      }
      context.res.write('first part ', () => (flushed = true));
      await gate.opened;
      await respond(context, 'rest');
    },
  });
  const exempt = () => h.controller.dump().levels.find((l) => l.name === 'exempt')!.queueSet;
  try {
    const reply = send(h.port, '/api/v1/namespaces/default/pods/p1', 'root', MASTERS);
    await eventually(() => flushed, 'first chunk on the wire');
    const client = httpRequest(
      {
        host: '127.0.0.1',
        port: h.port,
        path: '/api/v1/namespaces/default/pods/big',
        agent: false,
        headers: { 'x-user': 'root', 'x-groups': MASTERS.join(',') },
      },
      (res) => res.pause(),
    );
    client.on('error', () => undefined);
    client.end();
    await eventually(() => bigEnded, 'the big response ended by its handler');
    await settle();
    assert.is(exempt().executingRequests, 2, 'the unread body still holds its seat');
    assert.is(exempt().seatsInUse, 2);
    client.destroy();
    await eventually(() => exempt().seatsInUse === 1, 'released when its connection closed');
    gate.open();
    assert.is((await reply).body, 'first part rest');
    await eventually(() => exempt().executingRequests === 0 && exempt().seatsInUse === 0, 'released');
    assert.is(exempt().dispatched, 2);
    assert.is(tiny(h.controller).dispatched, 0);
  } finally {
    await h.close();
  }
});

// --- shadow mode -----------------------------------------------------------------------------

test('shadow mode never holds back or rejects: the whole flood runs at once and would-be rejections are reported', async () => {
  const gate = latch();
  let entered = 0;
  const wouldBe: string[] = [];
  const h = await startServer({
    enforce: false,
    observer: {
      unenforcedRejection: (_context, outcome) => wouldBe.push(outcome.decision.kind === 'reject' ? outcome.decision.reason : 'execute'),
      rejected: () => assert.unreachable('shadow mode answered 429'),
    },
    handler: async (context) => {
      entered++;
      await gate.opened;
      await respond(context, 'ok');
    },
  });
  try {
    const flood = Array.from({ length: 8 }, () => send(h.port, '/api/v1/namespaces/default/pods', 'mallory', AUTHENTICATED));
    await eventually(() => entered === 8, 'all 8 running');
    // The books: two shadows execute, two wait, four were rejected.
    assert.is(tiny(h.controller).executingRequests, 2);
    assert.is(tiny(h.controller).waitingRequests, 2);
    assert.equal(wouldBe, ['queue-full', 'queue-full', 'queue-full', 'queue-full']);
    gate.open();
    const replies = await Promise.all(flood);
    assert.ok(replies.every((r) => r.status === 200 && r.headers[FLOW_SCHEMA_UID_HEADER.toLowerCase()] === FLOOD_SCHEMA_UID));
    // The waiting shadows run after the first ones finish, for as long as their requests took.
    await eventually(() => tiny(h.controller).isIdle, 'shadow books drained');
    assert.is(tiny(h.controller).dispatched, 4);
  } finally {
    await h.close();
  }
});

/** A request context on a virtual clock, without a socket. */
function fakeContext(
  clock: Clock,
  deadlineInMs = 60_000,
  requestInfo = podsInfo('list'),
): { context: RequestContext; done: () => void; run: () => Promise<void> } {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  let done = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const url = new URL('http://localhost/api/v1/namespaces/default/pods');
  const now = clock.now();
  const context: RequestContext = {
    req,
    res,
    url,
    query: url.searchParams,
    requestInfo,
    user: { name: 'mallory', groups: AUTHENTICATED },
    receivedMs: now,
    deadlineMs: now + deadlineInMs,
    signal: new AbortController().signal,
    watchInitialized: Promise.resolve(),
    markWatchInitialized: () => {},
    ...UNDETACHED,
  };
  return { context, done, run: () => finished };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('shadow accounting: a queued shadow starts when the queue set dispatches it and lasts as long as its real request did', async () => {
  const clock = new SimClock(1_000_000);
  const waits: number[] = [];
  const controller = newTestController({ clock, observer: { dispatched: (_d, waitMs) => waits.push(waitMs) } });
  const wouldBe: string[] = [];
  const filter = createPriorityAndFairnessFilter({
    controller,
    enforce: false,
    clock,
    observer: { unenforcedRejection: (_c, o) => wouldBe.push(o.decision.kind === 'reject' ? o.decision.reason : '') },
  });
  const level = () => tiny(controller);
  const start = (deadlineInMs?: number) => {
    const r = fakeContext(clock, deadlineInMs);
    const served = filter(r.context, r.run);
    return { ...r, served };
  };
  const a = start();
  const b = start();
  const c = start();
  const f = start(40); // waits at most 10 ms
  await settle();
  assert.is(level().executingRequests, 2, 'A and B execute');
  assert.is(level().waitingRequests, 2, 'C and F wait in the books, though they run for real');

  clock.advance(10);
  c.done(); // C's real request took 10 ms
  await c.served;
  assert.is(level().waitingRequests, 1, 'F timed out of the queue');
  assert.equal(wouldBe, ['time-out']);
  f.done();
  await f.served;

  clock.advance(40); // t = 50
  a.done();
  await a.served;
  assert.is(level().executingRequests, 2, 'A finished; C dispatched in its place');
  assert.is(waits.at(-1), 50, 'C waited 50 ms in the books');
  clock.advance(9); // t = 59
  assert.is(level().executingRequests, 2, 'C still holds its seat');
  clock.advance(1); // t = 60 = 50 + 10
  assert.is(level().executingRequests, 1, 'C held it exactly as long as its real request took');
  b.done();
  await b.served;
  assert.ok(level().isIdle);
  assert.is(level().dispatched, 3);
});

test.run();
