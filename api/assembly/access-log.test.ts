import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../engine/clock.ts';
import type { RequestContext } from '../request/http-context.ts';
import type { Logger } from '../log.ts';
import { parseRequestInfo } from '../request/request-info.ts';
import { accessLogLine, createAccessLog } from './access-log.ts';

function context(path: string, httpVersion: string, extra: Partial<RequestContext> = {}): RequestContext {
  const url = new URL(path, 'https://x');
  return {
    req: { method: 'GET', url: path, httpVersion, headers: { 'user-agent': 'kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07' } } as unknown as IncomingMessage,
    res: { statusCode: 200 } as unknown as ServerResponse,
    connection: { srcIP: '127.0.0.1:50412', peerCertificates: [], lastAuthentication: undefined, lastTarget: undefined },
    url,
    query: url.searchParams,
    requestInfo: parseRequestInfo('GET', url.pathname, url.searchParams),
    receivedMs: 1_000,
    user: { name: 'jane', groups: ['system:authenticated'] },
    ...extra,
  } as RequestContext;
}

test('one httplog line: canonical verb, URI, Go duration, quoted strings, protocol, status', () => {
  const line = accessLogLine(context('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas?limit=500', '2.0'), 1_002.31);
  assert.is(
    line,
    '"HTTP" verb="LIST" URI="/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas?limit=500" latency="2.31ms" userAgent="kubectl/v1.32.4 (linux/amd64) ' +
      'kubernetes/4cb5f07" audit-ID="" srcIP="127.0.0.1:50412" protocol="HTTP/2.0" resp=200',
  );
  const impersonated = accessLogLine(context('/version', '1.1', { impersonator: { name: 'admin', groups: ['system:masters'] } }), 1_000);
  assert.match(
    impersonated,
    /latency="0s" .* protocol="HTTP\/1\.1" resp=200 addedInfo="\\nadmin\[system:masters\] is impersonating jane\[system:authenticated\]"$/,
  );
});

test('below --v=3 only impersonated requests are logged', () => {
  const lines: string[] = [];
  const logger: Logger = { info: (m) => lines.push(m), warning: () => undefined, error: () => undefined };
  const clock: Clock = { now: () => 1_000, after: () => () => undefined };
  const quiet = createAccessLog({ logger, verbosity: 2, clock });
  quiet(context('/version', '1.1'));
  assert.is(lines.length, 0);
  quiet(context('/version', '1.1', { impersonator: { name: 'admin', groups: [] } }));
  assert.is(lines.length, 1);
  createAccessLog({ logger, verbosity: 3, clock })(context('/version', '2.0'));
  assert.is(lines.length, 2);
});

test.run();
