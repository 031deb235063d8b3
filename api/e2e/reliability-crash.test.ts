// Reliability 2 (docs/reliability.md), crash durability through the API: `fairway serve` on LevelDB takes
// creates, merge patches and deletes of FlowSchemas from four writers while a watch follows the
// collection; the server is SIGKILLed at random moments (seeded: after a random number of
// acknowledged writes plus a random delay) and restarted on the same data directory. After every
// restart: every acknowledged write is there (an update at least at its acknowledged version, a
// delete gone), every object's payload matches its checksum, resource versions never went back,
// and a watch resumed from the last resourceVersion it saw gets every change it missed, with no
// gap and no repeat. 10 kills; FAIRWAY_LONG=1 (or FAIRWAY_CRASH_KILLS=N) for more.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrng, type Prng } from '../../engine/random.ts';
import { startServerProcess, type ServerProcess } from '../commands/testing/server-process.ts';
import { openWatch, sleep, timedRequest, type Endpoint } from '../testing/load.ts';

const LONG = process.env.FAIRWAY_LONG === '1';
const KILLS = Number(process.env.FAIRWAY_CRASH_KILLS ?? (LONG ? 50 : 10));
const SEED = process.env.FAIRWAY_CRASH_SEED ?? 'reliability-crash-1';
const WRITERS = 4;
const GROUP = 'flowcontrol.apiserver.k8s.io';
const FS_PATH = `/apis/${GROUP}/v1/flowschemas`;
const VERSION = 'e2e.fairway.io/version';
const PAYLOAD = 'e2e.fairway.io/payload';
const SUM = 'e2e.fairway.io/sum';

/** What the client knows about one name: acknowledged state plus an operation whose answer was lost. */
interface Known {
  version: number;
  rv: number;
  deleted: boolean;
  /** The operation in flight when the server died: it may or may not have happened. */
  maybe?: 'create' | 'update' | 'delete';
}

const payloadOf = (name: string, version: number) => `${name}:${version}:${'p'.repeat(200 + (version % 7) * 50)}`;
const sumOf = (payload: string) => createHash('sha256').update(payload).digest('hex').slice(0, 16);

const flowSchema = (name: string, version: number) => {
  const payload = payloadOf(name, version);
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [VERSION]: String(version), [PAYLOAD]: payload, [SUM]: sumOf(payload) } },
    spec: {
      priorityLevelConfiguration: { name: 'global-default' },
      matchingPrecedence: 9000,
      rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/nothing'] }] }],
    },
  };
};

const versionPatch = (name: string, version: number) => {
  const payload = payloadOf(name, version);
  return JSON.stringify({ metadata: { annotations: { [VERSION]: String(version), [PAYLOAD]: payload, [SUM]: sumOf(payload) } } });
};

let dir: string;
const known = new Map<string, Known>();
/** Every resourceVersion a write was acknowledged at. */
const ackedRvs = new Set<number>();
/** Every event the watch saw, across restarts, in order. */
const watched: { type: string; name: string; rv: number }[] = [];
let nextName = 0;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fairway-crash-'));
});

test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Cycle {
  killed: boolean;
  acks: number;
}

/** One writer: creates, patches and deletes its own names until the server dies. */
async function writer(endpoint: Endpoint, token: string, prng: Prng, cycle: Cycle, worker: number): Promise<void> {
  const mine = () => [...known].filter(([name, state]) => name.startsWith(`w${worker}-`) && !state.deleted && state.maybe === undefined).map(([name]) => name);
  while (!cycle.killed) {
    const live = mine();
    const roll = prng.next();
    let name: string;
    let op: 'create' | 'update' | 'delete';
    let response;
    if (live.length < 5 || roll < 0.2) {
      op = 'create';
      name = `w${worker}-${nextName++}`;
      known.set(name, { version: 0, rv: 0, deleted: true, maybe: 'create' });
      response = await timedRequest(endpoint, FS_PATH, { method: 'POST', token, body: JSON.stringify(flowSchema(name, 1)), timeoutMs: 10_000 });
    } else {
      name = live[prng.int(live.length)]!;
      const state = known.get(name)!;
      op = roll < 0.8 ? 'update' : 'delete';
      state.maybe = op;
      response =
        op === 'update'
          ? await timedRequest(endpoint, `${FS_PATH}/${name}`, {
              method: 'PATCH',
              token,
              body: versionPatch(name, state.version + 1),
              headers: { 'Content-Type': 'application/merge-patch+json' },
              timeoutMs: 10_000,
            })
          : await timedRequest(endpoint, `${FS_PATH}/${name}`, { method: 'DELETE', token, timeoutMs: 10_000 });
    }
    if (response.status === 0) return; // the server died: the answer is lost, `maybe` stays
    const state = known.get(name)!;
    const expected = op === 'create' ? 201 : 200;
    assert.is(response.status, expected, `${op} ${name}: ${response.text}`);
    const body = JSON.parse(response.text);
    const rv = Number(op === 'delete' ? (body.metadata?.resourceVersion ?? body.details?.resourceVersion) : body.metadata.resourceVersion);
    delete state.maybe;
    if (op === 'delete') state.deleted = true;
    else {
      state.deleted = false;
      state.version = Number(body.metadata.annotations[VERSION]);
      state.rv = rv;
    }
    if (Number.isFinite(rv) && rv > 0) ackedRvs.add(rv);
    cycle.acks++;
  }
}

