// ts-node with ts-patch's compiler weaves the files it compiles; its "scope"/"scopeDir" and
// "ignore" settings leave other TypeScript to Node, which strips the types and the tags with them.
// The transformer marks the files it was handed, not the whole process: the runtime refuses a
// tagged file ts-node left to Node, whether it loaded before the runtime or after, before its body
// runs — a require hook that keeps the _compile it found (pirates), or one from before the runtime
// loaded, included; with every file in ts-node's hands both methods hold their keys.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../helpers/fixture-projects';
import { childRunner, type Ran } from '../helpers/child-process';
import { routeScratch } from '../helpers/route-scratch';
import { NODE_LINES, TS_NODE } from '../helpers/scratch-runs';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'routes', 'ts-node-scope');
const NODES = NODE_LINES;
const scratch = routeScratch('routes', 'ts-node-scope');
const runChild = childRunner(2);

test.before(() => {
  fs.cpSync(FIXTURE, scratch.dir, { recursive: true });
});

function tsNode(
  node: string,
  project: string,
  env: Record<string, string> = {},
  preloads: string[] = [],
): Promise<Ran> {
  return runChild(node, [TS_NODE, ...preloads, 'app/main.ts'], {
    cwd: scratch.dir,
    env: { REDIS_URL: scratch.redis().url, TS_NODE_PROJECT: path.join(scratch.dir, project), ...env },
  });
}

for (const [nodeName, node] of Object.entries(NODES)) {
  for (const [setting, project] of [
    ['"scope": true, "scopeDir": "./app"', 'tsconfig.scope.json'],
    ['"ignore": ["^lib/"]', 'tsconfig.ignore.json'],
  ]) {
    for (const [when, env] of [
      ['after the runtime', {}],
      ['before the runtime', { LIB_FIRST: '1' }],
    ] as const) {
      test(`${nodeName}, ts-node ${setting}: a tagged file left to Node, loaded ${when}, is refused before its body runs`, async (t) => {
        const result = await tsNode(node, project, env);
        t.not(result.status, 0, result.output);
        t.regex(
          result.output,
          /lockweave: Node ran \S*lib\/pay\.ts without lockweave's transformer weaving it[^\n]*"scope", "scopeDir" or "ignore"/,
        );
        t.notRegex(result.output, /RESULT lib/);
      });
    }
  }

  test(`${nodeName}, ts-node "ignore" and a require hook in the way of pirates: a tagged file left to Node is refused before its first call`, async (t) => {
    // The hook keeps the module's _compile from the start of the require, before Node's load hooks
    // ran: the file is refused at its compile all the same, not once the turn is over.
    const result = await tsNode(node, 'tsconfig.ignore.json', { LIB_NEXT: '1' }, ['-r', './pirates-like.js']);
    t.not(result.status, 0, result.output);
    t.regex(result.output, /lockweave: Node ran \S*lib\/pay\.ts without lockweave's transformer weaving it/);
    t.notRegex(result.output, /ENTERED lib|RESULT lib/);
  });

  test(`${nodeName}, ts-node "ignore" and a require hook with a _compile it kept: a tagged file left to Node is refused as its require ends, before its first call`, async (t) => {
    // Its compile never reaches the runtime's check: the end of its load does, before its exports
    // reach main.ts.
    const result = await tsNode(node, 'tsconfig.ignore.json', { LIB_NEXT: '1' }, ['-r', './keeps-compile.js']);
    t.not(result.status, 0, result.output);
    t.regex(result.output, /lockweave: Node ran \S*lib\/pay\.ts without lockweave's transformer weaving it/);
    t.notRegex(result.output, /ENTERED lib|RESULT lib/);
  });

  test(`${nodeName}, ts-node compiling every file: both tagged methods hold their keys`, async (t) => {
    const result = await tsNode(node, 'tsconfig.all.json');
    t.is(result.status, 0, result.output);
    t.regex(result.stdout, /RESULT app LOCKED\nRESULT lib LOCKED/);
  });
}
