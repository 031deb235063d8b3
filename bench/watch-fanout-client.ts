// The watch fan-out benchmark's load client, one of several child processes (so the client is not
// what limits the measurement): HTTP/2 connections, each carrying many watch streams, and for each
// round the monotonic time (process.hrtime, the same clock in every process on the machine) at
// which every stream received the line naming that round's marker. Driven over IPC by
// bench/watch-fanout.bench.ts:
//
//   → {type:'open', url, caPem, token, path, connections, streamsPerConnection}   ← {type:'opened', streams}
//   → {type:'expect', marker}   ← {type:'armed'}, then {type:'delivered', arrivalsMs: number[], missing, sample}
//   → {type:'close'}
import { connect, type ClientHttp2Session } from 'node:http2';

interface OpenMessage {
  type: 'open';
  url: string;
  caPem: string;
  token: string;
  path: string;
  connections: number;
  streamsPerConnection: number;
}

type Message = OpenMessage | { type: 'expect'; marker: string; timeoutMs: number } | { type: 'close' };

const send = (message: unknown) => process.send!(message);
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const sessions: ClientHttp2Session[] = [];

/** One watch stream's state for the current round. */
interface Watch {
  buffer: string;
  arrivedMs: number;
}
const watches: Watch[] = [];
let marker = '';
let waiting = 0;
let sample = '';
let finish: (() => void) | undefined;

function onData(watch: Watch, chunk: Buffer): void {
  if (marker === '' || watch.arrivedMs > 0) return;
  watch.buffer += chunk.toString('latin1');
  const at = watch.buffer.indexOf(marker);
  if (at < 0 || watch.buffer.indexOf('\n', at) < 0) return;
  watch.arrivedMs = nowMs();
  if (sample === '') sample = watch.buffer.slice(0, watch.buffer.indexOf('\n', at) + 1);
  watch.buffer = '';
  if (--waiting === 0) finish?.();
}

async function open(message: OpenMessage): Promise<void> {
  let opened = 0;
  const total = message.connections * message.streamsPerConnection;
  await new Promise<void>((resolve, reject) => {
    for (let c = 0; c < message.connections; c++) {
      // Go's transport: a large connection window, so no stream waits on another's reading.
      const session = connect(message.url, { ca: message.caPem, settings: { initialWindowSize: 4 << 20 } });
      session.on('error', reject);
      session.once('remoteSettings', () => session.setLocalWindowSize(1 << 30));
      sessions.push(session);
      for (let s = 0; s < message.streamsPerConnection; s++) {
        const watch: Watch = { buffer: '', arrivedMs: 0 };
        watches.push(watch);
        const stream = session.request({ ':path': message.path, authorization: `Bearer ${message.token}`, accept: 'application/json' }, { endStream: true });
        stream.on('response', (headers) => {
          if (headers[':status'] !== 200) reject(new Error(`watch answered ${headers[':status']}`));
          else if (++opened === total) resolve();
        });
        stream.on('data', (chunk: Buffer) => onData(watch, chunk));
        stream.on('error', () => undefined);
      }
    }
  });
  send({ type: 'opened', streams: opened });
}

async function expect(next: string, timeoutMs: number): Promise<void> {
  for (const watch of watches) {
    watch.buffer = '';
    watch.arrivedMs = 0;
  }
  sample = '';
  waiting = watches.length;
  marker = next;
  send({ type: 'armed' });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    finish = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  marker = '';
  finish = undefined;
  const arrivalsMs = watches.filter((w) => w.arrivedMs > 0).map((w) => w.arrivedMs);
  send({ type: 'delivered', arrivalsMs, missing: watches.length - arrivalsMs.length, sample });
}

process.on('message', (message: Message) => {
  if (message.type === 'open') void open(message).catch((error: Error) => send({ type: 'error', error: error.message }));
  else if (message.type === 'expect') void expect(message.marker, message.timeoutMs);
  else if (message.type === 'close') {
    for (const session of sessions) session.destroy();
    process.exit(0);
  }
});
