// The access log: one line per request once its response is done, in kube-apiserver's httplog form
// (klog structured text), so the tools that read kube-apiserver's `"HTTP"` lines read these:
//
//   "HTTP" verb="LIST" URI="/apis/..." latency="2.31ms" userAgent="kubectl/v1.32.4 ..." audit-ID="" srcIP="127.0.0.1:50412" protocol="HTTP/2.0" resp=200
//
// As in kube-apiserver, every request is logged at --v=3 and above; `protocol` (HTTP/1.1 or
// HTTP/2.0) is Fairway's addition. An impersonated request is always logged, whatever the
// verbosity, with Kubernetes' `addedInfo` text naming both users: Fairway writes no audit log, and
// this line is the record of who acted as whom.
import { describeUser } from '../../engine/auth/impersonation.ts';
import { formatGoDuration } from '../../engine/go-duration.ts';
import type { Clock } from '../../engine/clock.ts';
import type { RequestContext } from '../request/http-context.ts';
import type { Logger } from '../log.ts';
import { goQuote } from '../../engine/go-format.ts';
import { reportedVerb } from '../metrics/request-metrics.ts';

/** kube-apiserver's httplog level. */
export const ACCESS_LOG_VERBOSITY = 3;

export interface AccessLogOptions {
  logger: Logger;
  /** --v. */
  verbosity: number;
  /** The clock that stamped `receivedMs`. */
  clock: Clock;
}

/** Called once per request when its response is done; writes the line when it should. */
export type AccessLog = (context: RequestContext) => void;

export function createAccessLog(options: AccessLogOptions): AccessLog {
  const everything = options.verbosity >= ACCESS_LOG_VERBOSITY;
  return (context) => {
    if (!everything && context.impersonator === undefined) return;
    options.logger.info(accessLogLine(context, options.clock.now()));
  };
}

/** `HTTP/1.1` or `HTTP/2.0`, as Go's `Request.Proto` reads. */
export function protocolOf(context: RequestContext): string {
  return `HTTP/${context.req.httpVersion}`;
}

export function accessLogLine(context: RequestContext, nowMs: number): string {
  const { req, res } = context;
  const verb = reportedVerb(req.method ?? 'GET', context.requestInfo, context.query, req.headers['content-type']);
  const latency = formatGoDuration(BigInt(Math.max(0, Math.round((nowMs - context.receivedMs) * 1e6))));
  const srcIP = context.connection?.srcIP ?? '';
  let line =
    `"HTTP" verb=${goQuote(verb)} URI=${goQuote(req.url ?? '')} latency=${goQuote(latency)} userAgent=${goQuote(req.headers['user-agent'] ?? '')}` +
    ` audit-ID="" srcIP=${goQuote(srcIP)} protocol=${goQuote(protocolOf(context))} resp=${res.statusCode}`;
  if (context.impersonator !== undefined && context.user !== undefined) {
    line += ` addedInfo=${goQuote(`\n${describeUser(context.impersonator)} is impersonating ${describeUser(context.user)}`)}`;
  }
  return line;
}
