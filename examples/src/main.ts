// Runs the Java original's four demo cases, and a fifth on fencing tokens, with lock events printed as the
// original's log lines.
// Redis comes from REDIS_URL; with LOCKWEAVE_DEMO_STORE=memory it runs on the in-process store.
import { Redis } from 'ioredis';
import { close, configure, consoleLogger, MemoryLockStore } from 'lockweave';
import { FencedStock } from './fenced-stock';
import { Order } from './order';
import { OrderService } from './order-service';
import { StockService } from './stock-service';

async function main(): Promise<void> {
  const logger = consoleLogger((line) => console.log(`  ${line}`));
  if (process.env.LOCKWEAVE_DEMO_STORE === 'memory') {
    console.log('(no Redis at hand: running on the in-process store, which locks within this process only)');
    configure({ store: new MemoryLockStore(), logger });
  } else {
    // Named, not left undefined: configure({ redis: undefined }) names no server and is refused.
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    console.log(`(Redis at ${new URL(url).host})`); // host:port only: a URL may hold a password
    configure({ redis: url, logger });
  }
  const service = new OrderService();

  console.log('\nCase 1: key from a value — payByValue("Test001")');
  console.log(`  result: ${await service.payByValue('Test001')}`);

  console.log('\nCase 2: key from a field of a bean — payByBean(new Order("Test002", "U42"))');
  console.log(`  result: ${await service.payByBean(new Order('Test002', 'U42'))}`);

  console.log('\nCase 3: key from a Map entry — payByJson(new Map([["orderNo", "Test003"]]))');
  console.log(`  result: ${await service.payByJson(new Map([['orderNo', 'Test003']]))}`);

  console.log('\nCase 4: two callers pay order Test004 at once; the second waits for the first');
  const started = Date.now();
  const results = await Promise.all([
    service.paySlowly('Test004', 'client A'),
    new Promise((resolve) => setTimeout(resolve, 50)).then(() => service.paySlowly('Test004', 'client B')),
  ]);
  console.log(`  results: ${results.join(', ')} — in ${Date.now() - started} ms: the second caller woke when`);
  console.log("  the first released, not after the Java original's fixed 5 s wait.");

  console.log('\nCase 5: fencing — client A stalls past its lease, client B takes the lock; both write');
  if (process.env.LOCKWEAVE_DEMO_STORE === 'memory') {
    console.log('  (skipped: the fenced storage of this example is a Lua script on Redis)');
  } else {
    const db = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const stock = new FencedStock(db);
    const stockService = new StockService(stock);
    const sku = `sku-${Date.now()}`;
    await Promise.all([
      stockService.restock(sku, 10, 'client A', 2_500),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => stockService.restock(sku, 20, 'client B', 0)),
    ]);
    console.log(
      `  stored: ${JSON.stringify(await stock.read(sku))} — B's write stands; a plain lock would have let A's overwrite it.`,
    );
    db.disconnect();
  }

  await close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
