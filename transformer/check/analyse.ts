// One file, from tags to lock plans: find (parse/) → analyse (check/) → the plans weave/ writes.
// Every error is a LockweaveDiagnostic, collected per tag so that one bad tag does not hide another,
// and every function an error stands on is refused: emitted as a throw of the error, never unlocked.
//
// With a type checker (tspc, `lockweave build`) keys are checked against types. Without one (the
// bundler, loader and jest routes parse a single file) the same plans come from syntax alone, and
// what only types could decide — how a field is read — is decided at run time (see key-path.ts).
import type * as ts from 'typescript';
import { attempt, Code, fail, LockweaveDiagnostic, type Span } from '../diagnostics';
import { attributeMentions, findTaggedDeclarations, isExactTag, tagMentions } from '../parse/find-tags';
import { findHtmlLikeComments } from '../parse/html-comments';
import { findAttributesWithoutTag, findIgnoredTags } from '../parse/ignored-tags';
import { jsDocView } from '../parse/jsdoc-view';
import { readTagText } from '../parse/tag-text';
import { holdClash, ONE_SERVER_REASON, redlockClash } from '../../runtime/base/option-table';
import type { LockOptions } from '../../runtime/base/options';
import { readTagModel } from './attributes';
import { resolveKeys, resolveSignal, type KeyAccess } from './key-path';
import { resolveOnFailClass, type FailureClassRef } from './on-fail-class';
import { skipReturnProblem } from './skip-return';
import { checkTarget, type LockTarget } from './target';

export interface LockPlan {
  readonly target: LockTarget;
  readonly businessFlag: string;
  /** Plugin defaults overlaid with the tag's own options: exactly what defineLock() receives. */
  readonly options: Partial<LockOptions>;
  readonly keys: readonly KeyAccess[];
  /** keyNames: each key a lock of its own (acquireEach), or one key naming a list of them. */
  readonly separateKeys: boolean;
  /** signal=: the parameter path whose AbortSignal cancels the wait (acquire's third argument). */
  readonly signal?: KeyAccess;
  readonly onFailClass?: FailureClassRef;
}

/** A function whose tag has an error: it is emitted with a body that throws, never unlocked. */
export interface RefusedFunction {
  readonly node: ts.FunctionLikeDeclaration & { readonly body: ts.ConciseBody };
  readonly error: LockweaveDiagnostic;
}

export interface FileAnalysis {
  readonly plans: readonly LockPlan[];
  readonly errors: readonly LockweaveDiagnostic[];
  readonly refused: readonly RefusedFunction[];
}

const NOTHING: FileAnalysis = { plans: [], errors: [], refused: [] };

export function analyseFile(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  sourceFile: ts.SourceFile,
  defaults: Partial<LockOptions>,
): FileAnalysis {
  if (sourceFile.isDeclarationFile) return NOTHING;
  const mentions = tagMentions(sourceFile.text);
  const attributes = attributeMentions(sourceFile.text);
  if (mentions.length === 0 && attributes.length === 0) return NOTHING;
  const plans: LockPlan[] = [];
  const errors: LockweaveDiagnostic[] = [];
  const refused: RefusedFunction[] = [];
  const refuse = (host: ts.Node | undefined, error: LockweaveDiagnostic) => {
    errors.push(error);
    for (const node of functionsOf(tsApi, host)) refused.push({ node, error });
  };
  const jsDoc = jsDocView(tsApi, sourceFile, mentions);
  const tagged = findTaggedDeclarations(
    tsApi,
    sourceFile,
    mentions.filter((at) => isExactTag(sourceFile.text, at)),
    jsDoc,
  );
  for (let i = 0; i < tagged.length; i++) {
    const { host, tag } = tagged[i];
    const next = tagged[i + 1];
    if (next?.host === host) {
      // Two locks on one method would need one global order to be deadlock-free; a composite key
      // or withLock() inside says what is meant. Taking only one of them would be a silent gap.
      refuse(
        host,
        new LockweaveDiagnostic(
          Code.RepeatedTag,
          'a second @redisLock tag on one declaration; a method takes one lock: use a composite key (keyName=a,b) or call withLock() inside for a second lock',
          readTagText(sourceFile, next.tag).tagSpan,
        ),
      );
      while (tagged[i + 1]?.host === host) i++;
      continue;
    }
    const result = attempt(() => planLock(tsApi, checker, sourceFile, host, tag, defaults));
    if (result.ok) plans.push(result.value);
    else refuse(host, result.error);
  }
  for (const { error, owner } of findIgnoredTags(tsApi, sourceFile, mentions, tagged, jsDoc)) {
    refuse(owner, error);
  }
  for (const { error, owner } of findAttributesWithoutTag(tsApi, sourceFile, attributes, mentions, tagged)) {
    refuse(owner, error);
  }
  errors.push(...findHtmlLikeComments(sourceFile));
  errors.sort((a, b) => a.span.start - b.span.start);
  return { plans, errors, refused: refused.filter((r, i) => refused.findIndex((o) => o.node === r.node) === i) };
}

