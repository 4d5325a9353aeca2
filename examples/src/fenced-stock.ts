// A storage that checks fencing tokens: it remembers the highest fence that wrote each record and
// refuses a write that carries a lower one. The check and the write are one conditional update —
// here a Lua script on a Redis that serves as the database; in SQL it would be
//
//   UPDATE stock SET count = $1, fence = $2 WHERE sku = $3 AND fence <= $2
//
// Equal is accepted: a holder may write several times under one grant, and two different grants of
// a key never get the same number (see README, "Fencing tokens").
import type { Redis } from 'ioredis';

const WRITE_IF_FENCE_IS_CURRENT = `
local seen = redis.call('hget', KEYS[1], 'fence')
if seen and tonumber(ARGV[2]) < tonumber(seen) then return 0 end
redis.call('hset', KEYS[1], 'count', ARGV[1], 'fence', ARGV[2])
return 1
`;

export class FencedStock {
  constructor(private readonly db: Redis) {}

  /** Writes `count` for `sku` unless a holder with a newer fence wrote it already; false when refused. */
  async write(sku: string, count: number, fence: number | undefined): Promise<boolean> {
    // A write meant to be fenced never goes ahead without its fence.
    if (fence === undefined)
      throw new Error(`stock ${sku}: a write without a fencing token (is fencing=true on the lock?)`);
    return (await this.db.eval(WRITE_IF_FENCE_IS_CURRENT, 1, `stock:${sku}`, count, fence)) === 1;
  }

  async read(sku: string): Promise<{ count: number; fence: number } | undefined> {
    const record = await this.db.hgetall(`stock:${sku}`);
    return record.fence === undefined ? undefined : { count: Number(record.count), fence: Number(record.fence) };
  }
}
