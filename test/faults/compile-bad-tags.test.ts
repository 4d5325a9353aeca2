// Fault kind: bad input at compile time. A corpus of malformed tags — hand-written cases for
// every error of CONTRACT section 3 plus fast-check-generated near-misses, bad values, repeats
// and code-injection attempts — is compiled by tspc in one run, one tagged declaration per
// file, beside one well-formed control file.
import test from 'ava';
import * as ts from 'typescript';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAND_WRITTEN, type BadTagCase } from '../fixtures/faults/compile-corpus';
import { sampleBadTags } from './support/bad-tags';
import { processScratch } from '../helpers/process-scratch';
import { REPO_ROOT } from './support/paths';
import { recordSummary } from './support/summary';
import { tspc } from '../helpers/tspc';
import { WOVEN_CALL } from './support/compile-workers';

const GENERATED = 40;
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 2_147_483_647);
const TRANSFORMER = join(REPO_ROOT, 'dist', 'transformer', 'index.js');

interface CorpusFile {
  readonly file: string;
  readonly tag: string;
  readonly why: string;
  /** 1-based line of the JSDoc tag. */
  readonly tagLine: number;
  /** 1-based line where the tagged declaration ends: a diagnostic must point between the two. */
  readonly endLine: number;
  /** A string only the tagged body contains, or undefined when the declaration has no body. */
  readonly marker: string | undefined;
}

const DEFAULT_SOURCE = 'export class Svc {\n  TAG\n  async pay(orderNo: string): Promise<string> { return BODY; }\n}\n';

function writeCase(dir: string, index: number, badCase: BadTagCase): CorpusFile {
  const file = `case-${String(index).padStart(3, '0')}-${badCase.name}.ts`;
  const marker = `BODY_${index}_${badCase.name.replace(/\W/g, '_')}`;
  const source = badCase.source ?? DEFAULT_SOURCE;
  const text = `// ${badCase.why}\n${source.replace('TAG', `/** @redisLock ${badCase.tag} */`).replace(/BODY/g, JSON.stringify(marker))}`;
  writeFileSync(join(dir, 'src', file), text);
  const lines = text.split('\n');
  const tagLine = lines.findIndex((line) => /@redislock/i.test(line)) + 1;
  return {
    file,
    tag: badCase.tag,
    why: badCase.why,
    tagLine,
    endLine: tagLine + 3,
    marker: source.includes('BODY') ? marker : undefined,
  };
}

interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: number;
  readonly message: string;
}

function parseDiagnostics(output: string): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const match of output.matchAll(/^src\/(\S+?)\((\d+),(\d+)\): error TS(\d+): (.*)$/gm)) {
    found.push({
      file: match[1]!,
      line: Number(match[2]),
      column: Number(match[3]),
      code: Number(match[4]),
      message: match[5]!,
    });
  }
  return found;
}

