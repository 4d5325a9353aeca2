// Is a tagged function locked already, exactly as lockweave locks it? The one test of "woven"
// every route shares (two routes configured at once must not lock twice), decided from the syntax
// tree of the function and of its file's own bindings — never from text, which a comment, a
// string or a doc example can hold.
//
// Woven means, for a tagged function with plan P in file F:
//   - its body is [prologue] and then exactly the statements the weave writes for P
//     (weave/method-body.ts: `const lease = await L.acquire(<key>[, Fail]);`, the skip line for
//     onFail=skip, `try { return await lease.run(async () => { … }); } finally { await lease.release(); }`;
//     in a function that is not `async`, inside `return (async () => { … })();`), key and Fail
//     exactly as the weave writes them for P, and the lease named nowhere else in the function;
//   - L is bound once, at the top of F, to `R.defineLock(<P's options>)`, exactly as the weave writes it;
//   - R is bound once, at the top of F, to the module "lockweave/runtime" (`import * as R`, or
//     `R = require(…)` in a file that does not bind `require` itself);
//   - nothing else in F names L; R is only ever called through (`R.defineLock(…)`); and F has no
//     `with` and no `eval`, which could rebind either at run time.
// Anything less is not woven, and the route weaves the function (again): a lock inside a lock of
// the same key costs a reentrant entry, a function without its lock is what this guards against.
//
// The woven shape lives in weave/method-body.ts and weave/define-lock-call.ts; this file compares against
// what they print, so a change of shape changes `wovenShape` below and nothing else.
import type * as ts from 'typescript';
import type { LockPlan } from '../check/analyse';
import { defineLockCall } from './define-lock-call';
import { prologueLength, RUNTIME_SPECIFIER } from './runtime-import';
import { emptyAsyncArrow, emptyLockedStatements, failureClass } from './weave-text';

/** What a file binds that woven code calls; read once per file. */
export interface WovenBindings {
  readonly sourceFile: ts.SourceFile;
  /** The top-level statements that bind a runtime or a lock definition: the header a weave writes. */
  readonly header: readonly ts.Statement[];
  /** Names bound at the top of the file to the runtime module. */
  readonly runtimes: ReadonlySet<string>;
  /** Name → its `R.defineLock(…)` initializer, for top-level single declarations. */
  readonly locks: ReadonlyMap<string, ts.CallExpression>;
  /** Every identifier node of those names, anywhere in the file. */
  readonly uses: ReadonlyMap<string, readonly ts.Identifier[]>;
}

/** undefined when the file binds no lock definition (nothing can be woven) or could rebind names at run time. */
export function wovenBindings(tsApi: typeof ts, sourceFile: ts.SourceFile): WovenBindings | undefined {
  const runtimes = new Map<string, ts.Statement>();
  const definitions = new Map<string, { call: ts.CallExpression; statement: ts.Statement }>();
  for (const statement of sourceFile.statements) {
    const namespace = runtimeNamespace(tsApi, statement);
    if (namespace) runtimes.set(namespace, statement);
    const declared = singleDeclaration(tsApi, statement);
    if (declared?.initializer && tsApi.isCallExpression(declared.initializer))
      definitions.set(declared.name, { call: declared.initializer, statement });
  }
  const lockDefinitions = [...definitions].filter(([, { call }]) => {
    const callee = call.expression;
    return (
      tsApi.isPropertyAccessExpression(callee) &&
      callee.name.text === 'defineLock' &&
      tsApi.isIdentifier(callee.expression) &&
      runtimes.has(callee.expression.text) &&
      isLiteralOptions(tsApi, call)
    );
  });
  if (lockDefinitions.length === 0) return undefined;
  const locks = new Map(lockDefinitions.map(([name, { call }]) => [name, call]));
  const header = [...runtimes.values(), ...lockDefinitions.map(([, { statement }]) => statement)];

  const watched = new Set([...runtimes.keys(), ...locks.keys(), 'require', 'eval']);
  const uses = new Map<string, ts.Identifier[]>();
  let rebinds = false;
  const visit = (node: ts.Node): void => {
    if (tsApi.isWithStatement(node)) rebinds = true;
    else if (tsApi.isIdentifier(node) && watched.has(node.text)) {
      const named = uses.get(node.text);
      if (named) named.push(node);
      else uses.set(node.text, [node]);
    }
    tsApi.forEachChild(node, visit);
  };
  visit(sourceFile);
  if (rebinds || (uses.get('eval') ?? []).length > 0) return undefined;
  // A `require` the file binds or hands around could return anything for "lockweave/runtime".
  const ownRequire = (uses.get('require') ?? []).some(
    (use) => !(tsApi.isCallExpression(use.parent) && use.parent.expression === use),
  );
  const trusted = new Set(
    [...runtimes.keys()].filter((name) => {
      if (ownRequire && !isNamespaceImport(tsApi, sourceFile, name)) return false;
      // Declared once, and otherwise only called through: `R.x = …` or `f(R)` could replace what it calls.
      const named = uses.get(name) ?? [];
      return named.filter((use) => !isCalledThrough(tsApi, use)).length === 1;
    }),
  );
  return { sourceFile, header, runtimes: trusted, locks, uses };
}

