// The security rule of the weave: tag text never becomes code. Whatever a tag holds, the woven file
// uses no name the source did not (besides the runtime's own), and what the tag said reaches it
// only inside string literals (defineLock's options, the refusal's message); each method is
// either locked or refused. Checked on both
// routes: tspc's AST and the text route's output.
import test from 'ava';
import { namesInCode, syntaxErrors, wovenByTextRoute, wovenByTspcRoute } from './woven';

const PAYLOAD = 'process.exit(1)';

/** Tags carrying code where a value goes; each must be refused or woven as data. */
const HOSTILE = [
  `businessFlag="a);${PAYLOAD};//" keyName=no`,
  `businessFlag=a keyName="no);${PAYLOAD};//"`,
  `businessFlag=a keyName=no[${PAYLOAD}]`,
  `businessFlag=a keyName=no prefix="x\\");${PAYLOAD};//"`,
  `businessFlag=a keyName=no lockTime="1);${PAYLOAD}"`,
  `businessFlag=a keyName=no onFail="Error);${PAYLOAD};//"`,
  `businessFlag=a keyName=no keyType=CLASS fieldName="x\\"];${PAYLOAD};//"`,
  `businessFlag=a keyName=no keyType=JSON fieldName="\`\${${PAYLOAD}}\`"`,
  `businessFlag=a keyName=no extra="${PAYLOAD}"`,
];

const source = (tag: string) =>
  `export class S {\n  /** @redisLock ${tag} */\n  async m(no: string): Promise<string> { return no; }\n}\n`;

/** Names woven code may add: the runtime's binding and calls, the lock's constant, the lease and its calls, Error. */
const WEAVE_NAMES = new Set([
  'lockweave_1',
  'lockweave',
  'm_lock_1',
  'defineLock',
  'lease_1',
  'acquire',
  'acquireComposite',
  'run',
  'release',
  'undefined',
  'readField',
  'readJsonField',
  'get',
  'Error',
  'Promise',
  'site',
  'businessFlag',
  'lockTime',
  'retries',
  'waitTime',
  'onFail',
  'prefix',
  'require',
]);

for (const [route, weave] of [
  ['tspc', (s: string) => wovenByTspcRoute(s).text],
  ['text', (s: string) => wovenByTextRoute(s)],
] as const) {
  test(`${route} route: a tag's text reaches the woven file only as string literals`, (t) => {
    for (const tag of HOSTILE) {
      const before = namesInCode(source(tag));
      const text = weave(source(tag));
      t.deepEqual(syntaxErrors(text), [], `${tag}\n${text}`);
      const added = [...namesInCode(text)].filter((name) => !before.has(name) && !WEAVE_NAMES.has(name));
      t.deepEqual(added, [], `${tag}: the woven file uses names its source did not\n${text}`);
      t.false(namesInCode(text).has('process'), `${tag}\n${text}`);
      t.regex(
        text,
        /throw new Error\("@redisLock: |await m_lock_1\.acquire(Composite)?\(/,
        `${tag}: the method is refused or locked, never left as it was\n${text}`,
      );
    }
  });
}

test('text route: no line added or removed; the hoisted lines share the first line, the body its own', (t) => {
  const text = wovenByTextRoute(source('businessFlag=pay.order:1 keyName=no prefix=app: lockTime=2s'));
  t.deepEqual(text.split('\n'), [
    'import * as lockweave_1 from "lockweave/runtime"; const m_lock_1 = lockweave_1.defineLock({ site: "S.m", businessFlag: "pay.order:1", lockTime: 2000, prefix: "app:" }); export class S {',
    '  /** @redisLock businessFlag=pay.order:1 keyName=no prefix=app: lockTime=2s */',
    '  async m(no: string): Promise<string> { const lease_1 = await m_lock_1.acquire(no); try { return await lease_1.run(async () => { return no; }); } finally { await lease_1.release(); } }',
    '}',
    '',
  ]);
});
