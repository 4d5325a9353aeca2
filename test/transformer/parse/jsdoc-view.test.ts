// tsc parses no JSDoc in .ts files (TypeScript >= 5.3); lockweave reads the JSDoc of a node by the
// parser's own rule (its leading `/**` comments, each parsed alone). The promises: that reading
// gives every node exactly the blocks full JSDoc parsing gives it — on every fixture and on
// generated files (a property test) — on the compiler's own nodes (the checker and the weave use
// them); and where TypeScript lacks the rule's functions, the former way (the file parsed again and
// paired node by node) makes a file whose parse does not pair up an error (93009) at every tag,
// never a method left unlocked.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { HAND_WRITTEN } from '../../fixtures/faults/compile-corpus';
import { analyseFile } from '../../../transformer/check/analyse';
import { jsDocParser } from '../../../transformer/parse/jsdoc-view';
import { FIXTURES } from '../../helpers/fixture-projects';
import { OPTIONS, programOf, tsApi } from '../../helpers/in-memory-program';
import { seededRandom, typeScriptSourcesUnder } from '../../helpers/generated-sources';

/** What the analysis says about every root file, as plain data: codes, spans, messages, locked sites. */
function analyse(program: ts.Program) {
  const checker = program.getTypeChecker();
  return program.getRootFileNames().map((name) => {
    const file = program.getSourceFile(name)!;
    const { plans, errors, refused } = analyseFile(tsApi, checker, file, {});
    return {
      name,
      errors: errors.map((e) => `${e.code}@${e.span.start}+${e.span.length} ${e.message}`),
      plans: plans.map((p) => `${p.target.site}@${p.target.node.pos} ${JSON.stringify(p.options)} ${p.keys.length}`),
      refused: refused.map((r) => `${r.node.pos}..${r.node.end} ${r.error.code}`),
    };
  });
}

function fixtureFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.ts')))
    files[`/virtual/${path.basename(dir)}/${name}`] = fs.readFileSync(path.join(dir, name), 'utf8');
  return files;
}

function corpusFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const standard = 'export class Svc {\n  TAG\n  async pay(orderNo: string): Promise<string> { return BODY; }\n}\n';
  HAND_WRITTEN.forEach((c, i) => {
    files[`/virtual/corpus/case-${i}.ts`] = (c.source ?? standard)
      .replace('TAG', `/** @redisLock ${c.tag} */`)
      .replace(/BODY/g, '"body"');
  });
  return files;
}

test('without JSDoc parsing, the analysis equals the one with all JSDoc parsed (every error, every lock)', (t) => {
  const files = {
    ...fixtureFiles(path.join(FIXTURES, 'errors', 'src')),
    ...fixtureFiles(path.join(FIXTURES, 'esm', 'src')),
    ...corpusFiles(),
  };
  const full = analyse(programOf(files, tsApi.JSDocParsingMode.ParseAll));
  const asTsc = analyse(programOf(files, tsApi.JSDocParsingMode.ParseForTypeErrors));
  const none = analyse(programOf(files, tsApi.JSDocParsingMode.ParseNone));
  t.true(full.some((f) => f.plans.length > 0) && full.some((f) => f.errors.length > 0));
  t.deepEqual(asTsc, full);
  t.deepEqual(none, full);
});

test("the lock is planned on the compiler's own node, which carries no JSDoc", (t) => {
  const name = '/virtual/service.ts';
  const program = programOf(
    {
      [name]:
        'export class Service {\n  /** @redisLock businessFlag=pay keyName=orderNo */\n  async pay(orderNo: string): Promise<string> { return orderNo; }\n}\n',
    },
    tsApi.JSDocParsingMode.ParseForTypeErrors,
  );
  const file = program.getSourceFile(name)!;
  const method = (file.statements[0] as ts.ClassDeclaration).members[0];
  t.is(tsApi.getJSDocTags(method).length, 0, 'the compiler parsed the block after all: this test proves nothing');
  const { plans, errors } = analyseFile(tsApi, program.getTypeChecker(), file, {});
  t.deepEqual(errors, []);
  t.is(plans.length, 1);
  t.is<ts.Node, ts.Node>(plans[0].target.node, method);
});

