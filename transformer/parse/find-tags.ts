// Finds every `@redisLock` tag the compiler attached to a declaration, once per tag.
import type * as ts from 'typescript';

export const TAG_NAME = 'redisLock';

/** True when a file could hold a tag at all: lets untagged files skip every walk. */
export function mentionsTag(sourceFile: ts.SourceFile): boolean {
  return /@redisLock(?![A-Za-z0-9_$])/.test(sourceFile.text);
}

export interface TaggedDeclaration {
  /** The node the JSDoc block belongs to (a method, a function, a class, a property, ...). */
  readonly host: ts.Node;
  readonly tag: ts.JSDocTag;
}

export function findTaggedDeclarations(tsApi: typeof ts, sourceFile: ts.SourceFile): TaggedDeclaration[] {
  const found: TaggedDeclaration[] = [];
  const visit = (node: ts.Node): void => {
    for (const tag of tsApi.getJSDocTags(node)) {
      // getJSDocTags also returns tags inherited from a parent (a variable statement's tags on its
      // declaration, @param on a parameter); counting only the block's own host avoids doubles.
      if (tag.tagName.text === TAG_NAME && tag.parent.parent === node) found.push({ host: node, tag });
    }
    tsApi.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}
