// The server bench/apf.bench.ts loads: the API server's own request path (api/assembly/request-path.ts)
// with a trivial resource handler, so a request ends the way `fairway serve` ends it (end hooks once
// the chain has settled, then the response flushed). A bare `createServer` + `chain(...)` never runs
// end hooks: the APF filter's seats were never released, and once the level's seats were taken every
// later request waited out its queue wait limit or was rejected (about 4 req/s with APF on).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realClock } from '../engine/clock.ts';
import type { FlowController } from '../engine/flowcontrol/controller.ts';
import type { UserInfo } from '../engine/auth/user-info.ts';
import { silentLogger } from '../api/log.ts';
import type { Filter, Handler } from '../api/request/http-context.ts';
import { createApiServer, type ApiServer } from '../api/assembly/request-path.ts';

export const BENCH_POD_PATH = '/api/v1/namespaces/default/pods/p';
const BODY = '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"default"}}';

/**
 * Authentication's stand-in: the user named by `x-user`, in the group every authenticated user has;
 * one UserInfo per name, as authenticators hand out one per credential (APF's classifier keeps its
 * answers by that object).
 */
function userFromHeader(): Filter {
  const users = new Map<string, UserInfo>();
  return (context, next) => {
    const header = context.req.headers['x-user'];
    const name = typeof header === 'string' ? header : 'anonymous';
    let user = users.get(name);
    if (user === undefined) users.set(name, (user = { name, groups: ['system:authenticated'] }));
    context.user = user;
    return next();
  };
}

const answerPod: Handler = (context) => {
  context.res.setHeader('Content-Type', 'application/json');
  context.res.end(BODY);
  return undefined;
};

export interface BenchServer {
  server: Server;
  api: ApiServer;
  port: number;
}

/** A loopback HTTP/1.1 server: the user from `x-user`, then `filters`, then a 90-byte pod. */
export async function startBenchServer(filters: readonly Filter[]): Promise<BenchServer> {
  const api = createApiServer({
    clock: realClock(),
    logger: silentLogger,
    requestTimeoutMs: 60_000,
    filters: [userFromHeader(), ...filters],
    health: { healthz: [], livez: [], readyz: [] },
    resources: answerPod,
    describe: async () => false,
  });
  const server = createServer(api.handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, api, port: (server.address() as AddressInfo).port };
}

/** Seats in use and requests waiting, summed over the controller's levels: both 0 once every request has ended. */
export function seatsHeld(controller: FlowController): { seatsInUse: number; waiting: number } {
  let seatsInUse = 0;
  let waiting = 0;
  for (const level of controller.dump().levels) {
    seatsInUse += level.queueSet.seatsInUse;
    waiting += level.queueSet.waitingRequests;
  }
  return { seatsInUse, waiting };
}
