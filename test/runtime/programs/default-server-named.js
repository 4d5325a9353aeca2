// Asks, of each environment in the JSON array on stdin, what a first lock without configure()
// asks of it — with REDIS_URL unset, does any variable name another Redis? (the runtime's check,
// the command line's too) — and prints the answers as one JSON array: {} where the default server
// would be taken, else the error's name and message. One process answers them all (the check reads
// process.env afresh on each call), so fifty variants cost one Node start, not fifty.
// Takes no lock and opens no connection: the default, 127.0.0.1:6379, may be a Redis of the
// machine's own, which a test must never touch.
const { readFileSync } = require('node:fs');
const { assertNoOtherRedisNamed } = require('../../../dist/runtime/api/store-factory.js');

const environments = JSON.parse(readFileSync(0, 'utf8'));
const answers = environments.map((env) => {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  try {
    assertNoOtherRedisNamed();
    return {};
  } catch (error) {
    return { name: error.name, message: error.message };
  }
});
process.stdout.write(`${JSON.stringify(answers)}\n`);
