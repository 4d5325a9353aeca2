// Lock order, found at compile time: no lock library can see in what order locks are taken;
// lockweave sees every tagged method of a program and its type checker. When a method that locks X
// calls one that locks Y, X is held while Y is awaited: an edge X → Y. When elsewhere Y is held
// while X is awaited (Y → … → X), two calls can each hold one and wait for the other until their
// wait bounds run out. Each call on such a cycle is an error at the call, naming the cycle and the
// other call that closes it.
//
// What is seen: calls in a tagged method's body — nested arrows and function expressions included,
// as they usually run inside the body (`Promise.all(items.map((i) => this.reserve(i)))`) — that the
// checker resolves to the declaration of another tagged method or function, in any file of the
// program. What is not: calls through an interface or a base class's signature (the declaration
// resolved is the signature, not a tagged implementation), callbacks passed in from outside,
// dynamic dispatch, other packages, withLock()/lock() (no tag), and chains through untagged
// functions. A call on the same lock (same businessFlag, prefix and store) is reentrancy, not a
// cycle — though two different key values of one flag taken in opposite orders can still deadlock.
// The graph is computed once per program (index.ts), over the files' plans the weave itself uses.
import type * as ts from 'typescript';
import { Code, LockweaveDiagnostic } from '../diagnostics';
import type { FileAnalysis, LockPlan } from './analyse';

/** One call from a locked body into another lock: `from` is held while `to` is awaited. */
export interface LockEdge {
  readonly from: string;
  readonly to: string;
  readonly caller: LockPlan;
  readonly callee: LockPlan;
  readonly call: ts.CallExpression;
}

export interface LockOrder {
  readonly edges: readonly LockEdge[];
  /** Each cycle once, as the locks in order: `['payOrder', 'stock']` for payOrder → stock → payOrder. */
  readonly cycles: readonly (readonly string[])[];
  /** The errors at the calls on a cycle, by file. */
  readonly errors: ReadonlyMap<ts.SourceFile, readonly LockweaveDiagnostic[]>;
}

/** A lock's name in the graph: its flag, and what makes another lock of the same flag (prefix, Redlock). */
export function lockName(plan: LockPlan): string {
  const prefix = plan.options.prefix === undefined ? '' : `${plan.options.prefix}`;
  return `${prefix}${plan.businessFlag}${plan.options.redlock ? ' (redlock)' : ''}`;
}

export function lockOrder(
  tsApi: typeof ts,
  checker: ts.TypeChecker,
  files: readonly ts.SourceFile[],
  analyse: (file: ts.SourceFile) => FileAnalysis,
): LockOrder {
  const planOf = new Map<ts.Node, LockPlan>();
  for (const file of files) for (const plan of analyse(file).plans) planOf.set(plan.target.node, plan);
  // Resolving a call's signature makes the checker check it: only calls spelled with the name of a
  // tagged function are resolved (a method's name, a function's, or a variable's that holds one).
  const names = new Set([...planOf.keys()].map((node) => nameOf(tsApi, node)).filter((name) => name !== undefined));
  const edges: LockEdge[] = [];
  for (const caller of planOf.values()) {
    const visit = (node: ts.Node): void => {
      if (tsApi.isCallExpression(node) && names.has(calleeName(tsApi, node.expression) ?? '')) {
        const callee = calleePlan(checker, node, planOf);
        if (callee && lockName(callee) !== lockName(caller))
          edges.push({ from: lockName(caller), to: lockName(callee), caller, callee, call: node });
      }
      tsApi.forEachChild(node, visit);
    };
    tsApi.forEachChild(caller.target.node.body, visit);
  }
  return { edges, ...cyclesOf(edges) };
}

/** The name a tagged function is called by: its own, or its variable's or property's. */
function nameOf(tsApi: typeof ts, node: ts.Node): string | undefined {
  const named = 'name' in node && node.name ? node : node.parent;
  const name = named && 'name' in named ? (named.name as ts.Node | undefined) : undefined;
  if (!name) return undefined;
  return tsApi.isIdentifier(name) || tsApi.isPrivateIdentifier(name) || tsApi.isStringLiteral(name)
    ? name.text
    : undefined;
}

