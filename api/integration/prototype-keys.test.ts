// The reported requests: merge patches with a `__proto__` member, with dryRun, on /status and
// failing with 422, after which an ordinary user's requests used to answer 500 (or the process
// died, or /metrics broke) until a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcessServer } from './testing/in-process.ts';

const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const USER_TOKEN = 'ordinary-user-token';

test('merge patches with __proto__ answer as for an unknown field and leave the server working for everyone', async () => {
  const server = await startInProcessServer({ users: new Map([[USER_TOKEN, { name: 'mallory', groups: ['users'] }]]) });
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => void crashes.push(error);
  process.on('uncaughtException', onCrash);
  try {
    await server.ready();
    const { client } = server;
    // `probes` is one of the suggested FlowSchemas the server keeps.
    assert.is((await client.get(`${FS}/probes`)).status, 200);

    const reported = [
      [`${FS}/probes?dryRun=All`, '{"__proto__":{"polluted":"yes"}}'],
      [`${FS}/probes/status`, '{"__proto__":{"polluted":"yes"}}'],
      [`${FS}/probes`, '{"__proto__":{"error":"x"}}'],
      [`${FS}/probes`, '{"__proto__":{"hasOwnProperty":null}}'],
    ] as const;
    for (const [path, body] of reported) {
      const response = await client.request('PATCH', path, { body, headers: MERGE });
      assert.is(response.status, 200, `${path} ${body}: ${response.text.slice(0, 200)}`);
      assert.match(String(response.headers['warning']), /unknown field \\"__proto__\\"/, `${path} ${body}: ${String(response.headers['warning'])}`);
      const strict = await client.request('PATCH', `${path}${path.includes('?') ? '&' : '?'}fieldValidation=Strict`, { body, headers: MERGE });
      assert.is(strict.status, 422);
      assert.match(strict.json().message, /strict decoding error: unknown field "__proto__"/);
    }
    // A patch that fails validation (422) after reading the key.
    const failing = await client.request('PATCH', `${FS}/probes`, {
      body: '{"__proto__":{"polluted":"yes"},"spec":{"matchingPrecedence":-1}}',
      headers: MERGE,
    });
    assert.is(failing.status, 422);

    assert.is(({} as Record<string, unknown>)['polluted'], undefined);
    assert.type(Object.prototype.hasOwnProperty, 'function');
    const ordinary = await client.request('GET', `${FS}?limit=1`, { token: USER_TOKEN });
    assert.is(ordinary.status, 200, ordinary.text.slice(0, 200));
    const metrics = await client.get('/metrics');
    assert.is(metrics.status, 200);
    assert.match(metrics.text, /^apiserver_request_total\{/m);
    assert.equal(crashes, []);
  } finally {
    process.off('uncaughtException', onCrash);
    await server.close();
  }
});

test.run();
