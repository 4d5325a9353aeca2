// The hash slot Redis Cluster puts a key or shard channel in: CRC16 (XMODEM) of its hash tag — the
// text between the first `{` and the first `}` after it, when not empty — or of the whole name,
// modulo 16384. The sharded subscriber (cluster-subscriber.ts) needs it to know which primary to
// SSUBSCRIBE on; computed here rather than asked for (CLUSTER KEYSLOT is a round trip per channel).
// And the key a client that routes by a key it is told (node-redis's cluster, GLIDE's) is given.
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[byte] = crc & 0xffff;
  }
  return table;
})();

export const SLOTS = 16_384;

export function slotOf(name: string): number {
  const open = name.indexOf('{');
  const close = open < 0 ? -1 : name.indexOf('}', open + 1);
  const hashed = close > open + 1 ? name.slice(open + 1, close) : name;
  let crc = 0;
  for (const byte of Buffer.from(hashed, 'utf8')) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc % SLOTS;
}

/** The key a command is routed by: EVAL's and EVALSHA's first key, else the first argument. */
export function routingKey(name: string, args: readonly (string | number)[]): string {
  return String(name === 'evalsha' || name === 'eval' ? args[2] : args[0]);
}