test('TSX, and a top-level await in a file that is a module only by moduleDetection, pair up too', (t) => {
  const files = {
    '/virtual/view.tsx':
      'const label = <b>{"x"}</b>;\nclass View {\n  /** @redisLock businessFlag=render keyName=id */\n  async render(id: string): Promise<unknown> { return [id, label]; }\n}\nvoid View;\n',
    '/virtual/script.ts':
      'await (Promise.resolve());\nclass Job {\n  /** @redisLock businessFlag=run keyName=id */\n  async run(id: string): Promise<string> { return id; }\n}\nvoid Job;\n',
  };
  // In a script `await (x)` is a call of a function named await; in a module, an await expression.
  const options = { ...OPTIONS, module: tsApi.ModuleKind.ES2022, moduleDetection: tsApi.ModuleDetectionKind.Force };
  const results = analyse(programOf(files, tsApi.JSDocParsingMode.ParseForTypeErrors, options));
  t.deepEqual(
    results.map((r) => [r.errors, r.plans.length]),
    [
      [[], 1],
      [[], 1],
    ],
  );
});

/** Each node's blocks as data: their ranges and the tags in them, with positions. */
const blocksText = (blocks: readonly ts.JSDoc[]) =>
  blocks
    .map((b) => `${b.pos}-${b.end}:${(b.tags ?? []).map((tag) => `${tag.tagName.text}@${tag.pos}`).join(',')}`)
    .join('|');

/** Every node of the file parsed with all JSDoc whose blocks the parser's rule gives otherwise: none is the promise. */
function disagreements(fileName: string, text: string): string[] {
  const read = jsDocParser(tsApi)!;
  const kind = fileName.endsWith('x') ? tsApi.ScriptKind.TSX : tsApi.ScriptKind.TS;
  const options = { languageVersion: tsApi.ScriptTarget.Latest, jsDocParsingMode: tsApi.JSDocParsingMode.ParseAll };
  const full = tsApi.createSourceFile(fileName, text, options, false, kind);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const want = blocksText((node as { jsDoc?: readonly ts.JSDoc[] }).jsDoc ?? []);
    const got = blocksText(read(node, text));
    if (want !== got)
      found.push(`${fileName} ${tsApi.SyntaxKind[node.kind]} at ${node.pos}: parser ${want}, rule ${got}`);
    tsApi.forEachChild(node, visit);
  };
  visit(full);
  return found;
}

test("the parser's rule gives each node of every fixture and test file the blocks full JSDoc parsing gives it", (t) => {
  const root = path.join(FIXTURES, '..', '..', '..');
  const files = ['test', 'examples', 'transformer', 'runtime'].flatMap((dir) =>
    typeScriptSourcesUnder(path.join(root, dir)),
  );
  const tagged = files.filter((file) => /@redislock/i.test(fs.readFileSync(file, 'utf8')));
  t.true(tagged.length > 50, `${tagged.length} files`);
  t.deepEqual(
    tagged.flatMap((file) => disagreements(file, fs.readFileSync(file, 'utf8'))),
    [],
  );
});

const COMMENTS = [
  '',
  '/** @redisLock businessFlag=pay keyName=id */\n',
  '/** @RedisLock businessFlag=pay */ ',
  '/** doc */\n/** @redisLock keyless */\n',
  '/**\n * Pays.\n * @param id the order\n * @redisLock businessFlag=pay keyName=id\n */\n',
  '// a line\n/** @redisLock businessFlag=a keyName=id */\n',
  '/** @redisLock businessFlag=a keyName=id */\n// a line after\n',
  '/* plain @redisLock */\n',
  '/** @see x @redisLock businessFlag=b */ /* between */ ',
  '/** @redislock businessFlag=c */\n',
];

