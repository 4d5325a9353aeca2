// tsc parses no JSDoc in .ts files (TypeScript >= 5.3); lockweave reads the JSDoc of a file that
// mentions the tag from its own parse of the file, paired node by node with the compiler's tree.
// The promises: that reading finds exactly what full JSDoc parsing finds, on the compiler's own
// nodes (the checker and the weave use them), and a file whose parse does not pair up is an error
// (93009) at every tag, never a method left unlocked.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { HAND_WRITTEN } from '../../fixtures/faults/compile-corpus';
import { analyseFile } from '../../../transformer/check/analyse';
import { FIXTURES } from '../../helpers/fixture-projects';
import { OPTIONS, programOf, tsApi } from '../../helpers/in-memory-program';

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

test("a file whose own parse does not pair up with the compiler's is error 93009 at each tag, its methods refused", (t) => {
  const name = '/virtual/service.ts';
  const text =
    'export class Service {\n  /** @redisLock businessFlag=pay keyName=orderNo */\n  async pay(orderNo: string): Promise<string> { return <string>orderNo; }\n\n  /** @redisLock businessFlag=ship keyName=orderNo */\n  async ship(orderNo: string): Promise<string> { return orderNo; }\n}\n';
  const program = programOf({ [name]: text }, tsApi.JSDocParsingMode.ParseForTypeErrors);
  const file = program.getSourceFile(name)!;
  const checker = program.getTypeChecker();
  // Stands in for any disagreement between two parses: the copy is read as TSX, where `<string>` opens an element.
  (file as unknown as { scriptKind: ts.ScriptKind }).scriptKind = tsApi.ScriptKind.TSX;
  const { plans, errors, refused } = analyseFile(tsApi, checker, file, {});
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
