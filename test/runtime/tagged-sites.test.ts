// The runtime reads, without a parser, the site of each method a file's tags stand on
// (runtime/base/tagged-sites.ts): in a jest test context a module passes as woven when it defined a
// lock at each of those sites, which a hand-made lock under another site must not do. The promise:
// on every tagged fixture file and on generated files mixing classes, nested and anonymous classes,
// class expressions, object literals, functions, decorators, generics, and strings, template
// literals and regular expressions holding braces and the tag's text, each site read equals the one
// the transformer's own analysis writes, and the businessFlag read its tag's, or is undefined (not
// shown woven) — never another site or business.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { analyseFile } from '../../transformer/check/analyse';
import { taggedSites } from '../../runtime/base/tagged-sites';
import { ROOT } from '../helpers/fixture-projects';
import { programOf, tsApi } from '../helpers/in-memory-program';
import { seededRandom, typeScriptSourcesUnder } from '../helpers/generated-sources';

const TAG = `@${'redisLock'}`;

interface Compared {
  /** Sites the scanner read otherwise than the transformer wrote them, or not at all: none is the promise. */
  readonly wrong: string[];
  readonly planned: number;
  /** Planned sites the scanner left undefined. */
  readonly unread: string[];
}

/** The transformer's sites (with the checker, as tspc) beside the scanner's, file by file. */
function compare(files: Record<string, string>): Compared {
  const program = programOf(files);
  const checker = program.getTypeChecker();
  const compared: Compared = { wrong: [], planned: 0, unread: [] };
  for (const name of Object.keys(files)) {
    const file = program.getSourceFile(name) as ts.SourceFile;
    const { plans } = analyseFile(tsApi, checker, file, {});
    const read = taggedSites(files[name], /x$/.test(name));
    for (const plan of plans) {
      (compared as { planned: number }).planned++;
      const start = plan.target.node.getStart(file);
      const where = `${name}:${file.getLineAndCharacterOfPosition(start).line + 1} ${plan.target.site}`;
      const found = read.filter((entry) => entry.at === start);
      if (found.length === 0) compared.wrong.push(`${where}: no tagged block read before it`);
      for (const { site, businessFlags } of found) {
        if (site === undefined || businessFlags === undefined) compared.unread.push(where);
        else if (site !== plan.target.site) compared.wrong.push(`${where}: read as ${site}`);
        else if (!businessFlags.includes(plan.businessFlag))
          compared.wrong.push(`${where}: businessFlag read as ${businessFlags.join(', ')}, not ${plan.businessFlag}`);
      }
    }
  }
  return compared;
}

test('every tagged fixture file: each site read equals the transformer’s, none read otherwise', (t) => {
  const files: Record<string, string> = {};
  for (const file of typeScriptSourcesUnder(path.join(ROOT, 'test', 'fixtures'))) {
    const text = fs.readFileSync(file, 'utf8');
    if (text.includes(TAG)) files[file] = text;
  }
  t.true(Object.keys(files).length > 50, `${Object.keys(files).length} files`);
  const { wrong, planned, unread } = compare(files);
  t.log(`${planned} sites planned, ${unread.length} left unread`);
  t.deepEqual(wrong, []);
  t.true(planned > 100, `${planned} planned`);
  // Left unread is safe (the module is not shown woven) but refuses an honest ts-jest user: rare.
  t.true(unread.length <= planned / 50, unread.join('\n'));
});

/** Text that holds braces, comment openers and the tag's own text, in each form that is no comment. */
const NOISE = [
  `const s1 = "/** ${TAG} businessFlag=x keyName=id */ { } }";`,
  `const s2 = '{ ${TAG} } */ /*';`,
  `const s3 = \`{ \${ { a: \`}\` }.a } /** ${TAG} businessFlag=y keyName=id */ \${"}"} }\`;`,
  'const r1 = /[/}{]\\/*{/g;',
  'const r2 = /\\/\\*\\*/.test("x") ? 1 : 2 / 3;',
  `// ${TAG} businessFlag=z keyName=id {`,
  `/* ${TAG} { */`,
  'const o0 = { a: { b: [1, { c: "}" }] } };',
  'type Shape<T extends { id: string } = { id: string }> = { [K in keyof T]: T[K] };',
];