/**
 * The file's text with its header blanked (same length, lines kept), for finding its tags: the
 * weave writes its header on the first line, where a tag that stood at the top of the file now
 * shares its line with code and, to the compiler, stands on nothing. The header holds no function
 * (a runtime binding, definitions of literals only), and a statement with a comment or tag text in it is
 * kept: blanking only ever makes a tag visible, never hides one.
 */
export function withoutHeader(bindings: WovenBindings): string {
  const { sourceFile } = bindings;
  let text = sourceFile.text;
  for (const statement of bindings.header) {
    const start = statement.getStart(sourceFile);
    const written = text.slice(start, statement.end);
    if (/@|\/\*|\/\//.test(written)) continue; // a comment or tag text inside: kept, to be read as ever
    text = text.slice(0, start) + written.replace(/[^\n]/g, ' ') + text.slice(statement.end);
  }
  return text;
}

/** `({ site: "…", businessFlag: "…", lockTime: 20, … })`: one object literal of plain literals, as the weave writes its options. */
function isLiteralOptions(tsApi: typeof ts, call: ts.CallExpression): boolean {
  const [options, ...more] = call.arguments;
  if (!options || more.length > 0 || !tsApi.isObjectLiteralExpression(options)) return false;
  return options.properties.every(
    (property) =>
      tsApi.isPropertyAssignment(property) &&
      tsApi.isIdentifier(property.name) &&
      (tsApi.isStringLiteral(property.initializer) ||
        tsApi.isNumericLiteral(property.initializer) ||
        property.initializer.kind === tsApi.SyntaxKind.TrueKeyword ||
        property.initializer.kind === tsApi.SyntaxKind.FalseKeyword),
  );
}

/**
 * True when the plan's function is locked already, as lockweave locks it (see the top of this
 * file). The plan may come from the file read without its header (same positions).
 */
export function isWoven(tsApi: typeof ts, bindings: WovenBindings, plan: LockPlan): boolean {
  const body = plan.target.node.body;
  const held = heldLock(tsApi, bindings, body);
  if (!held) return false;
  const { shape, definition, runtimeName } = held;
  const factory = tsApi.factory;
  const expectedOptions = defineLockCall(factory, factory.createIdentifier(runtimeName), plan);
  const expected = emptyLockedStatements(factory, tsApi, {
    runtime: factory.createIdentifier(runtimeName),
    lockName: factory.createIdentifier(shape.lockName.text),
    leaseName: factory.createIdentifier(shape.leaseName.text),
    plan,
    failureClass: failureClass(factory, plan),
  });
  const print = printerOf(tsApi, bindings.sourceFile);
  // The body's own statements are not compared: the arrow prints as the empty one the weave writes.
  const printActual = printerOf(tsApi, plan.target.node.getSourceFile(), shape.arrow, emptyAsyncArrow(tsApi, factory));
  const printExpected = printerOf(tsApi, plan.target.node.getSourceFile());
  return (
    print(expectedOptions) === print(definition) &&
    shape.statements.map(printActual).join(' ') === expected.map(printExpected).join(' ')
  );
}

/**
 * The site of every function of a file (JavaScript another tool compiled, say) that is locked as
 * lockweave locks it, with no tag to compare against: its body is the woven call on a lock
 * bound once to the runtime's defineLock, whose `site` names this function.
 */
export function lockedSites(tsApi: typeof ts, sourceFile: ts.SourceFile): string[] {
  const bindings = wovenBindings(tsApi, sourceFile);
  if (!bindings) return [];
  const sites: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (tsApi.isMethodDeclaration(node) || tsApi.isFunctionDeclaration(node) || tsApi.isFunctionExpression(node)) &&
      node.body
    ) {
      const site = lockedSite(tsApi, bindings, node.body);
      const name =
        node.name &&
        (tsApi.isIdentifier(node.name) || tsApi.isPrivateIdentifier(node.name) || tsApi.isStringLiteral(node.name))
          ? node.name.text
          : undefined;
      if (site !== undefined && name !== undefined && (site === name || site.endsWith(`.${name}`))) sites.push(site);
    }
    tsApi.forEachChild(node, visit);
  };
  visit(sourceFile);
  return sites;
}

