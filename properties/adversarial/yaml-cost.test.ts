// YAML cost: request bodies whose composing would cost far more than their size says. Alias ladders
// (billion laughs), random documents whose aliases name earlier anchors or the very node they sit
// in, and counts of anchors, aliases, nodes and nesting just either side of engine/yaml-cost.ts's
// bounds, sent as the unknown field `x` of a dry-run FlowSchema create. Properties:
//   - the answer is the one a model of the bounds predicts: 201 (the field dropped with a warning)
//     within every bound, and past one a 400 Status naming that bound;
//   - the server answers (no 5xx, every error a Status) and is intact afterwards (harness.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { YAML_COST_LIMITS } from '../../engine/yaml-cost.ts';
import { collectionPath } from '../support/api-requests.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { sized, startAdversary, type Adversary, type Request } from './harness.ts';

const FS = `${collectionPath('FlowSchema')}?dryRun=All`;
const LIMITS = YAML_COST_LIMITS;
/** Nodes the FlowSchema around `x` adds to a document's expansion. */
const WRAPPER_NODES = 40;

let adversary: Adversary;

test.before(async () => {
  adversary = await startAdversary();
});
test.after(async () => {
  await adversary?.close();
});

const document = (x: string, before = '') =>
  `${before}apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: adv-yaml}\n` +
  `spec:\n  priorityLevelConfiguration: {name: global-default}\nx: ${x}\n`;

type Expected = 'accepted' | RegExp;

/** Sends `body` and checks the answer against what is expected (any of them, when the model cannot tell which bound comes first). */
async function sendYaml(body: string, expected: readonly Expected[]): Promise<void> {
  const request: Request = { method: 'POST', path: FS, headers: { 'Content-Type': 'application/yaml' }, body };
  const response = await adversary.send(request);
  await adversary.assertAnswered(response, request);
  const outcome = response.status === 201 ? 'accepted' : `${response.status} ${response.text.slice(0, 400)}`;
  const matches = expected.some((want) =>
    want === 'accepted' ? response.status === 201 : response.status === 400 && want.test(JSON.parse(response.text).message),
  );
  assert.ok(matches, `expected ${expected.map(String).join(' or ')}, got ${outcome}`);
}

const EXCESSIVE = /yaml: document contains excessive aliasing/;
const CONTAINS_ITSELF = /yaml: anchor '[a-z0-9]+' value contains itself/;

test('alias ladders (billion laughs): refused exactly when their expansion passes the bound', async () => {
  await checkAsyncProperty(
    'adversarial: yaml alias ladders',
    fc.asyncProperty(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 12 }), async (levels, fanOut) => {
      // l0 is a list of fanOut scalars; each next level a list of fanOut aliases of the one before.
      let ladder = '\n';
      let size = 1 + fanOut;
      let total = 1 + size; // the key l0 and its list
      ladder += `  l0: &l0 [${Array(fanOut).fill('lol').join(', ')}]\n`;
      for (let level = 1; level < levels; level++) {
        ladder += `  l${level}: &l${level} [${Array(fanOut)
          .fill(`*l${level - 1}`)
          .join(', ')}]\n`;
        size = 1 + fanOut * size;
        total += 1 + size;
        if (total > 10 * LIMITS.expandedNodes) break;
      }
      const expected: Expected[] =
        total > LIMITS.expandedNodes ? [EXCESSIVE] : total + WRAPPER_NODES <= LIMITS.expandedNodes ? ['accepted'] : ['accepted', EXCESSIVE];
      await sendYaml(document(ladder), expected);
    }),
    { runs: 12 },
  );
});

/** A generated YAML value: flow collections and scalars, some anchored, some leaves aliases. */
type Tree = { scalar: string } | { alias: number } | { seq: Tree[] } | { map: Tree[] };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', '1', 'yes', '"q"').map((scalar) => ({ scalar })),
    fc.nat(1000).map((alias) => ({ alias })),
    fc.array(tie('node'), { maxLength: 6 }).map((seq) => ({ seq })),
    fc.array(tie('node'), { maxLength: 6 }).map((map) => ({ map })),
  ),
})).node;

/**
 * Writes `root` as flow YAML, anchoring every third collection, and counts what the bounds count:
 * each alias names an anchor already opened (done, or still open: then it sits inside the node it
 * names).
 */
