// lockweave's own TypeScript: version 6, the last compiler written in JavaScript, carried as the
// dependency `typescript6`. The routes that do not run inside the user's tsc (bundlers, the Node
// loader, jest, `lockweave build`) parse and check with it, so they work the same whatever the
// project's `typescript` is — including TypeScript 7, which has no JavaScript API to call.
import type * as ts from 'typescript';

let loaded: typeof ts | undefined;

export function ownTypeScript(): typeof ts {
  // Loaded on first use: a process whose files hold no tag never pays for it.
  return (loaded ??= require('typescript6') as typeof ts);
}
