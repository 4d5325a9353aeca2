// `lockweave check`: (1) every @redisLock tag of the project checked against its types, as tspc
// would; (2) an audit of the toolchain — every way package.json scripts and config files build or
// run TypeScript that would run a tagged method unlocked. Non-zero on any tag error or hole.
import * as path from 'node:path';
import type * as ts from 'typescript';
import { PROJECT_FLAG, type Command, type ParsedArgs } from '../command';
import {
  compilerFor,
  createProgram,
  hasCompilerApi,
  formatDiagnostics,
  plural,
  pluginOptions,
  projectTypeScript,
  readProject,
  tsconfigPath,
} from '../project';
import type { LockOrder } from '../../transformer/check/lock-order';
import { projectSources, tagReport } from '../tagged-methods';
import { auditToolchain, type Audit } from '../toolchain-audit';
import { AUDIT_BLIND_SPOTS } from '../toolchain-rules';
import { printableWithoutCredentials } from '../without-credentials';

export const check: Command = {
  name: 'check',
  summary: 'check every @redisLock tag against its types, and audit how the project builds and runs TypeScript',
  synopsis: 'lockweave check [-p <tsconfig>] [--typescript <dir>]',
  flags: [
    PROJECT_FLAG,
    {
      names: ['--typescript'],
      value: '<dir>',
      help: "audit as if this typescript package were the project's (default: the one it resolves)",
    },
  ],
  operands: { min: 0, max: 0, name: '' },
  details: [
    'Tags: type-checks the project with its own TypeScript (5.x, 6.x) or, when that is 7 or absent,',
    "lockweave's TypeScript 6, and reports every tag error as file:line:col - error TS930xx.",
    'Lock order: prints each lock a tagged method takes while it holds another (a call the checker',
    'resolves to another tagged method), and reports a cycle (a → b beside b → a) as error TS93029.',
    '',
    'Toolchain: reads package.json (scripts, dependencies), the tsconfig (plugin entry, "ts-node") and the',
    'config files of vite, vitest, rollup, rolldown, webpack, rspack, tsup, jest, swc and babel, plus esbuild',
    'scripts run by node, and reports every hole: a command or config that would run tagged methods',
    'unlocked (tsc on TypeScript 7, plain tsc, tspc without the plugin entry or ts-patch, tsx / node x.ts /',
    'ts-node without lockweave/register, bundlers and jest without the lockweave plugin, swc, babel).',
    'Each hole names the file, what runs unlocked and the fix. With no script and no config file it',
    'audits the route the tsconfig implies (tspc; tsc on TypeScript 7).',
    AUDIT_BLIND_SPOTS,
    '',
    'Exit: 0 no tag error and no hole; 1 any tag error, type error or hole; 2 bad command line.',
    '',
    'Examples:',
    '  lockweave check',
    '  lockweave check -p packages/api/tsconfig.json',
  ].join('\n'),
  run: runCheck,
};

function runCheck(args: ParsedArgs): number {
  const configFile = tsconfigPath(args.flags.project);
  const installed = projectTypeScript(path.dirname(configFile), args.flags.typescript);
  const tsApi = compilerFor(installed, path.dirname(configFile));
  const project = readProject(tsApi, configFile);
  const program = createProgram(tsApi, project.parsed);
  const tags = tagReport(tsApi, projectSources(program), pluginOptions(project), program);
  const typeErrors = [
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getSemanticDiagnostics(),
  ];
  const errors = tsApi
    .sortAndDeduplicateDiagnostics([...typeErrors, ...tags.errors])
    .filter((d: ts.Diagnostic) => d.category === tsApi.DiagnosticCategory.Error);
  const audit = auditToolchain(configFile, args.flags.typescript);

  if (errors.length) console.error(formatDiagnostics(tsApi, errors));
  if (tags.order) printLockOrder(tags.order);
  printHoles(audit);
  const compiler = hasCompilerApi(installed)
    ? `TypeScript ${printableWithoutCredentials(tsApi.version)}`
    : `lockweave's TypeScript ${tsApi.version} (the project's is ${installed ? printableWithoutCredentials(installed.version) : 'not installed'})`;
  console.log(
    `lockweave check: ${plural(tags.methods.length, 'tagged method')} in ${plural(tags.files, 'file')} (checked with ${compiler}); ` +
      `${plural(errors.length, 'error')}; ${plural(audit.holes.length, 'toolchain hole')} (audited ${plural(audit.seen, 'script command or config file', 'script commands and config files')})`,
  );
  return errors.length > 0 || audit.holes.length > 0 ? 1 : 0;
}

/** The lock-order graph: each lock taken while another is held, with the call; then the cycles. */
function printLockOrder(order: LockOrder): void {
  if (order.edges.length === 0) return;
  const lines = ['lockweave check: lock order (a → b: b is taken while a is held)'];
  for (const edge of order.edges) {
    const file = edge.call.getSourceFile();
    const { line, character } = file.getLineAndCharacterOfPosition(edge.call.getStart(file));
    const [from, to, caller, callee, at] = [
      edge.from,
      edge.to,
      edge.caller.target.site,
      edge.callee.target.site,
      path.relative(process.cwd(), file.fileName),
    ].map(printableWithoutCredentials);
    lines.push(`  ${from} → ${to}   ${caller} calls ${callee} at ${at}:${line + 1}:${character + 1}`);
  }
  for (const cycle of order.cycles)
    lines.push(`  cycle: ${[...cycle, cycle[0]].map(printableWithoutCredentials).join(' → ')} (can deadlock)`);
  console.log(lines.join('\n'));
}

function printHoles(audit: Audit): void {
  if (audit.holes.length === 0) return;
  const lines = [
    `lockweave check: ${plural(audit.holes.length, 'hole')} — ways this project builds or runs TypeScript with tagged methods unlocked:`,
  ];
  for (const hole of audit.holes) {
    lines.push(
      `  ${printableWithoutCredentials(hole.where)}${hole.command ? `: ${printableWithoutCredentials(hole.command)}` : ''}`,
    );
    // lockweave's own words, with the project's (a version, a transform's name, a Nest project's)
    // made printable without credentials as they were put in (toolchain-audit.ts, nest-holes.ts):
    // hiding would blank the `NODE_OPTIONS=…` advice, escaping would double the fix's backslashes.
    lines.push(`    unlocked: ${hole.runsUnlocked}`);
    lines.push(`    fix: ${hole.fix}`);
  }
  lines.push(`  (${AUDIT_BLIND_SPOTS})`);
  console.error(lines.join('\n'));
}
