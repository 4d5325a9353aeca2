// One typed way to run the store's Lua scripts (the model: redis-semaphore's createEval).
//
// Each script is defined once, in a file of its own beside the verb that sends it, with its KEYS
// and ARGV written in one place, by name, and its reply read in one place: a wrong order is a
// change to one function, not to every caller. Every script runs on one lock key: KEYS[1] is that
// key, and its other keys are named after it (waiting-line.ts), in its Cluster hash slot.
//
// Each compares the stored token before it touches the key: Redis runs a script atomically, so
// no other client can take the key between the check and the write. That is what guarantees a
// caller never releases or extends a lock it does not hold.
import type * as Crypto from 'node:crypto';
import type { CommandSender } from '../command-batch';

type Arg = string | number;

export interface LuaScript<Call, Reply> {
  readonly source: string;
  readonly sha1: string;
  /** KEYS, in the script's order, for a call on the lock key `key` (always KEYS[1]). */
  readonly keys: (key: string, call: Call) => readonly string[];
  /** ARGV, in the script's order. */
  readonly args: (key: string, call: Call) => readonly Arg[];
  /** The script's reply, read. */
  readonly reply: (raw: unknown, call: Call) => Reply;
}

/**
 * The script with its SHA1, hashed when first sent: loading node:crypto for it when the runtime
 * loads would cost every app's start ~5 ms, lock or not.
 */
export function luaScript<Call, Reply>(script: Omit<LuaScript<Call, Reply>, 'sha1'>): LuaScript<Call, Reply> {
  let sha1: string | undefined;
  return {
    ...script,
    get sha1() {
      return (sha1 ??= sha1Of(script.source));
    },
  };
}

/** A script's SHA1, as EVALSHA names it. */
export function sha1Of(source: string): string {
  return (require('node:crypto') as typeof Crypto).createHash('sha1').update(source).digest('hex');
}

/** The server's NOSCRIPT as ioredis and node-redis pass it on, and as GLIDE words it. */
export const NO_SCRIPT = /^NOSCRIPT|NoScriptError/;

/**
 * EVALSHA, falling back to EVAL when the server has not seen the script (first use, a restart, a
 * failover, SCRIPT FLUSH). EVAL also loads it, so the next call hits the cache. Sent through the
 * store's sender, so it shares a tick's write with the other commands (command-batch.ts).
 * Not async: it runs on every attempt and release, and each async frame is another promise for
 * Node's async hooks to visit.
 */
export function runScript<Call, Reply>(
  sender: CommandSender,
  script: LuaScript<Call, Reply>,
  key: string,
  call: Call,
): Promise<Reply> {
  const keys = script.keys(key, call);
  const read = (raw: unknown) => script.reply(raw, call);
  if (sender.script) return sender.script(script.source, script.sha1, keys, script.args(key, call)).then(read);
  const argv: Arg[] = [script.sha1, keys.length, ...keys, ...script.args(key, call)];
  return sender.send('evalsha', argv).then(read, (error: unknown) => {
    if (!(error instanceof Error && NO_SCRIPT.test(error.message))) throw error;
    const evalArgv = argv.slice();
    evalArgv[0] = script.source;
    return sender.send('eval', evalArgv).then(read);
  });
}