function lockedSite(tsApi: typeof ts, bindings: WovenBindings, body: ts.Block): string | undefined {
  const definition = heldLock(tsApi, bindings, body)?.definition;
  const literal = definition?.arguments.length === 1 ? definition.arguments[0] : undefined;
  if (!literal || !tsApi.isObjectLiteralExpression(literal)) return undefined;
  const site = literal.properties.find(
    (property) =>
      tsApi.isPropertyAssignment(property) && tsApi.isIdentifier(property.name) && property.name.text === 'site',
  );
  return site && tsApi.isPropertyAssignment(site) && tsApi.isStringLiteral(site.initializer)
    ? site.initializer.text
    : undefined;
}

/**
 * The lock a body holds: its woven shape, on a lock bound to the runtime's defineLock that nothing
 * else in the file names (the declaration and this call: nothing reassigns, shadows or hands it on),
 * and a lease the body's own statements do not name.
 */
function heldLock(tsApi: typeof ts, bindings: WovenBindings, body: ts.Block) {
  const shape = wovenShape(tsApi, body);
  if (!shape) return undefined;
  const lock = shape.lockName.text;
  const definition = bindings.locks.get(lock);
  if (!definition || (bindings.uses.get(lock) ?? []).length !== 2) return undefined;
  if (countNamed(tsApi, body, shape.leaseName.text) !== shape.leaseUses) return undefined;
  const runtimeName = ((definition.expression as ts.PropertyAccessExpression).expression as ts.Identifier).text;
  return bindings.runtimes.has(runtimeName) ? { shape, definition, runtimeName } : undefined;
}

interface WovenShape {
  /** The statements after the prologue: the whole woven shape, compared in print. */
  readonly statements: readonly ts.Statement[];
  readonly lockName: ts.Identifier;
  readonly leaseName: ts.Identifier;
  /** How often the shape itself names the lease: the body's statements must not add to it. */
  readonly leaseUses: number;
  /** The arrow the original statements run in: `async () => { … }`, compared with its block emptied. */
  readonly arrow: ts.ArrowFunction;
}

/**
 * The parts of a body woven as weave/method-body.ts writes it: `const lease = await L.acquire…(…);`,
 * optionally `if (!lease) return undefined;`, then `try { return await lease.run(async () => { … }); }
 * finally { … }` — or, in a function that is not `async`, those inside `return (async () => { … })();`.
 * Only where the parts stand is read here; isWoven() compares every token against the weave's own.
 * The one place that knows where the parts of the woven shape stand.
 */
