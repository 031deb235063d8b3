// A YAML LIST is each object's kept YAML item between the list's head and tail, a protobuf LIST
// the list message around each object's kept message, and a Table each object's kept row with its
// Age of the moment: byte for byte the YAML, the protobuf and the Table of the list value (as the
// JSON LIST of the same query gives it), for selectors, pages, an empty result, resourceVersion
// forms, both kinds and every includeObject form; the same again once the items are kept, and with
// no budget to keep them (--encoding-cache-bytes=0).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { yamlText } from '../../engine/store/yaml-text.ts';
import { goJsonText } from '../../engine/store/go-json.ts';
import { encodeObject, keptObjectMessage } from '../../engine/protobuf/objects.ts';
import { toTable, type IncludeObject } from '../../engine/render/table.ts';
import { startInProcessServer, type InProcessServer } from './testing/in-process.ts';

const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const QUERIES = ['', '?labelSelector=team%3Da', '?fieldSelector=metadata.name%3Dyaml-3', '?limit=2', '?labelSelector=team%3Dnobody', '?resourceVersion=0'];

async function seed(server: InProcessServer): Promise<void> {
  await server.ready();
  for (let i = 0; i < 6; i++) {
    const fs = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: {
        name: `yaml-${i}`,
        labels: { team: i % 2 === 0 ? 'a' : 'b' },
        annotations: { note: i === 1 ? 'multi\nline\n\nwith a blank' : `- ${i}: "quoted"` },
      },
      spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 9000 + i, rules: [] },
    };
    assert.is((await server.client.request('POST', FS, { body: fs })).status, 201);
  }
  // The Dangling condition is written just after each create: wait for it, so the lists compared stay the same.
  const settled = () =>
    server.client.get(FS).then((r) => r.json().items.every((i: { status?: { conditions?: unknown[] } }) => (i.status?.conditions?.length ?? 0) > 0));
  while (!(await settled())) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function checkQueries(server: InProcessServer): Promise<void> {
  for (const query of QUERIES) {
    const json = await server.client.get(`${FS}${query}`);
    const continued = json.json().metadata.continue;
    for (let round = 0; round < 2; round++) {
      const yaml = await server.client.request('GET', `${FS}${query}`, { headers: { Accept: 'application/yaml' } });
      assert.is(yaml.status, 200, query);
      assert.is(yaml.headers['content-type'], 'application/yaml', query);
      assert.is(yaml.text, yamlText(json.json()), `${query} (round ${round})`);
      const protobuf = await server.client.request('GET', `${FS}${query}`, { headers: { Accept: PROTOBUF } });
      assert.is(protobuf.headers['content-type'], PROTOBUF, query);
      // The whole list value through the codec: what the kept items' parts must add up to.
      assert.ok(protobuf.bytes.equals(encodeObject(json.json())), `protobuf ${query} (round ${round})`);
    }
    if (continued !== undefined) {
      const next = `${FS}?limit=2&continue=${encodeURIComponent(continued)}`;
      const yaml = await server.client.request('GET', next, { headers: { Accept: 'application/yaml' } });
      assert.is(yaml.text, yamlText((await server.client.get(next)).json()), 'the next page');
    }
  }
}

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';

async function checkTables(server: InProcessServer): Promise<void> {
  for (const [path, kind] of [
    [FS, 'FlowSchema'],
    [PLC, 'PriorityLevelConfiguration'],
  ] as const) {
    for (const query of ['', '?limit=3', '?includeObject=None', '?includeObject=Object', '?labelSelector=team%3Da&includeObject=Metadata']) {
      const list = (await server.client.get(`${path}${query}`)).json();
      const includeObject = /includeObject=(\w+)/.exec(query)?.[1] ?? 'Metadata';
      for (let round = 0; round < 2; round++) {
        const table = await server.client.request('GET', `${path}${query}`, { headers: { Accept: TABLE_ACCEPT } });
        assert.is(table.status, 200, query);
        // The expected Table at any instant, then with the Ages the server wrote at its own.
        const expected = toTable(kind, list.items, { nowMs: 0, includeObject: includeObject as IncludeObject, listMeta: list.metadata });
        const ageColumn = expected.columnDefinitions!.findIndex((c) => c.name === 'Age');
        const rows = table.json().rows as { cells: unknown[] }[];
        assert.is(rows.length, expected.rows.length, `${path}${query}`);
        rows.forEach((row, i) => {
          assert.match(String(row.cells[ageColumn]), /^\d+s$/);
          expected.rows[i]!.cells[ageColumn] = row.cells[ageColumn];
        });
        assert.is(table.text, `${goJsonText(expected)}\n`, `${path}${query} (round ${round})`);
      }
    }
  }
}

test('YAML, protobuf and Table LISTs from kept items equal the encoding of the whole list, kept or not', async () => {
  for (const encodingCacheBytes of [undefined, 0]) {
    const server = await startInProcessServer({ encodingCacheBytes });
    try {
      await seed(server);
      await checkQueries(server);
      await checkTables(server);
      const metrics = (await server.client.get('/metrics')).text;
      const kept = Number(/^fairway_encoding_cache_bytes (\S+)$/m.exec(metrics)?.[1]);
      if (encodingCacheBytes === 0) assert.is(kept, 0, 'nothing kept without a budget');
      else assert.ok(kept > 0, `items are kept: ${kept} bytes`);
    } finally {
      await server.close();
    }
  }
});

test('a version replaced by a newer one lets its kept message go, and its lists stay right', async () => {
  const server = await startInProcessServer();
  try {
    await seed(server);
    const schemas = server.store.for({
      group: 'flowcontrol.apiserver.k8s.io',
      resource: 'flowschemas',
      kind: 'FlowSchema',
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    });
    assert.is((await server.client.request('GET', FS, { headers: { Accept: PROTOBUF } })).status, 200);
    // A Table LIST before the change, whose rows the next one would reuse were the versions the same.
    assert.match((await server.client.request('GET', FS, { headers: { Accept: TABLE_ACCEPT } })).text, /"team":"a"|"name":"yaml-2"/);
    const old = schemas.getNow('yaml-2')!;
    assert.ok(keptObjectMessage(old) !== undefined, 'kept by the LIST');
    const patched = await server.client.request('PATCH', `${FS}/yaml-2`, {
      body: { metadata: { labels: { team: 'c' } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.is(patched.status, 200);
    assert.is(keptObjectMessage(old), undefined, 'the past version keeps no message');
    await checkQueries(server);
    await checkTables(server);
  } finally {
    await server.close();
  }
});

test.run();
