// The JSDoc blocks of a file's nodes, also when the compiler did not parse them.
//
// Since TypeScript 5.3 tsc parses JSDoc in .ts files only where a block says @see or @link
// (JSDocParsingMode.ParseForTypeErrors), so the compiler's tree carries no @redisLock tag. Asking
// ts-patch to parse all JSDoc (`parseAllJsDoc`) made every file of every build pay for it, the lib
// .d.ts files included (issue #8: +180 ms on a 2.1 s build, where lockweave's own work was 38 ms).
//
// Instead each node the walk asks about gets its blocks by the parser's own rule: a node of a kind
// that can carry JSDoc gets the `/**` comments of its leading trivia (getJSDocCommentRanges, what
// the parser's addJSDocComment reads), each parsed alone (parseIsolatedJSDocComment), with
// positions in the compiler's text. Identifiers are left out: their kind is among those that can
// carry JSDoc, but the parser gives them none in TypeScript. That this equals a full parse with
// every block, node by node, is tested on every fixture and on generated files
// (test/transformer/parse/jsdoc-view.test.ts). A TypeScript without those two functions gets the
// former way: the file parsed once more with all JSDoc and paired with the compiler's tree node by
// node, every tag an error should the trees differ (`readable`).
import type * as ts from 'typescript';
import { anyWithin } from './find-tags';

export interface JsDocView {
  /**
   * False when the file's own parse did not pair up with the compiler's tree: then no block can be
   * told apart from a comment the compiler ignores, so each tag must be reported, not guessed at.
   */
  readonly readable: boolean;
  /**
   * The JSDoc blocks the parser gives `node`, a node of the compiler's tree whose range holds a
   * mention, in text order; empty when `readable` is false.
   */
  blocksOf(node: ts.Node): readonly ts.JSDoc[];
}

const NONE: readonly ts.JSDoc[] = [];

/**
 * `mentions` (sorted) are where the text says the tag: only nodes whose range holds one are paired,
 * which is all that can carry it (a block lies in its node's leading trivia, inside node.pos..end).
 * The work is done on first use, so a file whose mentions are all misspellings never pays for it.
 */
export function jsDocView(tsApi: typeof ts, sourceFile: ts.SourceFile, mentions: readonly number[]): JsDocView {
  if (parsedAllJsDoc(tsApi, sourceFile)) {
    return { readable: true, blocksOf: (node) => (node as { jsDoc?: readonly ts.JSDoc[] }).jsDoc ?? NONE };
  }
  const parser = jsDocParser(tsApi);
  if (parser) return { readable: true, blocksOf: (node) => parser(node, sourceFile.text) };
  let paired: Map<ts.Node, readonly ts.JSDoc[]> | undefined | null = null;
  const pairs = () => (paired === null ? (paired = pairWithCopy(tsApi, sourceFile, mentions)) : paired);
  return {
    get readable() {
      return pairs() !== undefined;
    },
    blocksOf(node) {
      const map = pairs();
      if (!map) return NONE;
      const blocks = map.get(node);
      // Asked about a node no mention lies in: a bug in the caller, never "this node has no tag".
      if (!blocks)
        throw new Error(
          `lockweave: JSDoc asked for a node outside the tag mentions of ${sourceFile.fileName} (${node.pos}..${node.end})`,
        );
      return blocks;
    },
  };
}

/**
 * Whether the compiler's own tree holds every JSDoc block: parsed in JSDocParsingMode.ParseAll (the
 * default of createSourceFile and of the language service, `lockweave`'s text routes), or by a
 * TypeScript older than 5.3, which has no such mode and always parses JSDoc.
 */
function parsedAllJsDoc(tsApi: typeof ts, sourceFile: ts.SourceFile): boolean {
  const modes = (tsApi as { JSDocParsingMode?: { ParseAll: number } }).JSDocParsingMode;
  if (!modes) return true;
  return (sourceFile as { jsDocParsingMode?: number }).jsDocParsingMode === modes.ParseAll;
}