function wovenShape(tsApi: typeof ts, body: ts.Block): WovenShape | undefined {
  const statements = body.statements.slice(prologueLength(tsApi, body.statements));
  const inner = asyncWrapped(tsApi, statements) ?? statements;
  const [acquired, ...rest] = inner;
  const [skip, guarded] = rest.length === 2 ? rest : [undefined, rest[0]];
  if (!acquired || rest.length < 1 || rest.length > 2) return undefined;
  // `const lease = await L.acquire…(…);`
  const declarations = tsApi.isVariableStatement(acquired) ? acquired.declarationList : undefined;
  const lease = declarations?.declarations.length === 1 ? declarations.declarations[0] : undefined;
  if (!declarations || !lease || (declarations.flags & tsApi.NodeFlags.Const) === 0 || lease.type) return undefined;
  if (!tsApi.isIdentifier(lease.name) || !lease.initializer) return undefined;
  const leaseName = lease.name;
  const acquire = awaitedCall(tsApi, lease.initializer, undefined, ACQUIRE_METHODS);
  const lockName = acquire && (acquire.expression as ts.PropertyAccessExpression).expression;
  if (!lockName || !tsApi.isIdentifier(lockName)) return undefined;
  // `if (!lease) return undefined;`
  if (skip && !isSkipLine(tsApi, skip, leaseName.text)) return undefined;
  // `try { return await lease.run(async () => { … }); } finally { await lease.release(); }`
  if (!guarded || !tsApi.isTryStatement(guarded) || guarded.catchClause || !guarded.finallyBlock) return undefined;
  const [returned, ...moreTried] = guarded.tryBlock.statements;
  const [released, ...moreFinally] = guarded.finallyBlock.statements;
  if (!returned || moreTried.length > 0 || !tsApi.isReturnStatement(returned) || !returned.expression) return undefined;
  if (!released || moreFinally.length > 0 || !tsApi.isExpressionStatement(released)) return undefined;
  const run = awaitedCall(tsApi, returned.expression, leaseName.text, ['run']);
  const release = awaitedCall(tsApi, released.expression, leaseName.text, ['release']);
  const arrow = run?.arguments.length === 1 ? run.arguments[0] : undefined;
  if (!arrow || !isBareAsyncArrow(tsApi, arrow) || !release || release.arguments.length > 0) return undefined;
  return { statements, lockName, leaseName, leaseUses: skip ? 4 : 3, arrow };
}

/** The methods of a lock definition that take its lock (runtime/api/define-lock.ts). */
const ACQUIRE_METHODS = ['acquire', 'acquireComposite', 'acquireKeyless', 'acquireEach'];

/** `await <object>.<method>(…)` with one of `methods`, on an identifier (named `object` when given); else undefined. */
function awaitedCall(
  tsApi: typeof ts,
  expression: ts.Expression,
  object: string | undefined,
  methods: readonly string[],
): ts.CallExpression | undefined {
  if (!tsApi.isAwaitExpression(expression) || !tsApi.isCallExpression(expression.expression)) return undefined;
  const call = expression.expression;
  const callee = call.expression;
  if (call.questionDotToken || call.typeArguments || !tsApi.isPropertyAccessExpression(callee)) return undefined;
  if (callee.questionDotToken || !tsApi.isIdentifier(callee.expression) || !methods.includes(callee.name.text))
    return undefined;
  return object === undefined || callee.expression.text === object ? call : undefined;
}

/** `if (!lease) return undefined;`, and nothing else. */
function isSkipLine(tsApi: typeof ts, statement: ts.Statement, lease: string): boolean {
  if (!tsApi.isIfStatement(statement) || statement.elseStatement) return false;
  const test = statement.expression;
  const then = statement.thenStatement;
  return (
    tsApi.isPrefixUnaryExpression(test) &&
    test.operator === tsApi.SyntaxKind.ExclamationToken &&
    tsApi.isIdentifier(test.operand) &&
    test.operand.text === lease &&
    tsApi.isReturnStatement(then) &&
    !!then.expression &&
    tsApi.isIdentifier(then.expression) &&
    then.expression.text === 'undefined'
  );
}

/** `async () => { … }`: no parameters, types or other modifiers (the arrow is compared with its block emptied). */
function isBareAsyncArrow(tsApi: typeof ts, node: ts.Node): node is ts.ArrowFunction {
  if (!tsApi.isArrowFunction(node) || node.parameters.length > 0 || node.typeParameters || node.type) return false;
  const modifiers = node.modifiers ?? [];
  return modifiers.length === 1 && modifiers[0].kind === tsApi.SyntaxKind.AsyncKeyword && tsApi.isBlock(node.body);
}

