// Writes one file's plans into its source text, for the routes that hand TypeScript on to
// another tool (a bundler, Node's type stripping): the file stays TypeScript, only the locked
// bodies and one header change, and magic-string maps every original character to its new place.
//
//   <header: import, then one defineLock() per plan, all on the line of the first statement>
//   async pay(orderNo: string) { const lease_1 = await pay_lock_1.acquire(orderNo); try { return await
//       lease_1.run(async () => { ...unchanged... }); } finally { await lease_1.release(); } }
//
// No line is added or removed, so a stack trace points at the right line even where no source
// map is read (Node without --enable-source-maps). The header, key expressions and specs are
// the AST the tspc route weaves (weave/*.ts), printed: one shape, two ways of writing it.
// Every name and value printed comes from checked data; tag text never becomes code.
import type MagicString from 'magic-string';
import type * as ts from 'typescript';
import { loadBuildDependency } from '../build-dependency';
import type { FileAnalysis, LockPlan } from '../check/analyse';
import { defineLockStatement } from './define-lock-call';
import { asyncArrow, lockedStatements, type LockedBodyParts } from './method-body';
import { moduleImport, prologueLength, RUNTIME_SPECIFIER } from './runtime-import';
import { refusalMessage } from './weave-file';

export interface WovenText {
  readonly text: MagicString;
  readonly woven: number;
}

export function weaveText(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  analysis: FileAnalysis,
  commonJs: boolean,
): WovenText {
  const text = new (loadBuildDependency<typeof import('magic-string')>('magic-string').default)(sourceFile.text);
  const factory = tsApi.factory;
  const printer = tsApi.createPrinter({ removeComments: true, newLine: tsApi.NewLineKind.LineFeed });
  const print = (node: ts.Node) =>
    printer.printNode(tsApi.EmitHint.Unspecified, node, sourceFile).replace(/\s*\n\s*/g, ' ');
  const names = new FreshNames(sourceFile.text);
  const runtime = factory.createIdentifier(names.take('lockweave'));
  // One name for the lease in every locked body of the file: each is in a function of its own.
  const leaseName = factory.createIdentifier(names.take('lease'));
  const header: string[] = [print(moduleImport(tsApi, factory, commonJs, runtime, RUNTIME_SPECIFIER))];

  for (const plan of analysis.plans) {
    const lockName = factory.createIdentifier(names.take(`${plan.target.baseName}_lock`));
    header.push(print(defineLockStatement(factory, tsApi, runtime, lockName, plan)));
    const body = plan.target.node.body;
    // Printed with an empty arrow, then split around its braces: the original statements go
    // between them untouched. A prologue ("use strict") stays first: the weave goes after it.
    const statements = emptyLockedStatements(factory, tsApi, {
      runtime,
      lockName,
      leaseName,
      plan,
      failureClass: failureClass(factory, plan),
    });
    const [open, close] = splitAtEmptyBlock(statements.map(print).join(' '));
    const prologue = body.statements.slice(0, prologueLength(tsApi, body.statements));
    const start = prologue.length > 0 ? prologue[prologue.length - 1].end : body.getStart(sourceFile) + 1;
    text.appendLeft(start, ` ${open}`);
    text.prependRight(body.end - 1, `${close} `);
  }
  for (const { node, error } of analysis.refused) refuse(tsApi, sourceFile, text, node, error.message);

  if (analysis.plans.length > 0) {
    const at = headerPosition(tsApi, sourceFile);
    text.prependRight(at, `${at === 0 || sourceFile.text[at - 1] === '\n' ? '' : ' '}${header.join(' ')} `);
  }
  return { text, woven: analysis.plans.length };
}

/** The statements the text route writes, with an empty arrow for the original statements (woven-shape.ts compares against them). */
export function emptyLockedStatements(
  factory: ts.NodeFactory,
  tsApi: typeof ts,
  parts: LockedBodyParts,
): ts.Statement[] {
  return lockedStatements(factory, tsApi, parts, emptyAsyncArrow(tsApi, factory));
}

/** In the text route the class is named as the file names it; bundlers keep an import a body uses. */
export function failureClass(factory: ts.NodeFactory, plan: LockPlan): ts.Expression | undefined {
  const ref = plan.onFailClass;
  if (!ref) return undefined;
  return factory.createIdentifier(ref.kind === 'local' ? ref.name : ref.localName);
}

export function emptyAsyncArrow(tsApi: typeof ts, factory: ts.NodeFactory): ts.ArrowFunction {
  return asyncArrow(factory, tsApi, factory.createBlock([], false));
}

function splitAtEmptyBlock(call: string): [string, string] {
  const at = call.indexOf('async () => { }');
  if (at < 0) throw new Error(`lockweave: unexpected printed call ${call}`);
  const open = at + 'async () => {'.length;
  return [call.slice(0, open), call.slice(open + ' '.length)];
}

/** The body becomes a throw of the error, on as many lines as it had. */
function refuse(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  text: MagicString,
  node: ts.FunctionLikeDeclaration,
  message: string,
): void {
  const body = node.body!;
  const start = body.getStart(sourceFile);
  const lines = sourceFile.text.slice(start, body.end).split('\n').length - 1;
  const thrown = `throw new Error(${JSON.stringify(refusalMessage(message))});`;
  text.overwrite(
    start,
    body.end,
    tsApi.isBlock(body) ? `{ ${thrown}${'\n'.repeat(lines)} }` : `{ ${thrown} }${'\n'.repeat(lines)}`,
  );
}

/**
 * Where the header goes: after a "use strict" prologue, else at the top (after a #! line), ahead
 * of any leading comment, so that a tag on the first declaration still stands right above it.
 */
function headerPosition(tsApi: typeof ts, sourceFile: ts.SourceFile): number {
  const prologue = prologueLength(tsApi, sourceFile.statements);
  if (prologue > 0) return sourceFile.statements[prologue - 1].end;
  const shebang = tsApi.getShebang(sourceFile.text);
  return shebang ? sourceFile.text.indexOf('\n') + 1 || sourceFile.text.length : 0;
}

/** Names the file's text does not use yet: `lockweave_1`, `pay_lock_1`, ... */
class FreshNames {
  private readonly taken = new Set<string>();
  constructor(private readonly text: string) {}

  take(base: string): string {
    for (let n = 1; ; n++) {
      const name = `${base}_${n}`;
      if (this.taken.has(name) || new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(this.text)) continue;
      this.taken.add(name);
      return name;
    }
  }
}
