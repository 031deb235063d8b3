// The etcd client's wire: @grpc/grpc-js directly, one grpc-js Channel per member, and calls made
// with the channel's own call API (`createCall`, then start / send / half-close / read, as
// grpc-js's Client does underneath) for unary calls (KV.Range, KV.Txn, KV.Put, KV.DeleteRange,
// KV.Compact) and the bidirectional Watch.Watch stream. Messages are encoded and decoded by the
// caller (etcd-proto.ts, protobufjs); grpc-js frames them and does HTTP/2, deadlines, keepalive
// and reconnection. Not through grpc-js's Client: its makeUnaryRequest captures a stack trace per
// call (no option turns that off) and its interceptor and object-mode stream layers cost more CPU
// per create than the request itself needs (docs/benchmarks.md, "etcd3 backend").
//
// What is ours: calls spread over the members round-robin, and a member skipped for a second
// after 3 consecutive transport failures (MEMBER_BREAKER), where etcd's own answers
// ("etcdserver: …", as during an election) do not count; its state is kept here on the injected
// clock. A call's non-OK status becomes an EtcdCallError, classified in etcd-errors.ts.

import { Channel, credentials, Metadata, status as Status, type ChannelOptions, type StatusObject } from '@grpc/grpc-js';
import { countsAgainstMember, EtcdCallError, EtcdClientClosedError, NoMemberAvailableError } from './etcd-errors.ts';
import type { Clock } from '../../clock.ts';

export const RANGE_PATH = '/etcdserverpb.KV/Range';
export const PUT_PATH = '/etcdserverpb.KV/Put';
export const DELETE_RANGE_PATH = '/etcdserverpb.KV/DeleteRange';
export const TXN_PATH = '/etcdserverpb.KV/Txn';
export const COMPACT_PATH = '/etcdserverpb.KV/Compact';
export const WATCH_PATH = '/etcdserverpb.Watch/Watch';

/**
 * A member is skipped for a second after 3 consecutive transport failures (refused, reset, timed
 * out; countsAgainstMember). A shorter pause than the etcd3 library's default breaker (5 s, and it
 * counted election errors too): a restarted member is back in rotation within a second.
 */
export const MEMBER_BREAKER = { consecutiveFailures: 3, openMs: 1_000 } as const;

const CHANNEL_OPTIONS: ChannelOptions = {
  // Kube's etcd client settings: no cap on response size (a range page of large objects, a watch
  // catching up, a failed transaction reading values back), keepalive to notice a member that
  // vanished without closing its connections.
  'grpc.max_receive_message_length': 2 ** 31 - 1,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // A restarted member is tried again within the breaker's second, not after minutes of backoff;
  // and a member's fresh channel gets a fresh connection, not one shared through the global pool.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
  'grpc.use_local_subchannel_pool': 1,
  // A watch catching up streams megabytes; 64 KiB windows would stall it on round trips.
  'grpc-node.flow_control_window': 4 << 20,
  // Per-call bookkeeping for grpc-js's channelz admin service, which Fairway does not serve.
  'grpc.enable_channelz': 0,
};

type GrpcCall = ReturnType<Channel['createCall']>;

function statusError(status: StatusObject): EtcdCallError {
  return new EtcdCallError(status.code, status.details, status.metadata);
}

const NO_DEADLINE = Infinity;
/** Sent messages need no per-message flags or callback. */
const NO_CONTEXT = {};

class Member {
  channel: Channel | undefined;
  failures = 0;
  openUntilMs = 0;
  trialUnderway = false;
  constructor(readonly address: string) {}
}

export interface StreamHandlers {
  onMessage(message: Buffer): void;
  /** The stream is over: an EtcdCallError, or etcd closed it with status OK, or the client was closed. */
  onEnd(error: Error): void;
}

export interface EtcdStream {
  write(message: Buffer): void;
  cancel(): void;
}

const NO_STREAM: EtcdStream = { write: () => undefined, cancel: () => undefined };

export class EtcdTransport {
  private readonly members: Member[];
  private next = 0;
  private closed = false;
  /** Unary calls under way, cancelled on close. */
  private readonly calls = new Set<GrpcCall>();

