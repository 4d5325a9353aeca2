// The verbs of a lock store on Redis, whatever client carries them: one round trip each.
//   tryAcquire        SET key token NX PX lease (with a fencing token: EVALSHA set-and-count)
//   tryAcquireInTurn  EVALSHA take-your-place-and-maybe-the-key (see redis-scripts.ts)
//   renew             EVALSHA compare-and-PEXPIRE
//   release           EVALSHA compare-and-pass-on (or DEL), which PUBLISHes (on Cluster SPUBLISHes)
//                     a notice to waiters
//   waitForReplicas   WAIT replicas timeout, on the connection that made the grant
// Written once so that every client family keeps the same promises with the same commands: an
// ioredis process and a node-redis process share keys, lines of waiters and release channels.
// What differs between families — how a command is sent, how the subscriber is opened, how
// the connection's health is read — comes in as parts (redis-store.ts, node-redis-store.ts).
import type { CommandSender } from './command-batch';
import { CLAIM_MS, type Grant, type LockStore, type Notice, type PlaceInLine, type Regranted, type Released } from './lock-store';
import type { RedisHealth } from './redis-health';
import type { RedisNotices } from './redis-notices';
import type { ReleaseChannels } from './release-channel';
import { ACQUIRE_IN_TURN_SCRIPT, FENCED_ACQUIRE_SCRIPT, REGRANT_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT, TAKE_OVER_SCRIPT, runScript } from './redis-scripts';
import { fenceCounterOf, waitingLineOf } from './waiting-line';

/** A released key is announced on the channel `lockweave:released:<key>`. */
export const DEFAULT_RELEASE_CHANNEL = 'lockweave:released:';

export interface StoreParts {
  readonly sender: CommandSender;
  readonly notices: RedisNotices;
  readonly health: RedisHealth;
  /** The channels and command the release script announces with (release-channel.ts). */
  readonly channels: ReleaseChannels;
  /** The client is a Redis Cluster's: commands without a key go to any node. */
  readonly cluster: boolean;
  /** Keeps the process up while a command is pending (a connection the runtime owns). */
  readonly track?: <T>(command: Promise<T>) => Promise<T>;
}

/** The re-grant script's replies, in its order. */
const REGRANTED: readonly Regranted[] = ['not-ours', 'renewed', 'regranted'];

/** The release script's replies, in its order. */
const RELEASED: readonly Released[] = ['not-ours', 'freed', 'handed', 'passed'];

export abstract class ScriptedLockStore implements LockStore {
  private readonly sender: CommandSender;
  private readonly notices: RedisNotices;
  private readonly health: RedisHealth;
  private readonly channels: ReleaseChannels;
  private readonly track: (<T>(command: Promise<T>) => Promise<T>) | undefined;
  private readonly cluster: boolean;

  constructor(parts: StoreParts) {
    ({ sender: this.sender, notices: this.notices, health: this.health, channels: this.channels, track: this.track, cluster: this.cluster } = parts);
  }

  // The verbs are not async: each is one command, so each adds one promise, not an async frame.

  tryAcquire(key: string, token: string, leaseMs: number, fenced?: boolean): Promise<Grant> {
    if (fenced) return this.send(() => runScript(this.sender, FENCED_ACQUIRE_SCRIPT, [key, fenceCounterOf(key)], [token, leaseMs])).then(fenceOrFalse);
    return this.send(() => this.sender.send('set', [key, token, 'PX', leaseMs, 'NX'])).then(isOk);
  }

  tryAcquireInTurn(key: string, waiter: PlaceInLine): Promise<boolean> {
    const { line, lapses } = waitingLineOf(key);
    const keys = waiter.fenced ? [key, line, lapses, fenceCounterOf(key)] : [key, line, lapses];
    const args = [waiter.token, waiter.leaseMs, waiter.place ?? '', waiter.placeLastsMs, waiter.fenced ? '1' : ''];
    return this.send(() => runScript(this.sender, ACQUIRE_IN_TURN_SCRIPT, keys, args)).then((reply) => {
      const [took, place, fence] = reply as [number, string, number | undefined];
      waiter.place = place;
      if (fence !== undefined) waiter.fence = fence;
      return took === 1;
    });
  }

  renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.send(() => runScript(this.sender, RENEW_SCRIPT, [key], [token, leaseMs])).then(isOne);
  }

  regrant(key: string, token: string, leaseMs: number): Promise<Regranted> {
    return this.send(() => runScript(this.sender, REGRANT_SCRIPT, [key], [token, leaseMs])).then((reply) => REGRANTED[reply as number] ?? 'not-ours');
  }

  takeOver(key: string, token: string, leaseMs: number, waiterToken: string): Promise<boolean> {
    const { line, lapses } = waitingLineOf(key);
    return this.send(() => runScript(this.sender, TAKE_OVER_SCRIPT, [key, line, lapses], [token, leaseMs, waiterToken])).then(isOne);
  }

  release(key: string, token: string, successor?: PlaceInLine, successorGoesAhead = false, leavingLine: readonly string[] = []): Promise<Released> {
    const own = successor ? [successor.token, successor.leaseMs] : ['', 0];
    const { of, publish } = this.channels;
    const args = [token, of(key), CLAIM_MS, ...own, '', successorGoesAhead ? '1' : '', publish, successor?.fenced ? '1' : '', ...leavingLine];
    return this.runRelease(key, args, successor);
  }

  leave(key: string, token: string): Promise<Released> {
    return this.runRelease(key, [token, this.channels.of(key), CLAIM_MS, '', 0, '1', '', this.channels.publish, '']);
  }

  waitForReplicas(replicas: number, timeoutMs: number): Promise<number> {
    if (this.cluster) {
      return Promise.reject(new TypeError('lockweave: option replicas > 0 is not supported on Redis Cluster: WAIT names no key, so '
        + 'the Cluster client would send it to any node rather than to the primary that made the grant'));
    }
    // WAIT counts the replicas that have this connection's writes: the store's commands share one
    // connection (command-batch.ts; node-redis's client has one), so the grant is among them.
    return this.send(() => this.sender.send('wait', [replicas, timeoutMs])).then(Number);
  }

  listen(key: string, notice: Notice): Promise<void> {
    return this.notices.listen(key, notice);
  }

  unlisten(key: string): void {
    this.notices.unlisten(key);
  }

  onceReconnected(listener: () => void): () => void {
    return this.health.onceReconnected(listener);
  }

  silence(waitedMs: number): Error {
    return this.health.silence(waitedMs);
  }

  /** Closes the subscriber; a store that owns its client closes that too (an override). */
  async close(): Promise<void> {
    await this.notices.close();
  }

  /** `args`: the release script's ARGV, in its order (redis-scripts.ts). */
  private runRelease(key: string, args: (string | number)[], successor?: PlaceInLine): Promise<Released> {
    const { line, lapses } = waitingLineOf(key);
    const keys = successor?.fenced ? [key, line, lapses, fenceCounterOf(key)] : [key, line, lapses];
    return this.send(() => runScript(this.sender, RELEASE_SCRIPT, keys, args)).then((reply) => {
      if (typeof reply === 'number') return RELEASED[reply];
      // {2, fencing token}: handed to a successor that wanted one.
      successor!.fence = (reply as [number, number])[1];
      return 'handed';
    });
  }

  /** One command: refused at once when Redis is known to be unusable, else sent and, if owned, tracked. */
  private send<T>(command: () => Promise<T>): Promise<T> {
    const sent = this.health.send(command);
    return this.track ? this.track(sent) : sent;
  }
}

function isOk(reply: unknown): boolean {
  return reply === 'OK';
}

function fenceOrFalse(reply: unknown): Grant {
  return reply === 0 ? false : (reply as number);
}

function isOne(reply: unknown): boolean {
  return reply === 1;
}
