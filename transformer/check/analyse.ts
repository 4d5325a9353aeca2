// One file, from tags to lock plans: find (parse/) → analyse (check/) → the plans weave/ writes.
// Every error is a LockweaveDiagnostic, collected per tag so that one bad tag does not hide another.
import type * as ts from 'typescript';
import { attempt, type LockweaveDiagnostic } from '../diagnostics';
import { findTaggedDeclarations, tagPositions } from '../parse/find-tags';
import { findIgnoredTags } from '../parse/ignored-tags';
import { readTagText } from '../parse/tag-text';
import { readTagModel, type SpecOptions } from './attributes';
import { resolveKeys, type KeyAccess } from './key-path';
import { resolveOnFailClass, type FailureClassRef } from './on-fail-class';
import { checkTarget, type LockTarget } from './target';

export interface LockPlan {
  readonly target: LockTarget;
  readonly businessFlag: string;
  /** Plugin defaults overlaid with the tag's own options: exactly what defineLock() receives. */
  readonly options: SpecOptions;
  readonly keys: readonly KeyAccess[];
  readonly onFailClass?: FailureClassRef;
}

/** A function whose tag has an error: it is emitted with a body that throws, never unlocked. */
export interface RefusedFunction {
  readonly node: ts.FunctionLikeDeclaration & { readonly body: ts.Block };
  readonly error: LockweaveDiagnostic;
}

export interface FileAnalysis {
  readonly plans: readonly LockPlan[];
  readonly errors: readonly LockweaveDiagnostic[];
  readonly refused: readonly RefusedFunction[];
}

const NOTHING: FileAnalysis = { plans: [], errors: [], refused: [] };

export function analyseFile(tsApi: typeof ts, checker: ts.TypeChecker, sourceFile: ts.SourceFile, defaults: SpecOptions): FileAnalysis {
  if (sourceFile.isDeclarationFile) return NOTHING;
  const positions = tagPositions(sourceFile.text);
  if (positions.length === 0) return NOTHING;
  const plans: LockPlan[] = [];
  const errors: LockweaveDiagnostic[] = [];
  const refused: RefusedFunction[] = [];
  const tagged = findTaggedDeclarations(tsApi, sourceFile, positions);
  for (const { host, tag } of tagged) {
    const result = attempt(() => planLock(tsApi, checker, sourceFile, host, tag, defaults));
    if (result.ok) {
      plans.push(result.value);
      continue;
    }
    errors.push(result.error);
    if (hasBlockBody(tsApi, host)) refused.push({ node: host, error: result.error });
  }
  errors.push(...findIgnoredTags(tsApi, sourceFile, positions, tagged.map(({ tag }) => tag.parent as ts.JSDoc)));
  errors.sort((a, b) => a.span.start - b.span.start);
  return { plans, errors, refused };
}

function hasBlockBody(tsApi: typeof ts, node: ts.Node): node is RefusedFunction['node'] {
  return tsApi.isFunctionLike(node) && 'body' in node && node.body !== undefined && tsApi.isBlock(node.body as ts.Node);
}

function planLock(tsApi: typeof ts, checker: ts.TypeChecker, sourceFile: ts.SourceFile, host: ts.Node, tag: ts.JSDocTag, defaults: SpecOptions): LockPlan {
  const tagText = readTagText(sourceFile, tag);
  const target = checkTarget(tsApi, checker, host, tagText.tagSpan);
  const model = readTagModel(tagText);
  const keys = resolveKeys(tsApi, checker, target.node, model);
  const onFailClass = model.onFailClass &&
    resolveOnFailClass(tsApi, checker, target.node.body, model.onFailClass.name, model.onFailClass.span);
  // A class named in the tag decides failures; a plugin-wide onFail default would only mislead a reader.
  const { onFail: defaultOnFail, ...otherDefaults } = defaults;
  const base = onFailClass ? otherDefaults : { ...otherDefaults, ...(defaultOnFail ? { onFail: defaultOnFail } : {}) };
  return { target, businessFlag: model.businessFlag, options: { ...base, ...model.options }, keys, onFailClass };
}