  constructor(
    endpoints: readonly string[],
    private readonly clock: Clock,
  ) {
    if (endpoints.length === 0) throw new Error('the etcd transport needs at least one endpoint');
    this.members = endpoints.map((url) => new Member(url.replace(/^http:\/\//i, '').replace(/\/$/, '')));
  }

  /**
   * One unary call; resolves with the response message as `decode` reads it (a message it cannot
   * read rejects with decode's error). `deadlineMs` is on the clock's time line, which for the real
   * clock is epoch milliseconds, as grpc-js reads a numeric deadline.
   */
  unary<T>(path: string, message: Buffer, deadlineMs: number, decode: (message: Buffer) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const member = this.pick();
      if (member === undefined) return reject(this.unavailable());
      const call = this.channelOf(member).createCall(path, deadlineMs, null, null, null);
      let response: Buffer | undefined;
      this.calls.add(call);
      call.start(new Metadata(), {
        onReceiveMetadata: () => undefined,
        onReceiveMessage: (received: Buffer) => {
          response = received;
        },
        onReceiveStatus: (status) => {
          this.calls.delete(call);
          if (this.closed) return reject(new EtcdClientClosedError('the etcd client was closed'));
          if (status.code !== Status.OK) return reject(this.failed(member, statusError(status)));
          if (response === undefined)
            return reject(this.failed(member, statusError({ ...status, code: Status.UNIMPLEMENTED, details: 'No message received' })));
          this.succeeded(member);
          let decoded: T;
          try {
            decoded = decode(response);
          } catch (error) {
            return reject(error);
          }
          resolve(decoded);
        },
      });
      call.sendMessageWithContext(NO_CONTEXT, message);
      call.halfClose();
      call.startRead();
    });
  }

  /** Opens a bidirectional stream on the next available member. */
  stream(path: string, handlers: StreamHandlers): EtcdStream {
    let ended = false;
    const end = (error: Error): void => {
      if (ended) return;
      ended = true;
      handlers.onEnd(error);
    };
    const member = this.pick();
    if (member === undefined) {
      const error = this.unavailable();
      queueMicrotask(() => end(error));
      return NO_STREAM;
    }
    const call = this.channelOf(member).createCall(path, NO_DEADLINE, null, null, null);
    let answered = false;
    call.start(new Metadata(), {
      onReceiveMetadata: () => undefined,
      onReceiveMessage: (message: Buffer) => {
        if (ended) return;
        if (!answered) {
          answered = true;
          this.succeeded(member);
        }
        handlers.onMessage(message);
        call.startRead(); // one message at a time: grpc-js reads the next when asked
      },
      onReceiveStatus: (status) => {
        if (ended) return;
        if (status.code === Status.OK) return end(new Error('the etcd watch stream ended'));
        end(this.failed(member, statusError(status)));
      },
    });
    call.startRead();
    // A call takes the next message once the previous one is on its way (it holds just one).
    const queued: Buffer[] = [];
    let sending = false;
    const send = (message: Buffer): void => {
      sending = true;
      call.sendMessageWithContext({ callback: sent }, message);
    };
    const sent = (): void => {
      sending = false;
      const next = queued.shift();
      if (next !== undefined && !ended) send(next);
    };
    return {
      write: (message) => {
        if (ended) return;
        if (sending) queued.push(message);
        else send(message);
      },
      cancel: () => {
        ended = true;
        call.cancelWithStatus(Status.CANCELLED, 'Cancelled on client');
      },
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const call of this.calls) call.cancelWithStatus(Status.CANCELLED, 'the etcd client was closed');
    this.calls.clear();
    for (const member of this.members) this.dropChannel(member);
  }

  private unavailable(): Error {
    return this.closed
      ? new EtcdClientClosedError('the etcd client was closed')
      : new NoMemberAvailableError('every etcd member failed recently; retrying later');
  }

  /** The next member whose breaker lets calls through; a member a second past opening gets one trial. */
  private pick(): Member | undefined {
    if (this.closed) return undefined;
    const count = this.members.length;
    const nowMs = this.clock.now();
    for (let i = 0; i < count; i++) {
      const member = this.members[(this.next + i) % count]!;
      if (member.failures < MEMBER_BREAKER.consecutiveFailures) {
        this.next = (this.next + i + 1) % count;
        return member;
      }
      if (member.trialUnderway || nowMs < member.openUntilMs) continue;
      member.trialUnderway = true;
      this.next = (this.next + i + 1) % count;
      return member;
    }
    return undefined;
  }

  private channelOf(member: Member): Channel {
    member.channel ??= new Channel(member.address, credentials.createInsecure(), CHANNEL_OPTIONS);
    return member.channel;
  }

  private dropChannel(member: Member): void {
    member.channel?.close();
    member.channel = undefined;
  }

  /** Counts a failure against the member's breaker when it is the member's fault; returns the error. */
  private failed(member: Member, error: Error): Error {
    const trial = member.trialUnderway;
    member.trialUnderway = false;
    if (!countsAgainstMember(error)) {
      if (trial) member.failures = 0; // it answered: reachable again
      return error;
    }
    member.failures = trial ? MEMBER_BREAKER.consecutiveFailures : member.failures + 1;
    if (member.failures >= MEMBER_BREAKER.consecutiveFailures) {
      member.openUntilMs = this.clock.now() + MEMBER_BREAKER.openMs;
      // Its trial a second from now starts on a fresh connection.
      this.dropChannel(member);
    }
    return error;
  }

  private succeeded(member: Member): void {
    member.failures = 0;
    member.trialUnderway = false;
  }
}
