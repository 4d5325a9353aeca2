// lockweave/ts-jest — ts-jest's AST transformer, for projects that keep ts-jest:
//
//   // jest.config.js
//   transform: { '^.+\\.tsx?$': ['ts-jest', { astTransformers: { before: ['lockweave/ts-jest'] } }] }
//
// ts-jest runs its astTransformers on every path it compiles by — its language service, and
// `isolatedModules` with any module kind — unlike a compiler it is given (ts-patch's), which it
// skips in isolatedModules mode with a Node module kind. ts-jest also loads this module in every
// worker, before any test and whether or not jest's cache answers, which is what lets lockweave's
// runtime refuse a jest worker without it (runtime/base/weave-mark.ts). `prefix` and `defaults`
// come from the tsconfig's "lockweave/transformer" plugin entry, as on every route; this entry
// refuses options of its own. A tag error throws from the compile, which fails the test file that
// loads the tagged code.
import * as path from 'node:path';
import type * as ts from 'typescript';
import { sourceTransformer } from '../index';
import { misroutedTags, type JestRoutingConfig } from './jest-routing';
import { routeSettings } from '../plugin-entry';
import { markJestWeaving } from '../../runtime/base/weave-mark';
import { LOCKWEAVE_VERSION } from '../version';

markJestWeaving();

/** What ts-jest passes a transformer factory (the part of its TsCompiler we read). */
interface TsJestCompiler {
  readonly program?: ts.Program;
  readonly configSet: {
    readonly compilerModule: typeof ts;
    readonly parsedTsConfig: { readonly options: ts.CompilerOptions };
    /** The jest config ts-jest was handed (ts-jest 29's, marked internal: read only when it is there). */
    readonly _jestCfg?: Partial<JestRoutingConfig>;
  };
}

// ts-jest puts both in its cache key: a new lockweave compiles every file again.
export const name = 'lockweave';
export const version = LOCKWEAVE_VERSION;

export function factory(compiler: TsJestCompiler, options?: unknown): ts.TransformerFactory<ts.SourceFile> {
  assertRouting(compiler.configSet._jestCfg);
  const plugins = compiler.configSet.parsedTsConfig.options.plugins;
  const config = routeSettings('lockweave/ts-jest', 'the jest config', options, plugins);
  const tsApi = compiler.configSet.compilerModule;
  return (context) => (sourceFile) => {
    // The language service's program holds the file, with its imports' types; ts.transpileModule
    // (isolatedModules with a CommonJS module kind) hands ts-jest no program: one of the file alone.
    const own = compiler.program;
    const program =
      own?.getSourceFile(sourceFile.fileName) === sourceFile ? own : programOfOneFile(tsApi, sourceFile, context);
    return sourceTransformer(program, config, { ts: tsApi })(context)(sourceFile);
  };
}

/**
 * A jest config that gives tagged code to a transformer that does not weave (jest-routing.ts) fails
 * the compile, and with it the test file. ts-jest calls the factory as it compiles, and a warm jest
 * cache compiles nothing; but a config changed to such a pattern changes every cache key, and its
 * first run compiles.
 */
function assertRouting(jest: Partial<JestRoutingConfig> | undefined): void {
  if (typeof jest?.rootDir !== 'string' || !Array.isArray(jest.transform)) return;
  const config = jest as JestRoutingConfig;
  const key = JSON.stringify([config.rootDir, config.roots, config.transform, config.transformIgnorePatterns]);
  const error = misroutedTags(config, key, path.join(__dirname, 'jest.js'));
  if (error) throw error;
}

/** What ts.transpileModule builds around a file: no lib, no imports resolved. */
function programOfOneFile(tsApi: typeof ts, sourceFile: ts.SourceFile, context: ts.TransformationContext): ts.Program {
  const host: ts.CompilerHost = {
    getSourceFile: (fileName) => (fileName === sourceFile.fileName ? sourceFile : undefined),
    getDefaultLibFileName: () => 'lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '',
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => fileName === sourceFile.fileName,
    readFile: () => undefined,
  };
  const options = { ...context.getCompilerOptions(), noLib: true, noResolve: true, types: [] };
  return tsApi.createProgram([sourceFile.fileName], options, host);
}
