// The verbs of a lock store on Redis, whatever client carries them: one round trip each.
//   tryAcquire        SET key token NX PX lease
//   tryAcquireInTurn  EVALSHA take-your-place-and-maybe-the-key (see redis-scripts.ts)
//   renew             EVALSHA compare-and-PEXPIRE
//   release           EVALSHA compare-and-pass-on (or DEL), which PUBLISHes (on Cluster SPUBLISHes)
//                     a notice to waiters
// Written once so that every client family keeps the same promises with the same commands: an
// ioredis process and a node-redis process share keys, lines of waiters and release channels.
// What differs between families — how a command is sent, how the subscriber is opened, how
// the connection's health is read — comes in as parts (redis-store.ts, node-redis-store.ts).
import type { CommandSender } from './command-batch';
import { CLAIM_MS, type LockStore, type Notice, type PlaceInLine, type Released } from './lock-store';
import type { RedisHealth } from './redis-health';
import type { RedisNotices } from './redis-notices';
import type { ReleaseChannels } from './release-channel';
import { ACQUIRE_IN_TURN_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT, runScript } from './redis-scripts';
import { waitingLineOf } from './waiting-line';

/** A released key is announced on the channel `lockweave:released:<key>`. */
export const DEFAULT_RELEASE_CHANNEL = 'lockweave:released:';

export interface StoreParts {
  readonly sender: CommandSender;
  readonly notices: RedisNotices;
  readonly health: RedisHealth;
  /** The channels and command the release script announces with (release-channel.ts). */
  readonly channels: ReleaseChannels;
  /** Keeps the process up while a command is pending (a connection the runtime owns). */
  readonly track?: <T>(command: Promise<T>) => Promise<T>;
}

/** The release script's replies, in its order. */
const RELEASED: readonly Released[] = ['not-ours', 'freed', 'handed', 'passed'];

export abstract class ScriptedLockStore implements LockStore {
  private readonly sender: CommandSender;
  private readonly notices: RedisNotices;
  private readonly health: RedisHealth;
  private readonly channels: ReleaseChannels;
  private readonly track: (<T>(command: Promise<T>) => Promise<T>) | undefined;

  constructor(parts: StoreParts) {
    ({ sender: this.sender, notices: this.notices, health: this.health, channels: this.channels, track: this.track } = parts);
  }

  // The verbs are not async: each is one command, so each adds one promise, not an async frame.

  tryAcquire(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.send(() => this.sender.send('set', [key, token, 'PX', leaseMs, 'NX'])).then(isOk);
  }

  tryAcquireInTurn(key: string, waiter: PlaceInLine): Promise<boolean> {
    const { line, lapses } = waitingLineOf(key);
    const args = [waiter.token, waiter.leaseMs, waiter.place ?? '', waiter.placeLastsMs];
    return this.send(() => runScript(this.sender, ACQUIRE_IN_TURN_SCRIPT, [key, line, lapses], args)).then((reply) => {
      const [took, place] = reply as [number, string];
      waiter.place = place;
      return took === 1;
    });
  }

  renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.send(() => runScript(this.sender, RENEW_SCRIPT, [key], [token, leaseMs])).then(isOne);
  }

  release(key: string, token: string, successor?: PlaceInLine, successorGoesAhead = false): Promise<Released> {
    const own = successor ? [successor.token, successor.leaseMs] : ['', 0];
    return this.runRelease(key, [token, CLAIM_MS, ...own, '', successorGoesAhead ? '1' : '']);
  }

  leave(key: string, token: string): Promise<Released> {
    return this.runRelease(key, [token, CLAIM_MS, '', 0, '1', '']);
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

  /** Closes the subscriber; a store that owns its client closes that too (an override). */
  async close(): Promise<void> {
    await this.notices.close();
  }

  /** `args`: the release script's ARGV but the channel (ARGV[2]) and the command (ARGV[8]). */
  private runRelease(key: string, [token, ...rest]: (string | number)[]): Promise<Released> {
    const { line, lapses } = waitingLineOf(key);
    const args = [token!, this.channels.of(key), ...rest, this.channels.publish];
    return this.send(() => runScript(this.sender, RELEASE_SCRIPT, [key, line, lapses], args)).then((reply) => RELEASED[reply as number]);
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

function isOne(reply: unknown): boolean {
  return reply === 1;
}
