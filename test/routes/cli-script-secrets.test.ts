// `lockweave check` prints each script it flags, and a script may carry a secret in any shape a
// command passes one: an option named like a secret however its name is spelt (camelCase,
// snake_case, dotted, run together) or quoted, NAME=value before a command (after `cd … &&`, inside
// `sh -c`), a URL's user and password, redis-cli's `-a` and AUTH, curl's user:password and headers,
// mysql's -p, a heredoc, the program's own arguments after its script file. The real CLI runs on
// projects whose scripts hold them; none reaches the output, and what is not a secret (the tool,
// its options' names, the script file) still shows where the hole is. What it prints of a script
// also has its control characters escaped.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ROOT } from '../helpers/fixture-projects';
import { childRunner } from '../helpers/child-process';

const PROJECT = path.join(ROOT, 'test', 'fixtures', 'routes', 'cli', 'script-secrets', 'tsconfig.json');
const SCRATCH = path.join(ROOT, 'test', '.tmp', 'routes', 'cli-script-secrets');
const runChild = childRunner(1);

test('check prints every flagged script with its secrets hidden, whatever their shape, and the rest of the command as written', async (t) => {
  const result = await runChild(process.execPath, [CLI, 'check', '-p', PROJECT], { cwd: ROOT });
  t.is(result.status, 1, result.output);
  t.regex(result.stdout, /\b13 toolchain holes\b/);
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

/** A copy of the fixture project whose package.json runs `scripts`, in this file's scratch folder. */
function projectWith(name: string, scripts: Record<string, string>): string {
  const dir = path.join(SCRATCH, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.dirname(PROJECT), dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ private: true, scripts, devDependencies: { typescript: '^5.9.3' } }),
  );
  return path.join(dir, 'tsconfig.json');
}

/**
 * Each script a hole (tsx runs src/orders.ts unlocked) that carries a secret starting Hunter2 in
 * one shape, and the line check prints for it (`\\` is a printed backslash, `\n` a printed new line).
 * A secret handed to another tool rides in a `$(…)` of the tsx command, as the fixture's redis-cli does.
 */
