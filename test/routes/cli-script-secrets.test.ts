// `lockweave check` prints each script it flags, and a script may carry a secret in any shape a
// command passes one: an option named like a secret however its name is spelt (camelCase,
// snake_case, dotted, run together), NAME=value before a command (after `cd … &&`, inside `sh -c`),
// a URL's user and password, redis-cli's `-a`, the program's own arguments after its script file.
// The real CLI runs on a fixture project whose scripts hold them; none reaches the output, and
// what is not a secret (the tool, its options' names, the script file) still shows where the hole is.
import test from 'ava';
import * as path from 'node:path';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';

const PROJECT = path.join(ROOT, 'test', 'fixtures', 'routes', 'cli', 'script-secrets', 'tsconfig.json');
const runChild = childRunner(1);

test('check prints every flagged script with its secrets hidden, whatever their shape, and the rest of the command as written', async (t) => {
  const result = await runChild(process.execPath, [CLI, 'check', '-p', PROJECT], { cwd: ROOT });
  t.is(result.status, 1, result.output);
  t.regex(result.stdout, /13 toolchain holes/);
  // Each secret of the fixture starts Hunter2; not one of them, nor a part of one, is printed.
  t.false(
    /Hunter|2(Camel|Snake|Req|Tok|Key|Priv|Env|Pg|Cd|Sh|Url|Cli|Short|Positional|Port)/.test(result.output),
    result.output,
  );
  for (const line of [
    'scripts.camel: tsx --dbPassword … src/orders.ts',
    'scripts.snake: tsx --db_password=… src/orders.ts',
    'scripts.joined: ts-node --requirepass … src/orders.ts',
    'scripts.auth-token: tsx --redisAuthToken=… src/orders.ts',
    'scripts.api-key: tsx --apiKey … src/orders.ts',
    'scripts.private-key: tsx --tls.privateKey=… src/orders.ts',
    'scripts.env: REDIS_PASSWORD=… PGPASSWORD=… node src/orders.ts',
    'scripts.env-after-cd: REDIS_AUTH=… tsx src/orders.ts',
    "scripts.shell: sh -c 'PGPASSWORD=… tsx src/orders.ts'",
    'scripts.url: tsx --redis redis://…@redis.internal:6379 src/orders.ts',
    'scripts.redis-cli: tsx --conditions=$(redis-cli -h redis.internal -a … GET conditions) src/orders.ts',
    'scripts.args: node src/orders.ts -a … … --port=…',
    'scripts.dev: tsx watch src/orders.ts',
  ])
    t.true(result.stderr.includes(`  package.json ${line}\n`), line);
});