/** Checks the store against what was acknowledged, then adopts what is there as the new baseline. */
async function verify(endpoint: Endpoint, token: string, floorRv: number): Promise<number> {
  const list = await timedRequest(endpoint, FS_PATH, { token });
  assert.is(list.status, 200, `LIST after restart: ${list.text.slice(0, 500)}`);
  const body = JSON.parse(list.text);
  const listRv = Number(body.metadata.resourceVersion);
  assert.ok(listRv >= floorRv, `the revision never goes back: ${listRv} < ${floorRv}`);
  const present = new Map<string, any>(body.items.filter((item: any) => item.metadata.name.startsWith('w')).map((item: any) => [item.metadata.name, item]));
  for (const [name, state] of known) {
    const object = present.get(name);
    if (object !== undefined) {
      const annotations = object.metadata.annotations;
      const version = Number(annotations[VERSION]);
      assert.is(sumOf(annotations[PAYLOAD]), annotations[SUM], `${name}: payload intact`);
      assert.is(annotations[PAYLOAD], payloadOf(name, version), `${name}: payload is version ${version}'s`);
      assert.ok(Number(object.metadata.resourceVersion) <= listRv, `${name}: rv within the list's`);
      if (state.maybe === undefined) {
        assert.not.ok(state.deleted, `${name}: acknowledged delete is gone`);
        assert.is(version, state.version, `${name}: acknowledged version ${state.version}`);
        assert.is(Number(object.metadata.resourceVersion) >= state.rv, true, `${name}: rv ${object.metadata.resourceVersion} >= acknowledged ${state.rv}`);
      } else if (state.maybe === 'update') {
        assert.ok(
          version === state.version || version === state.version + 1,
          `${name}: version ${version} is the acknowledged ${state.version} or the lost update's`,
        );
      }
      state.version = version;
      state.rv = Number(object.metadata.resourceVersion);
      state.deleted = false;
    } else {
      assert.ok(state.deleted || state.maybe === 'delete' || state.maybe === 'create', `${name}: acknowledged ${state.version} is missing`);
      state.deleted = true;
    }
    delete state.maybe;
  }
  return listRv;
}

test(`${KILLS} SIGKILLs under write load lose no acknowledged write, corrupt nothing, and leave no watch gap`, async () => {
  const prng = createPrng(SEED);
  let lastWatchedRv = 0;
  let floorRv = 0;
  let server: ServerProcess | undefined;
  for (let kill = 0; kill <= KILLS; kill++) {
    server = await startServerProcess({ storageBackend: 'leveldb', dataDir: dir });
    const endpoint = { url: server.url, caPem: server.caPem };
    floorRv = await verify(endpoint, server.token, floorRv);
    if (kill === KILLS) break;

    // Resume the watch where the last one stopped (the first one starts from now).
    const from = lastWatchedRv === 0 ? floorRv : lastWatchedRv;
    const watch = openWatch(endpoint, `${FS_PATH}?watch=true&resourceVersion=${from}`, server.token);
    await watch.until(() => watch.status !== 0);
    assert.is(watch.status, 200, 'the watch resumes without 410');

    const cycle: Cycle = { killed: false, acks: 0 };
    const killAfterAcks = 20 + prng.int(80);
    const delayMs = prng.int(25);
    const failures: unknown[] = [];
    const writers = Array.from({ length: WRITERS }, (_, worker) =>
      writer(endpoint, server!.token, prng.fork(`w${worker}-${kill}`), cycle, worker).catch((error: unknown) => {
        failures.push(error);
        cycle.killed = true;
      }),
    );
    while (cycle.acks < killAfterAcks && failures.length === 0) await sleep(2);
    await sleep(delayMs);
    process.kill(server.pid, 'SIGKILL');
    cycle.killed = true;
    await Promise.all(writers);
    if (failures.length > 0) throw failures[0];
    await server.stop({ keepData: true });
    await watch.until(() => watch.ended);
    for (const event of watch.events) {
      assert.not.equal(event.type, 'ERROR', `watch error: ${JSON.stringify(event.object)}`);
      const rv = Number(event.object.metadata.resourceVersion);
      assert.ok(rv > lastWatchedRv, `watch events only move forward: ${rv} after ${lastWatchedRv}`);
      lastWatchedRv = rv;
      watched.push({ type: event.type, name: event.object.metadata.name, rv });
    }
  }
  // A last watch from the last seen version delivers everything up to the final state.
  const final = openWatch({ url: server!.url, caPem: server!.caPem }, `${FS_PATH}?watch=true&resourceVersion=${lastWatchedRv}&timeoutSeconds=1`, server!.token);
  await final.until(() => final.ended);
  for (const event of final.events) {
    const rv = Number(event.object.metadata.resourceVersion);
    assert.ok(rv > lastWatchedRv, `watch events only move forward: ${rv} after ${lastWatchedRv}`);
    lastWatchedRv = rv;
    watched.push({ type: event.type, name: event.object.metadata.name, rv });
  }
  assert.is(await server!.stop({ keepData: true }), 0, 'the last server exits 0 on SIGTERM');

  const seen = new Set(watched.map((event) => event.rv));
  const missed = [...ackedRvs].filter((rv) => !seen.has(rv));
  assert.equal(missed, [], 'every acknowledged write reached the watch');
  assert.ok(ackedRvs.size > KILLS * 20, `writes were acknowledged: ${ackedRvs.size}`);
  console.log(`\n  reliability-crash: ${KILLS} kills, ${ackedRvs.size} acknowledged writes, ${watched.length} watch events, final revision ${floorRv}`);
});

test.run();