const SHAPES: Record<string, [script: string, printed: string]> = {
  // Quoted flags and script files: a word is judged by what it says once its quotes are gone.
  'quoted-a': [
    'tsx --conditions=$(redis-cli "-a" Hunter2 GET c) src/orders.ts',
    'tsx --conditions=$(redis-cli "-a" … GET c) src/orders.ts',
  ],
  // An option's value that names a file is not the script: the words after it are still the command's.
  'option-file': [
    'tsx --import=./setup.ts --conditions dev --password Hunter2 src/orders.ts',
    'tsx --import=./setup.ts --conditions dev --password … src/orders.ts',
  ],
  // Lookalikes: typographic quotes, full-width letters and equals sign.
  'curly-quoted': ['tsx “--password” Hunter2 src/orders.ts', 'tsx “--password” … src/orders.ts'],
  'full-width': ['tsx --password＝Hunter2 src/orders.ts', 'tsx --password=… src/orders.ts'],
  // A Redis command piped to redis-cli, a registry login's -p.
  'auth-piped': [
    "tsx --conditions=$(printf 'AUTH Hunter2\\nGET c' | redis-cli) src/orders.ts",
    "tsx --conditions=$(printf 'AUTH … …' | redis-cli) src/orders.ts",
  ],
  'docker-login': [
    'tsx --conditions=$(docker login -u ci -p Hunter2 registry.example) src/orders.ts',
    'tsx --conditions=$(docker login -u ci -p … registry.example) src/orders.ts',
  ],
  // A Redis URL without the slashes, as ioredis reads one.
  'no-slashes': ['tsx --redis redis:bob:Hunter2@h src/orders.ts', 'tsx --redis redis:…@h src/orders.ts'],
  'quoted-password': ['tsx "--password" Hunter2 src/orders.ts', 'tsx "--password" … src/orders.ts'],
  'single-quoted-password': ["tsx '--password' Hunter2 src/orders.ts", "tsx '--password' … src/orders.ts"],
  'quoted-script': ['tsx "src/orders.ts" -a Hunter2 "Hunter2 too"', 'tsx "src/orders.ts" -a … …'],
  'joined-parts': [`tsx "--pass"'word' Hunter2 src/orders.ts`, `tsx "--pass"'word' … src/orders.ts`],
  'ansi-c': [String.raw`tsx $'--\x70assword' Hunter2 src/orders.ts`, String.raw`tsx $'--\\x70assword' … src/orders.ts`],
  escaped: [String.raw`tsx --pass\word Hunter2 src/orders.ts`, String.raw`tsx --pass\\word … src/orders.ts`],
  'quoted-equals': ['tsx "--password=Hunter2" src/orders.ts', 'tsx --password=… src/orders.ts'],
  'quoted-option-with-value': ['tsx "--password Hunter2" src/orders.ts', `tsx "--password …" src/orders.ts`],
  'quoted-tool': [
    'tsx --conditions=$("redis-cli" -a Hunter2 GET c) src/orders.ts',
    'tsx --conditions=$("redis-cli" -a … GET c) src/orders.ts',
  ],
  'continued-line': ['tsx --token \\\nHunter2 src/orders.ts', String.raw`tsx --token \\\n… src/orders.ts`],
  // redis-cli and valkey-cli, as the docs promise: -a (attached too), AUTH, CONFIG SET requirepass.
  'valkey-cli': [
    'tsx --conditions=$(valkey-cli -h 127.0.0.1 -a Hunter2 GET c) src/orders.ts',
    'tsx --conditions=$(valkey-cli -h 127.0.0.1 -a … GET c) src/orders.ts',
  ],
  'redis-cli-attached': [
    'tsx --conditions=$(redis-cli -aHunter2 GET c) src/orders.ts',
    'tsx --conditions=$(redis-cli -a… GET c) src/orders.ts',
  ],
  'redis-cli-auth': [
    'tsx --conditions=$(redis-cli AUTH alice Hunter2) src/orders.ts',
    'tsx --conditions=$(redis-cli AUTH … …) src/orders.ts',
  ],
  'valkey-cli-auth': [
    'tsx --conditions="$(valkey-cli auth Hunter2)" src/orders.ts',
    'tsx "--conditions=$(valkey-cli auth …)" src/orders.ts',
  ],
  'redis-cli-requirepass': [
    'tsx --conditions=`redis-cli CONFIG SET requirepass Hunter2` src/orders.ts',
    'tsx --conditions=`redis-cli CONFIG SET requirepass …` src/orders.ts',
  ],
  'redis-cli-here-string': [
    `tsx --conditions="$(redis-cli <<< 'AUTH Hunter2')" src/orders.ts`,
    `tsx "--conditions=$(redis-cli <<< 'AUTH …')" src/orders.ts`,
  ],
  // Other tools' credentials: curl's user:password and headers, mysql's -p, sshpass, a database URL.
  'curl-user': [
    'tsx --conditions=$(curl -u alice:Hunter2 http://127.0.0.1:8080/c) src/orders.ts',
    'tsx --conditions=$(curl -u alice:… http://127.0.0.1:8080/c) src/orders.ts',
  ],
  'curl-long-user': [
    'tsx --conditions=$(curl --user "alice:Hunter2" http://127.0.0.1:8080/c) src/orders.ts',
    'tsx --conditions=$(curl --user alice:… http://127.0.0.1:8080/c) src/orders.ts',
  ],
  'curl-attached-user': [
    'tsx --conditions=$(curl -ualice:Hunter2 http://127.0.0.1:8080/c) src/orders.ts',
    'tsx --conditions=$(curl -ualice:… http://127.0.0.1:8080/c) src/orders.ts',
  ],
  'curl-bearer': [
    `tsx --conditions="$(curl -H 'Authorization: Bearer Hunter2' http://127.0.0.1:8080/c)" src/orders.ts`,
    `tsx "--conditions=$(curl -H 'Authorization: …' http://127.0.0.1:8080/c)" src/orders.ts`,
  ],
  'curl-api-key': [
    `tsx --conditions=$(curl --header 'X-Api-Key: Hunter2' http://127.0.0.1:8080/c) src/orders.ts`,
    `tsx --conditions=$(curl --header 'X-Api-Key: …' http://127.0.0.1:8080/c) src/orders.ts`,
  ],
  'curl-attached-header': [
    `tsx --conditions=$(curl -H'Cookie: session=Hunter2' http://127.0.0.1:8080/c) src/orders.ts`,
    `tsx --conditions=$(curl '-HCookie: …' http://127.0.0.1:8080/c) src/orders.ts`,
  ],
  'mysql-attached': [
    `tsx --conditions=$(mysql -uroot -pHunter2 -e 'select 1') src/orders.ts`,
    `tsx --conditions=$(mysql -uroot -p… -e 'select 1') src/orders.ts`,
  ],
  'mysql-separate': [
    'tsx --conditions=$(mysql -p Hunter2 app) src/orders.ts',
    'tsx --conditions=$(mysql -p … app) src/orders.ts',
  ],
  psql: [
    'tsx --conditions=$(psql "postgresql://app:Hunter2@127.0.0.1/app" -c "select 1") src/orders.ts',
    'tsx --conditions=$(psql "postgresql://…@127.0.0.1/app" -c "select 1") src/orders.ts',
  ],
  sshpass: [
    'tsx --conditions=$(sshpass -p Hunter2 ssh deploy@127.0.0.1 cat c) src/orders.ts',
    'tsx --conditions=$(sshpass -p … ssh deploy@127.0.0.1 cat c) src/orders.ts',
  ],
  'npm-token': [
    'tsx --conditions=$(npm config set //registry.npmjs.org/:_authToken=Hunter2) src/orders.ts',
    'tsx --conditions=$(npm config set //registry.npmjs.org/:_authToken=…) src/orders.ts',
  ],
  'query-token': [
    `tsx --redis 'rediss://127.0.0.1:6380/?token=Hunter2' src/orders.ts`,
    'tsx --redis rediss://127.0.0.1:6380/?token=… src/orders.ts',
  ],
  // Variables set for a command: env, export in sh -c, a quoted value, PowerShell's $env:.
  env: ['env PGPASSWORD=Hunter2 tsx src/orders.ts', 'env PGPASSWORD=… tsx src/orders.ts'],
  'quoted-commands': [
    `sh -c 'cd . && tsx --password Hunter2 src/orders.ts'`,
    `sh -c 'cd . && tsx --password … src/orders.ts'`,
  ],
  export: [
    `sh -c 'export REDIS_URL=redis://alice:Hunter2@127.0.0.1:6379; tsx src/orders.ts'`,
    `sh -c 'export REDIS_URL=…; tsx src/orders.ts'`,
  ],
  'quoted-value': ['REDIS_PASSWORD="Hunter2 x" tsx src/orders.ts', 'REDIS_PASSWORD=… tsx src/orders.ts'],
  powershell: [
    `pwsh -c '$env:REDIS_PASSWORD="Hunter2"; tsx src/orders.ts'`,
    `pwsh -c '$env:REDIS_PASSWORD=…; tsx src/orders.ts'`,
  ],
  // A heredoc's lines are input, whatever they hold: its command is shown with them hidden, and
  // they stay with the command that opened them, not the one the pipe runs next.
  heredoc: ['sh <<END\nREDIS_AUTH=Hunter2 tsx src/orders.ts\nEND', String.raw`sh <<END\n…\nEND`],
  'heredoc-piped': ['cat <<END | tsx src/orders.ts\nAUTH Hunter2\nEND', 'tsx src/orders.ts'],
};

