// Writes one file's plans into its AST: imports and hoisted specs at the top, locked bodies in place.
//
// The plans come from the program's own parse of the file, where tags and positions are; the tree
// woven is the one tsc hands this transformer, which a transformer listed before lockweave's may
// have rebuilt. A function is found in it by its original node (ts.getOriginalNode), which
// factory.update* keeps; one that is not found — rebuilt from scratch, or dropped — cannot be
// locked, so the file is emitted throwing at its top: it cannot load, let alone run unlocked.
import type * as ts from 'typescript';
import type { FileAnalysis, LockPlan } from '../check/analyse';
import { Code, LockweaveDiagnostic } from '../diagnostics';
import { defineLockStatement } from './define-lock-call';
import { lockedBody, type LockedBodyParts } from './method-body';
import { emitsCommonJs, importInsertionIndex, moduleImport, RUNTIME_SPECIFIER } from './runtime-import';

export interface WovenFile {
  readonly sourceFile: ts.SourceFile;
  /** A function the plans name that the tree handed in no longer holds (see above): one error each. */
  readonly missed: readonly LockweaveDiagnostic[];
}

export function weaveFile(
  tsApi: typeof ts,
  context: ts.TransformationContext,
  sourceFile: ts.SourceFile,
  analysis: FileAnalysis,
): WovenFile {
  const { plans, refused } = analysis;
  if (plans.length === 0 && refused.length === 0) return { sourceFile, missed: [] };
  const factory = context.factory;
  const runtime = wovenName(tsApi, factory, 'lockweave');
  // One name for the lease in every locked body of the file: each is in a function of its own.
  const leaseName = wovenName(tsApi, factory, 'lease');
  const commonJs = emitsCommonJs(tsApi, context.getCompilerOptions(), sourceFile);
  const imports: ts.Statement[] = [moduleImport(tsApi, factory, commonJs, runtime, RUNTIME_SPECIFIER)];
  const specs: ts.Statement[] = [];
  const byNode = new Map<ts.Node, LockedBodyParts>();
  const modules = new Map<string, ts.Identifier>();
  for (const plan of plans) {
    const lockName = wovenName(tsApi, factory, `${plan.target.baseName}_lock`);
    specs.push(defineLockStatement(factory, tsApi, runtime, lockName, plan));
    byNode.set(plan.target.node, { runtime, lockName, leaseName, plan, failureClass: failureClassExpression(plan) });
  }

  function failureClassExpression(plan: LockPlan): ts.Expression | undefined {
    const ref = plan.onFailClass;
    if (!ref) return undefined;
    if (ref.kind === 'local') return factory.createIdentifier(ref.name);
    let namespace = modules.get(ref.moduleSpecifier);
    if (!namespace) {
      namespace = wovenName(
        tsApi,
        factory,
        ref.moduleSpecifier
          .replace(/^.*\//, '')
          .replace(/\.[cm]?[jt]sx?$/, '')
          .replace(/[^A-Za-z0-9_$]/g, '_') || 'module',
      );
      modules.set(ref.moduleSpecifier, namespace);
      imports.push(moduleImport(tsApi, factory, commonJs, namespace, ref.moduleSpecifier));
    }
    return factory.createPropertyAccessExpression(namespace, ref.exportName);
  }

  const refusedByNode = new Map<ts.Node, string>(refused.map(({ node, error }) => [node, error.message]));
  const targets = [...plans.map((plan) => plan.target.node), ...refusedByNode.keys()].sort((a, b) => a.pos - b.pos);
  const met = new Set<ts.Node>();
  const visit = (node: ts.Node): ts.Node => {
    // Only the way down to a tagged method is visited: elsewhere nothing changes, and a whole-tree
    // visit on every file costs more than everything else the transformer does.
    if (node.pos >= 0 && !holdsTarget(targets, node)) return node;
    const original = tsApi.getOriginalNode(node);
    const refusal = refusedByNode.get(original);
    const woven = byNode.get(original);
    if (refusal === undefined && !woven) return tsApi.visitEachChild(node, visit, context);
    // A function to weave seldom holds another (a tagged method of an object literal inside it):
    // when it holds none, its parameters, name and body are not visited one by one, only replaced.
    const visited = holdsTarget(targets, original, original) ? tsApi.visitEachChild(node, visit, context) : node;
    met.add(original);
    if (refusal !== undefined) return refuseFunction(tsApi, context, visited as ts.FunctionLikeDeclaration, refusal);
    return weaveFunction(tsApi, context, woven!, visited as ts.MethodDeclaration | ts.FunctionDeclaration);
  };
  const body = tsApi.visitNodes(sourceFile.statements, visit, tsApi.isStatement);
  // The plans' nodes are the program's parse of the file: their positions are in its text.
  const parsed = tsApi.getOriginalNode(sourceFile, tsApi.isSourceFile) ?? sourceFile;
  const missed = targets.filter((target) => !met.has(target)).map((target) => missedError(parsed, target));
  if (missed.length > 0)
    return { sourceFile: factory.updateSourceFile(sourceFile, [refuseModule(factory, missed), ...body]), missed };
  if (plans.length === 0) return { sourceFile: factory.updateSourceFile(sourceFile, body), missed };
  const at = importInsertionIndex(tsApi, body);
  return {
    sourceFile: factory.updateSourceFile(sourceFile, [...body.slice(0, at), ...imports, ...specs, ...body.slice(at)]),
    missed,
  };
}

/**
 * A name of the weave's own, unique in the file (`lease_1`, `pay_lock_1`), that the printer does
 * not offer for substitution. Every identifier it prints is offered to the emit's transformers in
 * turn, to be replaced (an imported name by `module_1.name`); under `module: node16`/`nodenext`
 * the first to be asked looks up the file's module format from its file name each time. These
 * names come up several times in each locked method and hoisted lock, and a replacement is decided
 * by a node's place in the program's own parse, which a name made here does not have: the answer
 * is always to keep it.
 */
function wovenName(tsApi: typeof ts, factory: ts.NodeFactory, base: string): ts.Identifier {
  return tsApi.setEmitFlags(factory.createUniqueName(base), tsApi.EmitFlags.NoSubstitution);
}

/** A tagged function the tree handed in does not hold: what the build reports. */
function missedError(file: ts.SourceFile, target: ts.Node): LockweaveDiagnostic {
  const name = (target as ts.FunctionLikeDeclaration).name ?? target;
  return new LockweaveDiagnostic(
    Code.RebuiltBeforeWeave,
    'a transformer that ran before lockweave\'s rebuilt or removed this function, so it could not be woven and its module is emitted to throw when loaded; list { "transform": "lockweave/transformer" } first in compilerOptions.plugins',
    { file, start: name.getStart(file), length: name.getWidth(file) },
  );
}

/** The module's first statement when a function could not be woven: loading it throws (strings built by the factory). */
function refuseModule(factory: ts.NodeFactory, missed: readonly LockweaveDiagnostic[]): ts.Statement {
  const where = missed.map(({ span }) => {
    const { line, character } = span.file!.getLineAndCharacterOfPosition(span.start);
    // The file's name, not its path: the build machine's folders stay out of the output.
    return `${span.file!.fileName.replace(/^.*[\\/]/, '')}:${line + 1}:${character + 1}`;
  });
  return factory.createThrowStatement(
    factory.createNewExpression(factory.createIdentifier('Error'), undefined, [
      factory.createStringLiteral(
        `lockweave: ${where.join(', ')}: a transformer that ran before lockweave's rebuilt or removed a tagged function, so this module was not compiled with its locks and refuses to load; list lockweave/transformer first in compilerOptions.plugins and rebuild`,
      ),
    ]),
  );
}

/**
 * A function whose tag has an error. The build fails on the error, but tsc still writes output
 * (noEmitOnError is off by default), and a pipeline that ignores the exit code would ship it.
 * So its body is replaced by a throw of the error: it can fail, but it cannot run unlocked.
 * The message is a string literal built by the factory: tag text never becomes code.
 */
function refuseFunction(
  tsApi: typeof ts,
  context: ts.TransformationContext,
  node: ts.FunctionLikeDeclaration,
  message: string,
): ts.Node {
  const factory = context.factory;
  const thrown = factory.createThrowStatement(
    factory.createNewExpression(factory.createIdentifier('Error'), undefined, [
      factory.createStringLiteral(refusalMessage(message)),
    ]),
  );
  const body = tsApi.setTextRange(factory.createBlock([thrown], true), node.body!);
  return tsApi.visitEachChild(node, (child) => (child === node.body ? body : child), context);
}

export function refusalMessage(message: string): string {
  return `${message} (this function was not compiled with its lock; fix the tag and rebuild)`;
}

/** True when a target other than `except` lies within the node's source range (targets sorted by position). */
function holdsTarget(targets: readonly ts.Node[], node: ts.Node, except?: ts.Node): boolean {
  let low = 0;
  let high = targets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (targets[middle].pos < node.pos) low = middle + 1;
    else high = middle;
  }
  // Targets nest (a tagged method in an object literal inside another), so keep looking while
  // one starts inside the node.
  for (let i = low; i < targets.length && targets[i].pos < node.end; i++) {
    if (targets[i].end <= node.end && targets[i] !== except) return true;
  }
  return false;
}

function weaveFunction(
  tsApi: typeof ts,
  context: ts.TransformationContext,
  parts: LockedBodyParts,
  node: ts.MethodDeclaration | ts.FunctionDeclaration,
): ts.Node {
  const factory = context.factory;
  const body = lockedBody(context, tsApi, parts, node.body!);
  return tsApi.isMethodDeclaration(node)
    ? factory.updateMethodDeclaration(
        node,
        node.modifiers,
        node.asteriskToken,
        node.name,
        node.questionToken,
        node.typeParameters,
        node.parameters,
        node.type,
        body,
      )
    : factory.updateFunctionDeclaration(
        node,
        node.modifiers,
        node.asteriskToken,
        node.name,
        node.typeParameters,
        node.parameters,
        node.type,
        body,
      );
}
