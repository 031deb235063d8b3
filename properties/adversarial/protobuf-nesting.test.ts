// Protobuf nesting: FlowSchema creates in `application/vnd.kubernetes.protobuf` whose message
// carries something gogo's reader takes in its stride but a naive one does not: an unknown field
// of groups nested thousands deep (closed or left open, at the top or inside metadata), varints of
// up to 12 bytes as a tag, a length or a value, a valid body cut short anywhere, and a
// managedFields[].fieldsV1 whose JSON nests hundreds of levels. Properties, per body:
//   - the server answers with a 2xx or a 4xx Status (a malformed body is a 400), never a 5xx;
//   - the server is intact afterwards (harness.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { encodeMessage } from '../../engine/protobuf/codec.ts';
import { encodeEnvelope } from '../../engine/protobuf/envelope.ts';
import { MESSAGE_PREFIX } from '../../engine/protobuf/go-types.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { sized, startAdversary, type Adversary } from './harness.ts';

const PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';
const SPEC = { priorityLevelConfiguration: { name: 'global-default' } };

function varint(n: number): number[] {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return out;
}
const tag = (field: number, wireType: number) => varint(field * 8 + wireType);
const lengthDelimited = (field: number, bytes: ArrayLike<number>) => [...tag(field, 2), ...varint(bytes.length), ...Array.from(bytes)];
/** A varint of `length` bytes (every byte but the last with its continuation bit). */
const longVarint = (length: number) => [...new Array<number>(length - 1).fill(0xff), 0x01];

const hostileArb = fc.oneof(
  fc
    .record({ depth: fc.integer({ min: 1, max: sized(20_000, 500_000) }), closed: fc.boolean(), field: fc.integer({ min: 20, max: 2000 }) })
    .map(({ depth, closed, field }) => [
      ...tag(field, 3),
      ...new Array<number>(depth).fill(0x0b),
      ...(closed ? [...new Array<number>(depth).fill(0x0c), ...tag(field, 4)] : []),
    ]),
  fc.record({ bytes: fc.integer({ min: 1, max: 12 }), as: fc.constantFrom('tag', 'length', 'value') }).map(({ bytes, as }) => {
    if (as === 'tag') return longVarint(bytes);
    if (as === 'length') return [...tag(99, 2), ...longVarint(bytes)];
    return [...tag(99, 0), ...longVarint(bytes)];
  }),
  fc.integer({ min: 200, max: sized(2_000, 100_000) }).map((depth) => {
    const json = `${'{"f:a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
    const entry = lengthDelimited(7, lengthDelimited(1, Buffer.from(json)));
    return [...tag(17, 2), ...varint(entry.length), ...entry];
  }),
);

const attackArb = fc.record({
  hostile: hostileArb,
  where: fc.constantFrom<'message' | 'metadata'>('message', 'metadata'),
  // Where to cut the whole body, as a share of its length (1: not cut).
  cut: fc.oneof(fc.constant(1), fc.double({ min: 0.3, max: 1, noNaN: true })),
});
type Attack = typeof attackArb extends fc.Arbitrary<infer T> ? T : never;

let adversary: Adversary;
let serial = 0;

test.before(async () => {
  adversary = await startAdversary();
});
test.after(() => adversary.close());

function body(attack: Attack): Buffer {
  const name = `nesting-${++serial}`;
  const meta = encodeMessage(`${MESSAGE_PREFIX.meta}ObjectMeta`, { name });
  const spec = encodeMessage(`${MESSAGE_PREFIX.flowcontrol}FlowSchemaSpec`, SPEC);
  const metadata = attack.where === 'metadata' ? [...meta, ...attack.hostile] : [...meta];
  const message = [...lengthDelimited(1, metadata), ...lengthDelimited(2, spec), ...(attack.where === 'message' ? attack.hostile : [])];
  const whole = encodeEnvelope(API_VERSION, 'FlowSchema', new Uint8Array(message));
  return whole.subarray(0, Math.max(5, Math.floor(whole.length * attack.cut)));
}

async function run(attack: Attack): Promise<void> {
  const request = {
    method: 'POST',
    path: PATH,
    query: [['dryRun', 'All']] as [string, string][],
    headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' },
    body: body(attack),
  };
  const response = await adversary.send(request);
  await adversary.assertAnswered(response, request);
  assert.ok(response.status < 500, `HTTP ${response.status}: ${response.text.slice(0, 300)}`);
}

test('control: the same FlowSchema with nothing hostile in it is created (dry run)', async () => {
  const request = {
    method: 'POST',
    path: PATH,
    query: [['dryRun', 'All']] as [string, string][],
    headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' },
    body: body({ hostile: [], where: 'message', cut: 1 }),
  };
  const response = await adversary.send(request);
  assert.is(response.status, 201, response.text.slice(0, 300));
});

test('deep groups, long varints, cut bodies and deep fieldsV1 are 4xx (or decoded), never a 5xx', async () => {
  await checkAsyncProperty(
    'hostile protobuf nesting is answered as a client error',
    fc.asyncProperty(attackArb, async (attack) => {
      await run(attack);
      await adversary.assertHealthy();
    }),
    { runs: 12 },
  );
});

test('the named cases: 100,000 open groups, an 11-byte tag, a 2,000-level fieldsV1 are each a 400', async () => {
  const cases: Attack[] = [
    { hostile: [...tag(99, 3), ...new Array<number>(100_000).fill(0x0b)], where: 'message', cut: 1 },
    { hostile: longVarint(11), where: 'metadata', cut: 1 },
    {
      hostile: (() => {
        const json = `${'{"f:a":'.repeat(2000)}{}${'}'.repeat(2000)}`;
        const entry = lengthDelimited(7, lengthDelimited(1, Buffer.from(json)));
        return [...tag(17, 2), ...varint(entry.length), ...entry];
      })(),
      where: 'metadata',
      cut: 1,
    },
  ];
  for (const attack of cases) {
    const response = await adversary.send({
      method: 'POST',
      path: PATH,
      query: [['dryRun', 'All']],
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' },
      body: body(attack),
    });
    assert.is(response.status, 400, response.text.slice(0, 300));
  }
  await adversary.assertHealthy();
});

test.run();
