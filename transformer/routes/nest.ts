// lockweave/nest — the Nest CLI's compiler plugin, for `nest build` and `nest start` with the tsc
// builder (Nest's default):
//
//   nest-cli.json   "compilerOptions": { "builder": "tsc", "plugins": ["lockweave/nest"] }
//
// The Nest CLI loads each plugin nest-cli.json names and calls its `before(options, program)` for
// the program it emits: the tspc route without ts-patch. The tag errors join the program's own
// diagnostics, which `nest build` prints with its type errors and fails on after the emit, and the
// emit weaves every tagged method (a method whose tag has an error is emitted as a body that
// throws it, never unlocked). `prefix` and `defaults` come from the tsconfig's
// "lockweave/transformer" plugin entry when it has one, as on every route; this plugin takes no
// options of its own, and refuses any — a prefix set only here would lock other keys than
// `lockweave check` and every other route.
import type * as ts from 'typescript';
import lockweave, { serveDiagnostics } from '../index';
import { routeSettings } from '../plugin-entry';
import { ownTypeScript } from '../typescript';

export function before(options: unknown, program: ts.Program): ts.TransformerFactory<ts.SourceFile> {
  const config = routeSettings('lockweave/nest', 'nest-cli.json', options, program.getCompilerOptions().plugins);
  // The project's TypeScript: the one the Nest CLI resolves from the working directory too.
  const tsApi = ownTypeScript(process.cwd());
  serveDiagnostics(program, config, { ts: tsApi });
  return lockweave(program, config, { ts: tsApi }) as ts.TransformerFactory<ts.SourceFile>;
}