test(`tspc rejects each of ${HAND_WRITTEN.length} hand-written and ${GENERATED} generated malformed tags with a @redisLock: diagnostic in its own file, never crashes, and never turns tag text into code`, async (t) => {
  const startedAt = Date.now();
  t.true(existsSync(TRANSFORMER), 'dist/transformer is built (npm run build)');
  const dir = processScratch('faults-compile');
  rmSync(join(dir, 'src'), { recursive: true, force: true });
  rmSync(join(dir, 'out'), { recursive: true, force: true });
  mkdirSync(join(dir, 'src'));

  const generated = sampleBadTags(SEED, GENERATED).map(
    (tag, index): BadTagCase => ({ name: `generated-${index}`, tag, why: `generated (seed ${SEED})` }),
  );
  const corpus = [...HAND_WRITTEN, ...generated].map((badCase, index) => writeCase(dir, index + 1, badCase));
  writeFileSync(
    join(dir, 'src', 'control.ts'),
    '// well-formed: proves the transformer ran and weaves\nexport class Svc {\n  /** @redisLock businessFlag=pay keyName=orderNo lockTime=5 */\n  async pay(orderNo: string): Promise<string> { return "CONTROL_BODY"; }\n}\n',
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          strict: true,
          skipLibCheck: true,
          types: [],
          lib: ['ES2022'],
          rootDir: 'src',
          outDir: 'out',
          removeComments: true,
          // The plugin by path: no node_modules link into the repo is needed (or wanted) here.
          plugins: [{ transform: TRANSFORMER }],
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );

  const result = tspc(['-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 90_000 });
  const { output } = result;
  const diagnostics = parseDiagnostics(output);
  const report = (what: string) => `${what} (seed ${SEED}; rerun with FAULTS_SEED=${SEED})\n${output.slice(0, 6000)}`;

  t.is(result.error, undefined, report('tspc ran to the end'));
  t.not(result.status, 0, report('tspc fails'));
  t.notRegex(output, /^\s+at .+:\d+:\d+\)?$/m, report('no stack trace'));
  t.notRegex(
    output,
    /Debug Failure|internal error|TypeError|RangeError|ReferenceError|Cannot read prop/i,
    report('no internal error'),
  );

  const foreign = diagnostics.filter(
    (d) => !(d.code >= 93000 && d.code < 93100) || !d.message.startsWith('@redisLock: '),
  );
  t.deepEqual(foreign, [], report('every diagnostic is a @redisLock: one (anything else is a broken corpus file)'));
  t.deepEqual(
    diagnostics.filter((d) => d.file === 'control.ts'),
    [],
    report('the well-formed control file compiles'),
  );

  const missed: string[] = [];
  const misplaced: string[] = [];
  for (const entry of corpus) {
    const mine = diagnostics.filter((d) => d.file === entry.file);
    if (mine.length === 0) missed.push(`${entry.file}: ${entry.tag}`);
    else if (!mine.some((d) => d.line >= entry.tagLine && d.line <= entry.endLine))
      misplaced.push(`${entry.file}:${mine[0]!.line} (tag on ${entry.tagLine})`);
  }
  t.deepEqual(missed, [], report('every malformed tag is reported in its own file'));
  t.deepEqual(misplaced, [], report('each diagnostic points at the tag or its declaration'));
  const filesReported = new Set(diagnostics.map((d) => d.file));
  t.is(filesReported.size, corpus.length, report('as many files reported as bad files'));

  // What was emitted: the control is woven; tag text never appears as code.
  const control = readFileSync(join(dir, 'out', 'control.js'), 'utf8');
  t.regex(control, /defineLock\(/);
  t.regex(control, WOVEN_CALL);
  const emitted = existsSync(join(dir, 'out'))
    ? readdirSync(join(dir, 'out')).filter((name) => name.endsWith('.js'))
    : [];
  // Tag text may appear in comments (the JSDoc is kept) and in string literals (an erroring
  // function throws its diagnostic); it must never appear as code.
  const injected = emitted.filter((name) =>
    /process\.exit|require\(['"]fs['"]\)/.test(codeTokens(readFileSync(join(dir, 'out', name), 'utf8'))),
  );
  t.deepEqual(injected, [], 'no emitted file contains injected code');
  // An erroring function is emitted with a body that throws its diagnostic: it can never run unlocked.
  const unlocked = corpus.filter((entry) => {
    const js = join(dir, 'out', entry.file.replace(/\.ts$/, '.js'));
    if (!entry.marker || !existsSync(js)) return false;
    const text = readFileSync(js, 'utf8');
    return text.includes(entry.marker) && !WOVEN_CALL.test(text);
  });
  t.deepEqual(
    unlocked.map((entry) => entry.file),
    [],
    report('no erroring function is emitted with its body and no lock'),
  );

  // Kept for inspection when the case failed; removed when it passed.
  t.teardown(() => {
    if (t.passed) rmSync(dir, { recursive: true, force: true });
  });
  recordSummary({
    case: t.title,
    faults: corpus.length,
    operations: 1,
    durationMs: Date.now() - startedAt,
    notes: `seed ${SEED}; ${diagnostics.length} diagnostics over ${filesReported.size} files; tspc exit ${result.status}; erroring functions emitted as a throw of their diagnostic`,
  });
});

/**
 * The emitted JavaScript as code tokens: comments (the kept JSDoc) left out, and the one string
 * literal that legitimately quotes tag text — the diagnostic an erroring function throws — blanked.
 */
function codeTokens(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, /* skipTrivia */ true, ts.LanguageVariant.Standard, text);
  const code: string[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    const quotesDiagnostic = token === ts.SyntaxKind.StringLiteral && scanner.getTokenValue().startsWith('@redisLock:');
    code.push(quotesDiagnostic ? '""' : scanner.getTokenText());
  }
  return code.join(' ').replace(/ ?([.()]) ?/g, '$1');
}