/** One generated piece of a file, `comment()` before each place a block could go. */
function piece(pick: () => number, comment: () => string, depth: number): string {
  const member = () =>
    [
      () => `${comment()}async pay(id: string): Promise<string> { ${inner()} return id; }\n`,
      () => `${comment()}static ${comment()}async run(${comment()}id: string): Promise<void> {}\n`,
      () => `${comment()}get value(): number { return 1; }\n`,
      () => `${comment()}field = ${comment()}async (id: string) => id;\n`,
      () => `${comment()}constructor(${comment()}private readonly id: string) {}\n`,
      () => `${comment()}over(a: string): void;\n${comment()}over(a: unknown): void {}\n`,
      () => `${comment()}@dec ${comment()}async decorated(id: string) { return id; }\n`,
      () => `${comment()}[key: string]: unknown;\n`,
    ][Math.floor(pick() * 8)]();
  const inner = () => (depth < 2 ? piece(pick, comment, depth + 1) : '');
  const members = () => Array.from({ length: 1 + Math.floor(pick() * 3) }, member).join('');
  return [
    () => `${comment()}export class C${depth} {\n${members()}}\n`,
    () => `${comment()}export default class {\n${members()}}\n`,
    () => `${comment()}abstract class A${depth} { ${comment()}abstract go(): void; }\n`,
    () => `${comment()}export async function f${depth}(${comment()}id: string) { ${inner()} return id; }\n`,
    () => `${comment()}const g${depth} = ${comment()}async (id: string) => { ${inner()} return id; };\n`,
    () => `${comment()}const o${depth} = { ${comment()}async m(id: string) { return id; }, ${comment()}p: 1 };\n`,
    () => `${comment()}interface I${depth} { ${comment()}m(id: string): void; }\n`,
    () => `${comment()}namespace N${depth} { ${inner()} }\n`,
    () => `${comment()}enum E${depth} { ${comment()}A, ${comment()}B }\n`,
    () => `${comment()}if (Math.random()) { ${inner()} }\n`,
    () => `${comment()}void (${comment()}class { ${members()} });\n`,
    () => `${comment()}export const h${depth} = ${comment()}function (id: string) { return id; };\n`,
    () => `${comment()}type T${depth} = { ${comment()}m(): void };\n`,
  ][Math.floor(pick() * 13)]();
}

test('property: on 400 generated files the rule gives each node the blocks full JSDoc parsing gives it', (t) => {
  const found: string[] = [];
  for (let seed = 1; seed <= 400; seed++) {
    const pick = seededRandom(seed);
    const comment = () => COMMENTS[pick() < 0.5 ? 0 : 1 + Math.floor(pick() * (COMMENTS.length - 1))];
    const text = `declare const dec: any;\n${Array.from({ length: 2 + Math.floor(pick() * 4) }, () => piece(pick, comment, 0)).join('')}`;
    found.push(...disagreements(`/virtual/generated-${seed}.ts`, text));
  }
  t.deepEqual(found, []);
});

test("without the rule's functions (a TypeScript lacking them), a file whose own parse does not pair up with the compiler's is error 93009 at each tag, its methods refused", (t) => {
  const name = '/virtual/service.ts';
  const text =
    'export class Service {\n  /** @redisLock businessFlag=pay keyName=orderNo */\n  async pay(orderNo: string): Promise<string> { return <string>orderNo; }\n\n  /** @redisLock businessFlag=ship keyName=orderNo */\n  async ship(orderNo: string): Promise<string> { return orderNo; }\n}\n';
  const program = programOf({ [name]: text }, tsApi.JSDocParsingMode.ParseForTypeErrors);
  const file = program.getSourceFile(name)!;
  const checker = program.getTypeChecker();
  // Stands in for any disagreement between two parses: the copy is read as TSX, where `<string>` opens an element.
  (file as unknown as { scriptKind: ts.ScriptKind }).scriptKind = tsApi.ScriptKind.TSX;
  const withoutRule = { ...tsApi, parseIsolatedJSDocComment: undefined } as unknown as typeof ts;
  const { plans, errors, refused } = analyseFile(withoutRule, checker, file, {});
  t.is(plans.length, 0);
  t.deepEqual(
    errors.map((e) => [e.code, e.span.start]),
    [
      [93009, text.indexOf('@redisLock')],
      [93009, text.lastIndexOf('@redisLock')],
    ],
  );
  t.true(errors.every((e) => e.message.startsWith('@redisLock: ')));
  t.deepEqual(
    refused.map((r): ts.Node => r.node),
    [...(file.statements[0] as ts.ClassDeclaration).members],
  );
});
