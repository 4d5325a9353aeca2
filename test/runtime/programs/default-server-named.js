// Asks of its environment what a first lock without configure() asks of it — with REDIS_URL unset,
// does any variable name another Redis? (the runtime's check, the command line's too) — and prints
// the answer as JSON: {} when the default server would be taken, else the error's name and message.
// Takes no lock and opens no connection: the default, 127.0.0.1:6379, may be a Redis of the
// machine's own, which a test must never touch.
const { assertNoOtherRedisNamed } = require('../../../dist/runtime/api/store-factory.js');

try {
  assertNoOtherRedisNamed();
  process.stdout.write('{}\n');
} catch (error) {
  process.stdout.write(`${JSON.stringify({ name: error.name, message: error.message })}\n`);
}