/** TypeScript's own functions of the parser's rule (internal, present from 5.0 to 6.x). */
interface JsDocInternals {
  canHaveJSDoc(node: ts.Node): boolean;
  getJSDocCommentRanges(node: ts.Node, text: string): readonly ts.CommentRange[] | undefined;
  parseIsolatedJSDocComment(text: string, start: number, length: number): { jsDoc: ts.JSDoc } | undefined;
}

/** The blocks the parser would give a node, by its rule; undefined when TypeScript lacks the functions. */
export function jsDocParser(tsApi: typeof ts): ((node: ts.Node, text: string) => readonly ts.JSDoc[]) | undefined {
  const internals = tsApi as unknown as Partial<JsDocInternals>;
  const { canHaveJSDoc, getJSDocCommentRanges, parseIsolatedJSDocComment } = internals;
  if (!canHaveJSDoc || !getJSDocCommentRanges || !parseIsolatedJSDocComment) return undefined;
  const blocks = new WeakMap<ts.Node, readonly ts.JSDoc[]>();
  return (node, text) => {
    if (node.kind === tsApi.SyntaxKind.Identifier || !canHaveJSDoc(node)) return NONE;
    let found = blocks.get(node);
    if (!found) {
      const ranges = getJSDocCommentRanges(node, text) ?? [];
      found = ranges.flatMap((range) => parseIsolatedJSDocComment(text, range.pos, range.end - range.pos)?.jsDoc ?? []);
      blocks.set(node, found);
    }
    return found;
  };
}

/** Compiler node → the copy's blocks, for every node on the way to a mention; undefined on any difference. */
function pairWithCopy(
  tsApi: typeof ts,
  sourceFile: ts.SourceFile,
  mentions: readonly number[],
): Map<ts.Node, readonly ts.JSDoc[]> | undefined {
  const copy = parseWithAllJsDoc(tsApi, sourceFile);
  const paired = new Map<ts.Node, readonly ts.JSDoc[]>();
  const pair = (copyNode: ts.Node, node: ts.Node): boolean => {
    paired.set(node, (copyNode as { jsDoc?: readonly ts.JSDoc[] }).jsDoc ?? NONE);
    const copyChildren = childrenOf(tsApi, copyNode);
    const children = childrenOf(tsApi, node);
    if (copyChildren.length !== children.length) return false;
    for (let i = 0; i < children.length; i++) {
      const [a, b] = [copyChildren[i], children[i]];
      if (a.kind !== b.kind || a.pos !== b.pos || a.end !== b.end) return false;
      if (anyWithin(mentions, b.pos, b.end) && !pair(a, b)) return false;
    }
    return true;
  };
  const same = copy.text === sourceFile.text && copy.end === sourceFile.end && pair(copy, sourceFile);
  return same ? paired : undefined;
}

/**
 * The file's text parsed as the compiler parsed it — same language version, script kind (TSX or not)
 * and module-ness (which decides how a top-level `await` parses) — but with every JSDoc block.
 * Parent links are left unset: nothing reads the copy's parents (its nodes are paired by position).
 */
function parseWithAllJsDoc(tsApi: typeof ts, sourceFile: ts.SourceFile): ts.SourceFile {
  const isModule = (sourceFile as { externalModuleIndicator?: unknown }).externalModuleIndicator !== undefined;
  const options: ts.CreateSourceFileOptions = {
    languageVersion: sourceFile.languageVersion,
    jsDocParsingMode: tsApi.JSDocParsingMode.ParseAll,
    setExternalModuleIndicator: (file) => {
      (file as { externalModuleIndicator?: unknown }).externalModuleIndicator = isModule ? true : undefined;
    },
  };
  const scriptKind = (sourceFile as { scriptKind?: ts.ScriptKind }).scriptKind;
  return tsApi.createSourceFile(sourceFile.fileName, sourceFile.text, options, false, scriptKind);
}

function childrenOf(tsApi: typeof ts, node: ts.Node): ts.Node[] {
  const children: ts.Node[] = [];
  tsApi.forEachChild(
    node,
    (child) => {
      children.push(child);
    },
    (list) => {
      children.push(...list);
    },
  );
  return children;
}
