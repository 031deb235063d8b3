// The APF bench's server ends requests the way the API server does: a request admitted through APF
// holds a seat while its handler runs and gives it back once its response is out.
import { request as httpRequest } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realClock } from '../engine/clock.ts';
import { createPriorityAndFairnessFilter } from '../api/filters/priority-and-fairness.ts';
import type { Filter } from '../api/request/http-context.ts';
import { defaultApfConfig, newTestController } from '../api/filters/testing/apf-fixtures.ts';
import { BENCH_POD_PATH, seatsHeld, startBenchServer } from './apf-bench-server.ts';

function get(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path: BENCH_POD_PATH, agent: false, headers: { 'x-user': 'alice' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

test('a request through the bench server holds its APF seat while handled and releases it once answered', async () => {
  const clock = realClock();
  const controller = newTestController({ clock, config: defaultApfConfig(), serverConcurrencyLimit: 600 });
  const whileHandled: ReturnType<typeof seatsHeld>[] = [];
  const recordSeats: Filter = (_context, next) => {
    whileHandled.push(seatsHeld(controller));
    return next();
  };
  const { server, api, port } = await startBenchServer([createPriorityAndFairnessFilter({ controller, enforce: true, clock }), recordSeats]);
  try {
    assert.is(await get(port), 200);
    assert.is(await get(port), 200);
    for (let i = 0; i < 200 && api.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(whileHandled, [
      { seatsInUse: 1, waiting: 0 },
      { seatsInUse: 1, waiting: 0 },
    ]);
    assert.equal(seatsHeld(controller), { seatsInUse: 0, waiting: 0 });
    assert.is(controller.dump().levels.find((l) => l.name === 'global-default')?.queueSet.dispatched, 2);
  } finally {
    server.close();
  }
});

test.run();
