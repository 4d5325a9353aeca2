// lockweave/jest — a jest transformer that weaves and compiles TypeScript:
//
//   // jest.config.js
//   transform: { '^.+\\.tsx?$': 'lockweave/jest' }     ('^.+\\.[jt]sx?$' with allowJs)
//
// It weaves and compiles whatever jest hands it: JavaScript too (TypeScript transpiles it as
// tspc does an allowJs project's files).
//
// Each file is woven (weaveSource), then transpiled by lockweave's own TypeScript 6 with the
// project's compiler options (the nearest tsconfig.json, or `['lockweave/jest', { tsconfig }]`):
// no type check, as ts-jest's isolatedModules or babel do. A tag error throws, so the test file
// that loads the tagged code fails to run, loudly, instead of testing an unlocked method.
import * as crypto from 'node:crypto';
import type * as ts from 'typescript';
import { LockweaveBuildError, weaveSource } from '../weave-source';
import { ownTypeScript } from '../typescript';
import { misroutedTags, type JestRoutingConfig } from './jest-routing';
import { projectConfigFor, undecidedError } from './project-config';
import { markJestWeaving } from '../../runtime/base/weave-mark';
import { lockweaveStamp } from './woven-cache';

/** What jest passes (the part of @jest/transform's TransformOptions we read). */
interface JestTransformOptions {
  /** The project's config, normalized (jest 27 and later). */
  readonly config?: JestRoutingConfig;
  readonly configString: string;
  readonly supportsStaticESM?: boolean;
  readonly instrument?: boolean;
  readonly transformerConfig?: { readonly tsconfig?: string };
}

interface TransformedSource {
  readonly code: string;
  readonly map: string | null;
}

// jest loads its transformers into each worker before any test runs, whether or not its cache
// answers: from here on the worker may run tagged TypeScript (runtime/base/weave-mark.ts). It
// loads every transformer of the config, though, and one whose pattern comes first takes the files
// it matches: the mark says which files jest handed this one — getCacheKey, which jest calls for
// every file even when its cache answers — and the runtime refuses a test file handed elsewhere.
const handed = new Set<string>();
markJestWeaving((file) => handed.has(file));

function processFile(sourceText: string, sourcePath: string, options: JestTransformOptions): TransformedSource {
  assertRouting(options);
  handed.add(sourcePath);
  const project = projectConfigFor(sourcePath, options.transformerConfig?.tsconfig);
  const esm = options.supportsStaticESM === true;
  // An ES module gets an import of the runtime, which TypeScript turns into require() for CommonJS.
  const woven = weaveSource(sourcePath, sourceText, {
    ...project.plugin,
    format: esm ? 'esm' : undefined,
    sourceMap: false,
  });
  if (woven.errors.length > 0) throw new LockweaveBuildError(woven.errors);
  const undecided = undecidedError(sourcePath, project, woven.locked);
  if (undecided) throw undecided;
  const tsApi = ownTypeScript();
  const output = tsApi.transpileModule(woven.code, {
    fileName: sourcePath,
    compilerOptions: compilerOptionsFor(tsApi, project.compilerOptions, esm),
    reportDiagnostics: true,
  });
  const syntaxErrors = (output.diagnostics ?? []).filter(
    (d) => d.file && d.category === tsApi.DiagnosticCategory.Error,
  );
  if (syntaxErrors.length > 0) {
    throw new Error(
      tsApi.formatDiagnostics(syntaxErrors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => '',
        getNewLine: () => '\n',
      }),
    );
  }
  // The map is TypeScript's, of the woven text. Weaving adds no line and moves none, so it is
  // right to the line for the original file too; only columns after woven text on a method's
  // first line (and the header on the first statement's line) are off by the inserted length.
  return {
    code: output.outputText.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'),
    map: output.sourceMapText ?? null,
  };
}

/** The project's options (decorators, jsx, target), with what jest needs from the output forced. */
function compilerOptionsFor(tsApi: typeof ts, project: ts.CompilerOptions, esm: boolean): ts.CompilerOptions {
  const { moduleResolution: _resolution, verbatimModuleSyntax: _verbatim, ...rest } = project;
  return {
    ...rest,
    module: esm ? tsApi.ModuleKind.ESNext : tsApi.ModuleKind.CommonJS,
    sourceMap: true,
    inlineSourceMap: false,
    inlineSources: true,
    declaration: false,
    emitDeclarationOnly: false,
    noEmit: false,
  };
}

/**
 * Fails the file jest asks about when the config gives a tagged file elsewhere (jest-routing.ts).
 * In getCacheKey, which jest calls for every file even when its cache answers, before process.
 */
function assertRouting(options: JestTransformOptions): void {
  if (!options.config) return; // jest before 27 hands no config: the runtime's check stands alone
  const error = misroutedTags(options.config, options.configString, __filename);
  if (error) throw error;
}

/** Everything the output depends on: a change to any of them compiles the file again. */
function getCacheKey(sourceText: string, sourcePath: string, options: JestTransformOptions): string {
  assertRouting(options);
  handed.add(sourcePath);
  const project = projectConfigFor(sourcePath, options.transformerConfig?.tsconfig);
  return crypto
    .createHash('sha256')
    .update(
      JSON.stringify([
        // The weaver's build, not only its version: a patched or rebuilt lockweave of one version weaves anew.
        lockweaveStamp(),
        ownTypeScript().version,
        sourcePath,
        options.configString,
        options.transformerConfig ?? null,
        options.supportsStaticESM === true,
        options.instrument === true,
        project.configFile ?? null,
        project.plugin,
        project.undecided ?? null,
        project.compilerOptions,
      ]),
    )
    .update('\0')
    .update(sourceText)
    .digest('hex');
}

// A default export: jest loads a transformer with ES-module interop and reads `default` from
// compiled TypeScript. canInstrument false: jest instruments our output itself for coverage.
export default { process: processFile, getCacheKey, canInstrument: false };