function render(root: Tree): { text: string; anchors: number; aliases: number; expanded: number; selfReference: boolean } {
  const done: number[] = []; // expanded size per finished anchor, by anchor number
  const open = new Set<number>();
  let anchors = 0;
  let aliases = 0;
  let collections = 0;
  let selfReference = false;
  const write = (node: Tree): { text: string; size: number } => {
    if ('scalar' in node) return { text: node.scalar, size: 1 };
    if ('alias' in node) {
      const known = anchors;
      if (known === 0) return { text: 'plain', size: 1 };
      const target = node.alias % known;
      aliases++;
      if (open.has(target)) selfReference = true;
      return { text: `*n${target}`, size: open.has(target) ? 0 : done[target]! };
    }
    const anchored = collections++ % 3 === 0;
    const number = anchors;
    if (anchored) {
      anchors++;
      open.add(number);
    }
    const items = 'seq' in node ? node.seq : node.map;
    let size = 1;
    const parts: string[] = [];
    items.forEach((item, index) => {
      const written = write(item);
      if ('map' in node) {
        parts.push(`k${index}: ${written.text}`);
        size += 1 + written.size;
      } else {
        parts.push(written.text);
        size += written.size;
      }
    });
    if (anchored) {
      open.delete(number);
      done[number] = size;
    }
    const body = 'seq' in node ? `[${parts.join(', ')}]` : `{${parts.join(', ')}}`;
    return { text: anchored ? `&n${number} ${body}` : body, size };
  };
  const { text, size } = write(root);
  return { text, anchors, aliases, expanded: size, selfReference };
}

test('random documents with anchors and aliases: composed within bounds, an alias inside its own anchor refused', async () => {
  await checkAsyncProperty(
    'adversarial: yaml anchors and aliases',
    fc.asyncProperty(tree, async (root) => {
      const written = render(root);
      const expected: Expected[] = [];
      if (written.selfReference) expected.push(CONTAINS_ITSELF);
      if (written.expanded > LIMITS.expandedNodes - WRAPPER_NODES) expected.push(EXCESSIVE);
      if (!written.selfReference && written.expanded <= LIMITS.expandedNodes) expected.push('accepted');
      await sendYaml(document(written.text), expected);
    }),
    { runs: 40 },
  );
});

test('counts either side of each bound: refused past it with its message, composed up to it', async () => {
  const MARGIN = 5;
  const near = (limit: number) => fc.integer({ min: limit - MARGIN, max: limit + MARGIN });
  const bound = fc.oneof(
    near(LIMITS.anchors).map((n) => ({ n, name: 'anchors', x: `[${Array.from({ length: n }, (_, i) => `&a${i} v`).join(', ')}]`, extra: 0 })),
    // One anchor and n aliases of it (as written, the alias count is the bound met first).
    near(LIMITS.aliases).map((n) => ({ n, name: 'aliases', x: `[&a v, ${Array(n).fill('*a').join(', ')}]`, extra: 0 })),
    // Flow nesting: the bound counts three levels before `x`'s brackets (two for the document's
    // indentation column, one for `x:`).
    near(LIMITS.depth).map((n) => ({ n, name: 'depth', x: `${'['.repeat(n - 3)}${']'.repeat(n - 3)}`, extra: 0 })),
    // Nodes: the document around `x` is counted too (its scalars, its `:`), measured below.
    fc.integer({ min: -MARGIN, max: MARGIN }).map((offset) => ({ n: LIMITS.nodes + offset, name: 'nodes', x: '', extra: offset })),
  );
  await checkAsyncProperty(
    'adversarial: yaml cost bounds',
    fc.asyncProperty(bound, async ({ n, name, x, extra }) => {
      if (name === 'nodes') {
        // `x: [0, 0, ...]`: the list's `[` and each item are nodes; the rest of the document is BASE nodes.
        const items = LIMITS.nodes - BASE_NODES - 1 + extra;
        const body = document(`[${Array(items).fill('0').join(',')}]`);
        await sendYaml(body, extra > 0 ? [/yaml: document has more than 100000 nodes/] : ['accepted']);
        return;
      }
      const limit = LIMITS[name as 'anchors' | 'aliases' | 'depth'];
      const refusal =
        name === 'depth' ? /^the request body nests objects and lists more than 256 levels deep$/ : new RegExp(`yaml: document has more than ${limit} ${name}`);
      await sendYaml(document(x), n > limit ? [refusal] : ['accepted']);
    }),
    { runs: sized(16, 200) },
  );
  await adversary.assertHealthy();
});

/** Nodes the document around `x` counts besides `x`'s own: its 14 scalars and flow maps, and its 8 `:`. */
const BASE_NODES = 22;

test.run();
