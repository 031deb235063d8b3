// HTTP/1.1 on a raw socket, for tests of framing and connection handling that a client library
// would hide: a request written byte for byte, a body streamed for as long as the server reads it,
// pipelined requests, and the whole byte stream of the answers until the server closes.
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RawTarget {
  host?: string;
  port: number;
  /** Connect over TLS trusting this CA. */
  caPem?: string;
}

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far, as latin1 text. */
  received(): string;
  /** Resolves when the server has closed the connection (or it was reset). */
  readonly closed: Promise<void>;
  isClosed(): boolean;
  /** Resolves once `received()` satisfies `predicate`, or the connection closes. */
  until(predicate: (text: string) => boolean): Promise<void>;
}

export async function rawConnect(target: RawTarget): Promise<RawConnection> {
  const host = target.host ?? '127.0.0.1';
  const socket: Socket =
    target.caPem !== undefined ? tlsConnect({ host, port: target.port, ca: target.caPem, ALPNProtocols: ['http/1.1'] }) : tcpConnect(target.port, host);
  await new Promise<void>((resolve, reject) => {
    socket.once(target.caPem !== undefined ? 'secureConnect' : 'connect', () => resolve());
    socket.once('error', reject);
  });
  let text = '';
  let isClosed = false;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    wake();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      wake();
      resolve();
    }),
  );
  return {
    socket,
    received: () => text,
    closed,
    isClosed: () => isClosed,
    until(predicate) {
      return new Promise<void>((resolve) => {
        const check = () => {
          if (predicate(text) || isClosed) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** One chunk of a chunked body. */
export function chunkFrame(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`, 'latin1'), payload, Buffer.from('\r\n', 'latin1')]);
}

/**
 * Writes `frame` again and again until the server closes the connection or `maxBytes` are written;
 * resolves with the number of bytes written.
 */
export async function streamUntilClosed(connection: RawConnection, frame: Buffer, maxBytes: number): Promise<number> {
  const { socket } = connection;
  let written = 0;
  while (!connection.isClosed() && !socket.destroyed && written < maxBytes) {
    written += frame.length;
    if (!socket.write(frame)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
  return written;
}

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * The complete responses at the start of `text`, in order (Content-Length and chunked bodies; a
 * response with neither runs to the end of the text), interim ones (`100 Continue`) included.
 */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < text.length) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const lines = text.slice(at, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!)?.[1] ?? 0);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    let bodyStart = headEnd + 4;
    let body = '';
    const length = headers.get('content-length');
    if (status >= 100 && status < 200) {
      at = bodyStart;
    } else if (length !== undefined) {
      if (bodyStart + Number(length) > text.length) break;
      body = text.slice(bodyStart, bodyStart + Number(length));
      at = bodyStart + Number(length);
    } else if (headers.get('transfer-encoding') === 'chunked') {
      let complete = false;
      for (;;) {
        const sizeEnd = text.indexOf('\r\n', bodyStart);
        if (sizeEnd < 0) break;
        const size = parseInt(text.slice(bodyStart, sizeEnd), 16);
        if (size === 0) {
          at = sizeEnd + 4;
          complete = true;
          break;
        }
        body += text.slice(sizeEnd + 2, sizeEnd + 2 + size);
        bodyStart = sizeEnd + 2 + size + 2;
      }
      if (!complete) break;
    } else {
      body = text.slice(bodyStart);
      at = text.length;
    }
    responses.push({ status, headers, body });
  }
  return responses;
}
