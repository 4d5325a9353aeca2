// The Redis store: one round trip for each verb (commands of one tick share a write: command-batch.ts).
//   tryAcquire        SET key token NX PX lease
//   tryAcquireInTurn  EVALSHA take-your-place-and-maybe-the-key (see redis-scripts.ts)
//   renew             EVALSHA compare-and-PEXPIRE
//   release           EVALSHA compare-and-pass-on (or DEL), which PUBLISHes a notice to waiters
// It works with an ioredis `Redis` (single node or Sentinel) or `Cluster`: the lock key and its
// line of waiters share one hash slot (waiting-line.ts), so Cluster sends each script to the node
// that owns the key.
import type { Cluster, Redis } from 'ioredis';
import { CLAIM_MS, type LockStore, type Notice, type PlaceInLine, type Released } from './lock-store';
import { RedisNotices } from './redis-notices';
import { ACQUIRE_IN_TURN_SCRIPT, RELEASE_SCRIPT, RENEW_SCRIPT, runScript } from './redis-scripts';
import { ConnectionRef } from './connection-ref';
import { RedisHealth } from './redis-health';
import { waitingLineOf } from './waiting-line';
import { commandSender, type CommandSender } from './command-batch';

/** A released key is announced on the channel `lockweave:released:<key>`. */
export const DEFAULT_RELEASE_CHANNEL = 'lockweave:released:';

export interface RedisStoreOptions {
  /** The prefix of release channels (channel = prefix + key). All processes sharing locks must agree. */
  channel?: string;
  /** True when the store created the client, and so closes it and keeps it from holding the process open. */
  ownsClient?: boolean;
}

/** The release script's replies, in its order. */
const RELEASED: readonly Released[] = ['not-ours', 'freed', 'handed', 'passed'];

export class RedisLockStore implements LockStore {
  private readonly notices: RedisNotices;
  private readonly channel: string;
  private readonly ref: ConnectionRef | undefined;
  private readonly health: RedisHealth;
  private readonly sender: CommandSender;

  constructor(
    readonly client: Redis | Cluster,
    private readonly options: RedisStoreOptions = {},
  ) {
    this.channel = options.channel ?? DEFAULT_RELEASE_CHANNEL;
    this.notices = new RedisNotices(client, this.channel);
    this.ref = options.ownsClient ? new ConnectionRef(client) : undefined;
    this.health = new RedisHealth(client, options.ownsClient === true, () => void this.notices.close());
    this.sender = commandSender(client);
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
    return this.runRelease(key, [token, this.channel, CLAIM_MS, ...own, '', successorGoesAhead ? '1' : '']);
  }

  leave(key: string, token: string): Promise<Released> {
    return this.runRelease(key, [token, this.channel, CLAIM_MS, '', 0, '1', '']);
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

  async close(): Promise<void> {
    await this.notices.close();
    if (this.options.ownsClient) await this.client.quit().catch(() => this.client.disconnect());
  }

  private runRelease(key: string, args: (string | number)[]): Promise<Released> {
    const { line, lapses } = waitingLineOf(key);
    return this.send(() => runScript(this.sender, RELEASE_SCRIPT, [key, line, lapses], args)).then((reply) => RELEASED[reply as number]);
  }

  /** One command: refused at once when Redis is known to be unusable, else sent and, if ours, tracked. */
  private send<T>(command: () => Promise<T>): Promise<T> {
    const sent = this.health.send(command);
    return this.ref ? this.ref.track(sent) : sent;
  }
}

function isOk(reply: unknown): boolean {
  return reply === 'OK';
}

function isOne(reply: unknown): boolean {
  return reply === 1;
}