test('check hides a secret in every shape a shell passes one: quoted flags, other tools, variables, heredocs; the command stays readable', async (t) => {
  const project = projectWith(
    'shapes',
    Object.fromEntries(Object.entries(SHAPES).map(([name, [script]]) => [name, script])),
  );
  const result = await runChild(process.execPath, [CLI, 'check', '-p', project], { cwd: ROOT });
  t.is(result.status, 1, result.output);
  t.false(result.output.includes('Hunter'), result.output);
  for (const [name, [, printed]] of Object.entries(SHAPES))
    t.true(
      result.stderr.includes(`  package.json scripts.${name}: ${printed}\n`),
      `${name}: ${printed}\n${result.stderr}`,
    );
});

test("check prints a script's name and command with control characters escaped: neither starts a line nor colours one", async (t) => {
  const project = projectWith('control-characters', {
    'dev\nlockweave check: 0 toolchain holes': 'tsx src/orders.ts',
    start: 'tsx --title "\x1b[31mred\x1b]0;owned\x07" \u202e src/orders.ts --password Hunter2',
  });
  const result = await runChild(process.execPath, [CLI, 'check', '-p', project], { cwd: ROOT });
  t.is(result.status, 1, result.output);
  t.false(/[\x1b\x07\u202e]/.test(result.output), JSON.stringify(result.output));
  t.false(result.output.includes('Hunter'), result.output);
  t.true(
    result.stderr.includes(
      String.raw`  package.json scripts.dev\nlockweave check: 0 toolchain holes: tsx src/orders.ts`,
    ),
  );
  const start = String.raw`  package.json scripts.start: tsx --title "\x1b[31mred\x1b]0;owned\x07" \u202e src/orders.ts --password …`;
  t.true(result.stderr.includes(`${start}\n`), result.stderr);
  t.regex(result.stdout, /\b2 toolchain holes\b/);
});

/**
 * Code handed to an interpreter, each with a secret starting Hunter2, and the line check prints:
 * the code is hidden whole, wherever the password sits in it (an object's key, quoted or not, a
 * nested object, a template literal, a variable), and so are the words after it, the program's.
 * What is not code (the interpreter, its other options, the script file) is printed as written.
 */