/** `f(…)`, `a.b.f(…)`, `a?.f(…)`, `this.#f(…)`: f. */
function calleeName(tsApi: typeof ts, callee: ts.Expression): string | undefined {
  let expression = callee;
  while (tsApi.isParenthesizedExpression(expression) || tsApi.isNonNullExpression(expression))
    expression = expression.expression;
  if (tsApi.isIdentifier(expression)) return expression.text;
  if (tsApi.isPropertyAccessExpression(expression)) return expression.name.text;
  if (tsApi.isElementAccessExpression(expression) && tsApi.isStringLiteral(expression.argumentExpression))
    return expression.argumentExpression.text;
  return undefined;
}

function calleePlan(
  checker: ts.TypeChecker,
  call: ts.CallExpression,
  planOf: ReadonlyMap<ts.Node, LockPlan>,
): LockPlan | undefined {
  const declaration = checker.getResolvedSignature(call)?.getDeclaration();
  if (declaration && planOf.has(declaration)) return planOf.get(declaration);
  // An overloaded callee resolves to a signature; the tag stands on the implementation.
  const symbol = declaration && checker.getSymbolAtLocation(call.expression);
  return symbol?.declarations?.map((d) => planOf.get(d)).find((plan) => plan !== undefined);
}

/** The strongly connected locks (Tarjan), each cycle's path, and an error at every call inside one. */
function cyclesOf(edges: readonly LockEdge[]): Pick<LockOrder, 'cycles' | 'errors'> {
  const next = new Map<string, LockEdge[]>();
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge]);
  const component = strongComponents([...new Set(edges.flatMap((e) => [e.from, e.to]))], next);
  const cycles: string[][] = [];
  const seenComponents = new Set<number>();
  const errors = new Map<ts.SourceFile, LockweaveDiagnostic[]>();
  for (const edge of edges) {
    const id = component.get(edge.from)!;
    if (id !== component.get(edge.to)) continue;
    // The way back from the callee's lock to the caller's, inside the component: the other calls.
    const back = pathBetween(edge.to, edge.from, next, (lock) => component.get(lock) === id);
    const locks = [edge.from, edge.to, ...back.map((e) => e.to)];
    if (!seenComponents.has(id)) {
      seenComponents.add(id);
      // Started at its first lock in sort order: one cycle reads the same whichever file came first.
      const ring = locks.slice(0, -1);
      const first = ring.indexOf([...ring].sort()[0]!);
      cycles.push([...ring.slice(first), ...ring.slice(0, first)]);
    }
    const closing = back[back.length - 1]!;
    const file = edge.call.getSourceFile();
    const text =
      `${edge.caller.target.site} holds ${edge.from} and calls ${edge.callee.target.site}, which locks ${edge.to}; ` +
      `${closing.caller.target.site} (${where(closing.call)}) holds ${closing.from} while ${closing.to} is taken: ` +
      `${locks.join(' → ')}. Two calls can each hold one and wait for the other until their waits run out. ` +
      'Take these locks in one order everywhere, or the second outside the first';
    const span = { file, start: edge.call.getStart(file), length: edge.call.getWidth(file) };
    errors.set(file, [...(errors.get(file) ?? []), new LockweaveDiagnostic(Code.LockOrderCycle, text, span)]);
  }
  return { cycles, errors };
}

function strongComponents(nodes: readonly string[], next: ReadonlyMap<string, LockEdge[]>): Map<string, number> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const component = new Map<string, number>();
  let counter = 0;
  let components = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const { to } of next.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.set(member, components);
    } while (member !== node);
    components++;
  };
  for (const node of nodes) if (!index.has(node)) connect(node);
  return component;
}

/** The shortest chain of edges from `start` to `goal` through locks `inside` allows (breadth first). */
function pathBetween(
  start: string,
  goal: string,
  next: ReadonlyMap<string, LockEdge[]>,
  inside: (lock: string) => boolean,
): LockEdge[] {
  const cameBy = new Map<string, LockEdge | undefined>([[start, undefined]]);
  const queue = [start];
  for (let i = 0; i < queue.length && !cameBy.has(goal); i++) {
    for (const edge of next.get(queue[i]!) ?? []) {
      if (cameBy.has(edge.to) || !inside(edge.to)) continue;
      cameBy.set(edge.to, edge);
      queue.push(edge.to);
    }
  }
  const path: LockEdge[] = [];
  for (let edge = cameBy.get(goal); edge; edge = cameBy.get(edge.from)) path.unshift(edge);
  return path;
}

function where(call: ts.CallExpression): string {
  const file = call.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(call.getStart(file));
  return `${file.fileName.split(/[\\/]/).slice(-2).join('/')}:${line + 1}`;
}