/** The statements of `return (async () => { … })();` when that is the one statement; else undefined. */
function asyncWrapped(tsApi: typeof ts, statements: readonly ts.Statement[]): readonly ts.Statement[] | undefined {
  const [only, ...more] = statements;
  if (!only || more.length > 0 || !tsApi.isReturnStatement(only) || !only.expression) return undefined;
  const called = only.expression;
  if (!tsApi.isCallExpression(called) || !tsApi.isParenthesizedExpression(called.expression)) return undefined;
  const arrow = called.expression.expression;
  return isBareAsyncArrow(tsApi, arrow) && called.arguments.length === 0
    ? (arrow.body as ts.Block).statements
    : undefined;
}

/** How many identifiers in the node are named `name`. */
function countNamed(tsApi: typeof ts, node: ts.Node, name: string): number {
  let count = 0;
  const visit = (child: ts.Node): void => {
    if (tsApi.isIdentifier(child) && child.text === name) count++;
    tsApi.forEachChild(child, visit);
  };
  visit(node);
  return count;
}

/** `import * as R from "lockweave/runtime"` or `const R = require("lockweave/runtime")`: R. */
function runtimeNamespace(tsApi: typeof ts, statement: ts.Statement): string | undefined {
  if (tsApi.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    const bindings = clause?.namedBindings;
    if (!clause || clause.isTypeOnly || clause.name || !bindings || !tsApi.isNamespaceImport(bindings))
      return undefined;
    return tsApi.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text === RUNTIME_SPECIFIER
      ? bindings.name.text
      : undefined;
  }
  const declared = singleDeclaration(tsApi, statement);
  const required = declared?.initializer;
  if (
    !required ||
    !tsApi.isCallExpression(required) ||
    !tsApi.isIdentifier(required.expression) ||
    required.expression.text !== 'require'
  )
    return undefined;
  const [specifier, ...more] = required.arguments;
  return more.length === 0 && specifier && tsApi.isStringLiteral(specifier) && specifier.text === RUNTIME_SPECIFIER
    ? declared.name
    : undefined;
}

function isNamespaceImport(tsApi: typeof ts, sourceFile: ts.SourceFile, name: string): boolean {
  return sourceFile.statements.some(
    (statement) => tsApi.isImportDeclaration(statement) && runtimeNamespace(tsApi, statement) === name,
  );
}

/**
 * `const <name> = <initializer>` when the statement declares exactly that one plain name, as a weave
 * writes it: not `declare` (erased: the name would be whatever the global scope holds), not
 * `export` (another module could replace it), not `let` or `var`.
 */
function singleDeclaration(
  tsApi: typeof ts,
  statement: ts.Statement,
): { name: string; initializer: ts.Expression | undefined } | undefined {
  if (!tsApi.isVariableStatement(statement) || statement.declarationList.declarations.length !== 1) return undefined;
  if (statement.modifiers?.length || !(statement.declarationList.flags & tsApi.NodeFlags.Const)) return undefined;
  const declaration = statement.declarationList.declarations[0];
  if (!tsApi.isIdentifier(declaration.name) || declaration.exclamationToken) return undefined;
  return { name: declaration.name.text, initializer: declaration.initializer };
}

/** `R.f(…)`: the identifier is the object of a property access that is called. */
function isCalledThrough(tsApi: typeof ts, use: ts.Identifier): boolean {
  const access = use.parent;
  return (
    tsApi.isPropertyAccessExpression(access) &&
    access.expression === use &&
    !access.questionDotToken &&
    tsApi.isCallExpression(access.parent) &&
    access.parent.expression === access
  );
}

/** Prints a node on one line; `replaced`, when given, prints as `replacement`. */
function printerOf(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  replaced?: ts.Node,
  replacement?: ts.Node,
): (node: ts.Node) => string {
  const printer = tsApi.createPrinter(
    { removeComments: true, newLine: tsApi.NewLineKind.LineFeed },
    replaced ? { substituteNode: (_hint, node) => (node === replaced ? replacement! : node) } : {},
  );
  return (node) => printer.printNode(tsApi.EmitHint.Unspecified, node, sourceFile).replace(/\s+/g, ' ');
}