const CODE_SHAPES: Record<string, [script: string, printed: string]> = {
  // The audit's script: an ioredis option in double-quoted `-e` code.
  'eval-object': [
    `node --import tsx -e "import('./src/orders.ts'); new (require('ioredis'))({ host: 'cache', password: 'Hunter2' })"`,
    'node --import tsx -e …',
  ],
  'eval-single-quoted-json': [
    `node --import tsx -e 'import("./src/orders.ts"); connect({ "password": "Hunter2" })'`,
    'node --import tsx -e …',
  ],
  'eval-equals': [
    `node --import tsx --eval="import('./src/orders.ts'); connect({ auth: { pass: 'Hunter2' } })"`,
    'node --import tsx --eval=…',
  ],
  'print-eval': [
    `node --import tsx -pe "import('./src/orders.ts'), { password: 'Hunter2' }"`,
    'node --import tsx -pe …',
  ],
  'print-long': [`tsx --print "connect({ password: 'Hunter2' })" src/orders.ts`, 'tsx --print … src/orders.ts'],
  'tsx-eval': ['tsx -e \'const password = `Hunter2`; import("./src/orders.ts")\'', 'tsx -e …'],
  'eval-variable': [`tsx -e "const pw = 'Hunter2'; connect({ password: pw })" src/orders.ts`, 'tsx -e … src/orders.ts'],
  'npx-version': [
    `tsx --conditions=$(npx -y tsx@4 -p "'Hunter2'") src/orders.ts`,
    'tsx --conditions=$(npx -y tsx@4 -p …) src/orders.ts',
  ],
  // The program's arguments after its code, as after a script file.
  'eval-arguments': [
    `node --import tsx -e "import('./src/orders.ts')" Hunter2 --port=Hunter2`,
    'node --import tsx -e … … --port=…',
  ],
  // Code that reaches an interpreter otherwise: a data: URL, a here-string, a heredoc.
  'data-url': [
    `node --import tsx --import 'data:text/javascript,globalThis.pw="Hunter2"' src/orders.ts`,
    'node --import tsx --import data:text/javascript,… src/orders.ts',
  ],
  'here-string': [
    `tsx --conditions=$(node <<< "console.log({ password: 'Hunter2' }.password)") src/orders.ts`,
    'tsx --conditions=$(node <<< …) src/orders.ts',
  ],
  heredoc: [
    "node --import tsx - <<'END'\nimport('./src/orders.ts'); connect('Hunter2')\nEND",
    String.raw`node --import tsx - <<'END'\n…\nEND`,
  ],
  // Other interpreters, inside the tsx command.
  'bun-eval': [
    `tsx --conditions=$(bun -e "console.log('Hunter2')") src/orders.ts`,
    'tsx --conditions=$(bun -e …) src/orders.ts',
  ],
  'deno-eval': [
    `tsx --conditions=$(deno eval --ext=ts "const p: string = 'Hunter2'") src/orders.ts`,
    'tsx --conditions=$(deno eval --ext=ts …) src/orders.ts',
  ],
  python: [
    `tsx --conditions=$(python3 -c "print('Hunter2')") src/orders.ts`,
    'tsx --conditions=$(python3 -c …) src/orders.ts',
  ],
  perl: [
    `tsx --conditions=$(perl -ne 'print "Hunter2"') src/orders.ts`,
    'tsx --conditions=$(perl -ne …) src/orders.ts',
  ],
  // A shell's command whose own command has code, read as the shell would.
  'nested-shell': [
    `sh -c "node --import tsx -e \\"import('./src/orders.ts'); connect({ password: 'Hunter2' })\\""`,
    'sh -c "node --import tsx -e …"',
  ],
  // An interpreter lockweave cannot name ($NODE): a secret's key and its string are still hidden.
  'unknown-interpreter': [
    `tsx --conditions=$(echo "{ password: 'Hunter2' }" | $NODE) src/orders.ts`,
    `tsx --conditions=$(echo "{ password: … }" | $NODE) src/orders.ts`,
  ],
};

test('check hides the code an interpreter is handed, whole: -e, -p, -pe, --eval=, data: URLs, here-strings, other languages, nested shells', async (t) => {
  const project = projectWith(
    'code',
    Object.fromEntries(Object.entries(CODE_SHAPES).map(([name, [script]]) => [name, script])),
  );
  const result = await runChild(process.execPath, [CLI, 'check', '-p', project], { cwd: ROOT });
  t.is(result.status, 1, result.output);
  t.false(result.output.includes('Hunter'), result.output);
  for (const [name, [, printed]] of Object.entries(CODE_SHAPES))
    t.true(
      result.stderr.includes(`  package.json scripts.${name}: ${printed}\n`),
      `${name}: ${printed}\n${result.stderr}`,
    );
  t.regex(result.stdout, new RegExp(`\\b${Object.keys(CODE_SHAPES).length} toolchain holes\\b`));
});