/**
 * The functions an erroneous tag stands on: the method or function itself, or the arrow or
 * function expression a variable or property holds (`const pay = async () => ...`).
 */
function functionsOf(tsApi: typeof ts, host: ts.Node | undefined): RefusedFunction['node'][] {
  if (!host) return [];
  if (tsApi.isFunctionLike(host)) {
    if ('body' in host && host.body) return [host as RefusedFunction['node']];
    return implementationOf(tsApi, host);
  }
  if (tsApi.isVariableStatement(host)) return host.declarationList.declarations.flatMap((d) => functionsOf(tsApi, d));
  if (tsApi.isVariableDeclaration(host) || tsApi.isPropertyDeclaration(host) || tsApi.isPropertyAssignment(host)) {
    const value = host.initializer && unwrapped(tsApi, host.initializer);
    return value && (tsApi.isArrowFunction(value) || tsApi.isFunctionExpression(value)) ? [value] : [];
  }
  if (tsApi.isExportAssignment(host)) return functionsOf(tsApi, unwrapped(tsApi, host.expression));
  return [];
}

/** A tag on an overload signature was meant for the implementation: the signature with the body. */
function implementationOf(tsApi: typeof ts, signature: ts.SignatureDeclaration): RefusedFunction['node'][] {
  if (!tsApi.isMethodDeclaration(signature) && !tsApi.isFunctionDeclaration(signature)) return [];
  const parent = signature.parent as ts.Node;
  const siblings: readonly ts.Node[] = tsApi.isClassLike(parent)
    ? parent.members
    : tsApi.isObjectLiteralExpression(parent)
      ? parent.properties
      : ((parent as { statements?: readonly ts.Node[] }).statements ?? []);
  const name = signature.name?.getText();
  return siblings.filter(
    (s): s is RefusedFunction['node'] & (ts.MethodDeclaration | ts.FunctionDeclaration) =>
      (tsApi.isMethodDeclaration(s) || tsApi.isFunctionDeclaration(s)) &&
      s.body !== undefined &&
      s.name?.getText() === name,
  );
}

/** `(async () => {}) as Handler` → the arrow. */
function unwrapped(tsApi: typeof ts, expression: ts.Expression): ts.Expression {
  let e = expression;
  while (tsApi.isParenthesizedExpression(e) || tsApi.isAsExpression(e) || tsApi.isSatisfiesExpression(e))
    e = e.expression;
  return e;
}

function planLock(
  tsApi: typeof ts,
  checker: ts.TypeChecker | undefined,
  sourceFile: ts.SourceFile,
  host: ts.Node,
  tag: ts.JSDocTag,
  defaults: Partial<LockOptions>,
): LockPlan {
  const tagText = readTagText(sourceFile, tag);
  const target = checkTarget(tsApi, checker, host, tagText.tagSpan);
  const model = readTagModel(tagText);
  const keys = resolveKeys(tsApi, checker, target.node, model);
  const signal = model.signalPath && resolveSignal(tsApi, checker, target.node, model.signalPath);
  const onFailClass =
    model.onFailClass &&
    resolveOnFailClass(tsApi, checker, target.node.body, model.onFailClass.name, model.onFailClass.span);
  // A class named in the tag decides failures; a plugin-wide onFail default would only mislead a reader.
  const { onFail: defaultOnFail, ...otherDefaults } = defaults;
  const base = onFailClass ? otherDefaults : { ...otherDefaults, ...(defaultOnFail ? { onFail: defaultOnFail } : {}) };
  const options = { ...base, ...model.options };
  refuseRedlockWithOneServerOptions(options, tagText.tagSpan);
  const hold = holdClash(options);
  if (hold) fail(Code.MalformedValue, `${hold} (from the tag or the plugin's defaults)`, tagText.tagSpan);
  const skipProblem = options.onFail === 'skip' ? skipReturnProblem(tsApi, target.node) : undefined;
  if (skipProblem) fail(Code.SkipReturnType, skipProblem, tagText.tagSpan);
  return {
    target,
    businessFlag: model.businessFlag,
    options,
    keys,
    separateKeys: model.separateKeys,
    signal,
    onFailClass,
  };
}

/** A tag that asks for options a Redlock grant cannot give (runtime/base/option-table.ts), itself or by the plugin's defaults. */
function refuseRedlockWithOneServerOptions(options: Partial<LockOptions>, span: Span): void {
  const clash = redlockClash(options);
  if (clash)
    fail(
      Code.MalformedValue,
      `redlock=true cannot be combined with ${clash.name}=${String(options[clash.name])} (from the tag or the plugin's defaults): ${ONE_SERVER_REASON}`,
      span,
    );
}
