// The verbs of a lock store on Redis, whatever client carries them: one round trip each.
//   tryAcquire        SET key token NX PX lease (with a fencing token: scripts/try-acquire-fenced.ts)
//   tryAcquireInTurn  take-your-place-and-maybe-the-key (scripts/acquire-in-turn.ts)
//   renew, regrant    compare-and-PEXPIRE (scripts/renew.ts)
//   takeOver          compare-and-PEXPIRE for a new holder, who leaves the line (scripts/take-over.ts)
//   release, leave    compare-and-hand-over, pass or free (scripts/release.ts), which PUBLISHes (on
//                     Cluster SPUBLISHes) a notice to waiters
//   waitForReplicas   WAIT replicas timeout, on the connection that made the grant
//   inspect           PTTL, the live places in line, the fencing counter (scripts/inspect.ts)
//   forceUnlock       an operator's DEL and free notice, whoever holds the key (scripts/force-unlock.ts)
// Written once so that every client family keeps the same promises with the same commands: an
// ioredis process and a node-redis process share keys, lines of waiters and release channels.
// What differs between families — how a command is sent, how the subscriber is opened, how
// the connection's health is read — comes in as parts (redis-store.ts, node-redis-store.ts).
import type { CommandSender } from './command-batch';
import type {
  Grant,
  KeyState,
  LockStore,
  Notice,
  PlaceInLine,
  Regranted,
  Released,
  SuccessionRequest,
} from './lock-store';
import type { RedisHealth } from './redis-health';
import type { RedisNotices } from './redis-notices';
import type { ReleaseChannels } from './release-channel';
import { ACQUIRE_IN_TURN } from './scripts/acquire-in-turn';
import { FORCE_UNLOCK } from './scripts/force-unlock';
import { INSPECT } from './scripts/inspect';
import { runScript, type LuaScript } from './scripts/lua-script';
import { RELEASE } from './scripts/release';
import { REGRANT, RENEW } from './scripts/renew';
import { TAKE_OVER } from './scripts/take-over';
import { FENCED_ACQUIRE } from './scripts/try-acquire-fenced';

/** A released key is announced on the channel `lockweave:released:<key>`. */
export const DEFAULT_RELEASE_CHANNEL = 'lockweave:released:';

/** What settlesWithin allows beyond the sender's bounds: a write waits for the end of the tick (command-batch.ts). */
const SETTLE_MARGIN_MS = 1_000;

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

export abstract class ScriptedLockStore implements LockStore {
  private readonly sender: CommandSender;
  private readonly notices: RedisNotices;
  private readonly health: RedisHealth;
  private readonly channels: ReleaseChannels;
  private readonly track: (<T>(command: Promise<T>) => Promise<T>) | undefined;
  private readonly cluster: boolean;

  constructor(parts: StoreParts) {
    ({
      sender: this.sender,
      notices: this.notices,
      health: this.health,
      channels: this.channels,
      track: this.track,
      cluster: this.cluster,
    } = parts);
  }

  // The verbs are not async: each is one command, so each adds one promise, not an async frame.

  tryAcquire(key: string, token: string, leaseMs: number, fenced?: boolean): Promise<Grant> {
    if (fenced) return this.run(FENCED_ACQUIRE, key, { token, leaseMs });
    return this.send(() => this.sender.send('set', [key, token, 'PX', leaseMs, 'NX']), isOk);
  }

  tryAcquireInTurn(key: string, waiter: PlaceInLine, staleClaim?: string): Promise<boolean> {
    return this.run(ACQUIRE_IN_TURN, key, { waiter, staleClaim: staleClaim ?? '' });
  }

  renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.run(RENEW, key, { token, leaseMs });
  }

  regrant(key: string, token: string, leaseMs: number): Promise<Regranted> {
    return this.run(REGRANT, key, { token, leaseMs });
  }

  takeOver(key: string, token: string, leaseMs: number, waiterToken: string): Promise<boolean> {
    return this.run(TAKE_OVER, key, { token, leaseMs, waiterToken });
  }

  release(key: string, token: string, succession?: SuccessionRequest): Promise<Released> {
    return this.run(RELEASE, key, { token, channels: this.channels, leaving: false, succession });
  }

  leave(key: string, token: string): Promise<Released> {
    return this.run(RELEASE, key, { token, channels: this.channels, leaving: true, succession: undefined });
  }

  waitForReplicas(replicas: number, timeoutMs: number): Promise<number> {
    if (this.cluster) {
      return Promise.reject(
        new TypeError(
          'lockweave: option replicas > 0 is not supported on Redis Cluster: WAIT names no key, so ' +
            'the Cluster client would send it to any node rather than to the primary that made the grant',
        ),
      );
    }
    // WAIT counts the replicas that have this connection's writes: the store's commands share one
    // connection (command-batch.ts; node-redis's client has one), so the grant is among them.
    return this.send(() => this.sender.send('wait', [replicas, timeoutMs]), Number);
  }

  inspect(key: string): Promise<KeyState> {
    return this.run(INSPECT, key, undefined);
  }

  forceUnlock(key: string): Promise<boolean> {
    return this.run(FORCE_UNLOCK, key, this.channels);
  }

  listen(key: string, notice: Notice): Promise<void> {
    return this.notices.listen(key, notice);
  }

  unlisten(key: string): void {
    this.notices.unlisten(key);
  }

  hears(key: string): boolean {
    return this.notices.hears(key);
  }

  onceReconnected(listener: () => void): () => void {
    return this.health.onceReconnected(listener);
  }

  silence(waitedMs: number): Error {
    return this.health.silence(waitedMs);
  }

  /**
   * An attempt is two commands at most (a script's EVALSHA, then EVAL where the server lacks it:
   * scripts/lua-script.ts), each settled within the sender's bound once sent — and sent at once
   * when the health check holds nothing back. SETTLE_MARGIN_MS covers the tick before the batch's
   * write and a busy event loop.
   */
  settlesWithin(ms: number): boolean {
    const bound = this.sender.boundMs;
    return bound !== undefined && ms >= 2 * bound + SETTLE_MARGIN_MS && this.health.sendsAtOnce;
  }

  /**
   * Takes the store's listeners off the client and closes the subscriber; a store that owns its
   * client closes that too (an override).
   */
  async close(): Promise<void> {
    this.health.close();
    this.sender.close?.();
    await this.notices.close();
  }

  /** One script on `key` (scripts/lua-script.ts), sent as one command. */
  private run<Call, Reply>(script: LuaScript<Call, Reply>, key: string, call: Call): Promise<Reply> {
    return this.send(() => runScript(this.sender, script, key, call));
  }

  /**
   * One command: refused at once when Redis is known to be unusable, else sent and, if owned,
   * tracked; `read` (which must not throw) makes its answer of the reply.
   */
  private send<T, A = T>(command: () => Promise<T>, read?: (reply: T) => A): Promise<A> {
    const sent = this.health.send(command, read);
    return this.track ? this.track(sent) : sent;
  }
}

function isOk(reply: unknown): boolean {
  return reply === 'OK';
}