const DECORATORS = ['', '@dec ', "@dec({ name: '}', nested: { x: [1, 2] } }) ", '@dec<{ a: 1 }>() ', '@ns.dec() '];

/** One generated piece of a file: declarations whose tagged methods the transformer plans. */
function piece(pick: () => number, depth: number): string {
  const choose = <T>(list: readonly T[]): T => list[Math.floor(pick() * list.length)];
  const n = Math.floor(pick() * 1e6);
  const tag = () =>
    choose([
      `/** ${TAG} businessFlag=f${n} keyName=id */\n`,
      `/**\n * Does it.\n * ${TAG} businessFlag=g${n} keyName=id\n */\n`,
    ]);
  const noise = () => (pick() < 0.4 ? `${choose(NOISE)}\n` : '');
  const body = () => `{ ${noise()}${depth < 2 && pick() < 0.4 ? piece(pick, depth + 1) : ''}return id; }`;
  const methodName = () =>
    choose([
      `pay${n}`,
      `run${n}`,
      'get',
      'async',
      `#hidden${n}`,
      `'quoted-${n}'`,
      `${n}`,
      '[key]',
      `gen${n}<T extends { id: string }>`,
    ]);
  const method = () =>
    `${tag()}${choose(DECORATORS)}${choose(['', 'public ', 'static ', 'private ', 'protected static '])}async ${methodName()}(id: string): Promise<string> ${body()}\n`;
  const objectMethod = () =>
    `${tag()}async ${choose([`pay${n}`, `'quoted ${n}'`, '[key]', `${n}`])}(id: string): Promise<string> ${body()},\n`;
  let unique = 0;
  const members = () =>
    Array.from({ length: 1 + Math.floor(pick() * 3) }, method)
      .join('')
      .replace(/#hidden\d+/g, (hidden) => `${hidden}_${unique++}`);
  const objectBody = () =>
    `{\n${Array.from({ length: 1 + Math.floor(pick() * 2) }, objectMethod).join('')}plain: 1,\n}`;
  const name = `N${depth}_${n}`;
  // Inside a function body nothing is exported, and no namespace is declared.
  const exported = depth === 0 ? 'export ' : '';
  return choose([
    () => `${choose(['', exported, `${exported}abstract `])}class C${name} {\n${members()}}\n`,
    () =>
      `${choose(DECORATORS)}${exported}class D${name}<T extends { id: string }> extends Base${choose(['', '<{ a: 1 }>'])} implements I<{ b: 2 }> {\nfield = { x: '}' };\n${members()}}\n`,
    () => `const E${name} = class {\n${members()}};\n`,
    () => `const F${name}: new () => unknown = class G${name} {\n${members()}};\n`,
    () => `void (class {\n${members()}});\n`,
    () => `hold(class {\n${members()}}, 1);\n`,
    () => `const H${name} = class {\n${members()}} as unknown;\n`,
    () => `const o${name} = ${objectBody()};\n`,
    () => `const p${name}: Record<string, unknown> = ${objectBody()};\n`,
    () =>
      `const q${name} = { inner${n}: ${objectBody()}, 'quoted key': ${objectBody()}, [dynamic]: ${objectBody()} };\n`,
    () => `const r${name} = ${objectBody()} as const;\n`,
    () => `const s${name} = ${objectBody()} satisfies object;\n`,
    () => `hold(${objectBody()});\n`,
    () => `let w${name} = 1, x${name} = ${objectBody()};\n`,
    () => `const y${name} = (${objectBody()});\n`,
    () => `const z${name} = [${objectBody()}, class {\n${members()}}];\n`,
    () => `let v${name}: unknown;\nv${name} = ${objectBody()};\n`,
    () => `const u${name} = (id: string) => (${objectBody()});\nconst k${name} = () => class {\n${members()}};\n`,
    () =>
      `const m${name} = {\n  Nested${n}: class {\n${members()}},\n  deep${n}: { deeper${n}: ${objectBody()} },\n};\n`,
    () => `${exported}const t${name} = cond ? ${objectBody()} : ${objectBody()};\n`,
    () =>
      `class U${name} {\n  holder${n} = ${objectBody()};\n  static typed${n}: Record<string, unknown> = ${objectBody()}\n  nested${n} = class {\n${members()}};\n${members()}}\n`,
    () => `${noise()}${tag()}${exported}async function f${name}(id: string): Promise<string> ${body()}\n`,
    () =>
      `${noise()}${tag()}async function g${name}<T extends { id: string }>(id: string): Promise<string> ${body()}\n`,
    () =>
      depth === 0
        ? `namespace NS${name} {\n${tag()}export async function h${n}(id: string): Promise<string> ${body()}\n}\n`
        : '',
    () => `function outer${name}() {\n  ${noise()}class Inner${n} {\n${members()}}\n  return Inner${n};\n}\n`,
    () => noise(),
  ])();
}

const PRELUDE = [
  'declare const dec: any;',
  'declare const ns: { dec: any };',
  'declare function hold(...values: unknown[]): void;',
  'declare const cond: boolean;',
  "declare const key: 'k';",
  "declare const dynamic: 'd';",
  'declare class Base<T = unknown> { x?: T }',
  'interface I<T> { y?: T }',
].join('\n');

test('property: on 300 generated files each site read equals the transformer’s, none read otherwise', (t) => {
  const files: Record<string, string> = {};
  for (let seed = 1; seed <= 300; seed++) {
    const pick = seededRandom(seed);
    files[`/virtual/generated-${seed}.ts`] =
      `${PRELUDE}\n${Array.from({ length: 2 + Math.floor(pick() * 4) }, () => piece(pick, 0)).join('')}export {};\n`;
  }
  // The last file holds one default export: each kind of default is its own file.
  files['/virtual/default-class.ts'] =
    `export default class {\n  /** ${TAG} businessFlag=d keyName=id */\n  async pay(id: string) { return id; }\n}\n`;
  files['/virtual/default-function.ts'] =
    `/** ${TAG} businessFlag=d keyName=id */\nexport default async function (id: string) { return id; }\n`;
  files['/virtual/default-object.ts'] =
    `export default {\n  /** ${TAG} businessFlag=d keyName=id */\n  async pay(id: string) { return id; },\n};\n`;
  const { wrong, planned, unread } = compare(files);
  t.log(`${planned} sites planned, ${unread.length} left unread`);
  t.deepEqual(wrong, []);
  t.true(planned > 1000, `${planned} planned`);
  t.true(unread.length <= planned / 10, `${unread.length} of ${planned} unread:\n${unread.slice(0, 20).join('\n')}`);
});

test('a site read is the exact one: a hand-made lock under a site that only ends with the method’s name is another site', (t) => {
  const sites = (text: string) => taggedSites(text).map((entry) => entry.site);
  const tagged = `/** ${TAG} businessFlag=payOrder keyName=orderNo */`;
  t.deepEqual(
    sites(
      `defineLock({ site: 'InvoiceService.pay', businessFlag: 'invoicePay' });\nexport class OrderService {\n  ${tagged}\n  async pay(orderNo: string) {}\n}\n`,
    ),
    ['OrderService.pay'],
  );
  t.deepEqual(sites(`export class OrderService {\n  ${tagged}\n  async settle(orderNo: string) {}\n}\n`), [
    'OrderService.settle',
  ]);
  // Text that does not tokenize, or JSX, shows no site: each tagged block is there, unread.
  t.deepEqual(sites(`class A {\n  ${tagged}\n  async pay(k) { return "open\n  }\n}\n`), [undefined]);
  t.deepEqual(
    taggedSites(`class A {\n  ${tagged}\n  async pay(k) { return <b>{k}</b>; }\n}\n`, true).map((e) => e.site),
    [undefined],
  );
});
