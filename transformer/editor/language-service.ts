// lockweave/language-service — a TypeScript language-service plugin: the editor (tsserver, on
// TypeScript 5.x and 6.x) shows lockweave's errors as you type, what a tag locks when you hover it,
// and the tag's attribute names as completions.
//
//   tsconfig.json   "plugins": [{ "transform": "lockweave/transformer" }, { "name": "lockweave/language-service" }]
//
// It reads the same analysis as tspc (check/analyse.ts, through programDiagnostics), with the prefix
// and defaults of the tsconfig's lockweave/transformer entry. It changes nothing that is built: an
// editor plugin runs in the editor only. tsserver resolves plugins without package "exports", so the
// package also has a language-service/ folder whose index.js loads this file.
import type * as ts from 'typescript';
import { DEFAULT_LOCK_OPTIONS } from '../../runtime/base/options';
import type { LockPlan } from '../check/analyse';
import { ATTRIBUTES } from '../check/attributes';
import { programDiagnostics } from '../index';
import { tagMentions } from '../parse/find-tags';
import { optionsEntry } from '../plugin-entry';

const TAG = '@redisLock';

function init(modules: { typescript: typeof ts }) {
  const tsApi = modules.typescript;

  function create(info: ts.server.PluginCreateInfo): ts.LanguageService {
    const service = info.languageService;
    const proxy = Object.create(null) as ts.LanguageService;
    for (const name of Object.keys(service) as (keyof ts.LanguageService)[]) {
      const method = service[name];
      (proxy as unknown as Record<string, unknown>)[name] =
        typeof method === 'function'
          ? (...args: unknown[]) => (method as (...a: unknown[]) => unknown).apply(service, args)
          : method;
    }

    /** The program, its file and lockweave's view of it; undefined for a file outside the program. */
    const lookAt = (fileName: string) => {
      const program = service.getProgram();
      const sourceFile = program?.getSourceFile(fileName);
      if (!program || !sourceFile) return undefined;
      const {
        transform: _t,
        transformProgram: _p,
        ...config
      } = optionsEntry(program.getCompilerOptions().plugins) ?? {};
      return { program, sourceFile, config, ...programDiagnostics(tsApi, program, config) };
    };

    proxy.getSemanticDiagnostics = (fileName) => {
      const prior = service.getSemanticDiagnostics(fileName);
      const view = safely(() => lookAt(fileName));
      return view ? [...prior, ...safely(() => view.errorsOf(view.sourceFile), [])] : prior;
    };

    proxy.getCompilerOptionsDiagnostics = () => {
      const prior = service.getCompilerOptionsDiagnostics();
      const program = service.getProgram();
      if (!program) return prior;
      const {
        transform: _t,
        transformProgram: _p,
        ...config
      } = optionsEntry(program.getCompilerOptions().plugins) ?? {};
      return [...prior, ...safely(() => programDiagnostics(tsApi, program, config).globalErrorsOf(), [])];
    };

    proxy.getQuickInfoAtPosition = (fileName, position, ...rest) => {
      const prior = service.getQuickInfoAtPosition(fileName, position, ...rest);
      const view = safely(() => lookAt(fileName));
      const tag = view && tagAt(view.sourceFile.text, position);
      if (!view || !tag) return prior;
      const plan = safely(() => planAfter(view.analyse(view.sourceFile).plans, view.sourceFile, tag.end));
      const text = plan
        ? describePlan(plan)
        : "lockweave: this tag has an error (listed with the file's problems); it locks nothing until it is fixed";
      return {
        kind: tsApi.ScriptElementKind.unknown,
        kindModifiers: '',
        textSpan: { start: tag.start, length: TAG.length },
        displayParts: [{ text: plan ? `@redisLock — ${plan.target.site}` : '@redisLock', kind: 'text' }],
        documentation: [...(prior?.documentation ?? []), { text, kind: 'text' }],
        tags: prior?.tags,
      };
    };

    proxy.getCompletionsAtPosition = (fileName, position, options, ...rest) => {
      const prior = service.getCompletionsAtPosition(fileName, position, options, ...rest);
      const text = service.getProgram()?.getSourceFile(fileName)?.text;
      const typed = text === undefined ? undefined : attributeBeingTyped(text, position);
      if (!typed) return prior;
      const entries = ATTRIBUTES.filter((name) => !typed.used.has(name)).map(
        (name): ts.CompletionEntry => ({
          name,
          kind: tsApi.ScriptElementKind.memberVariableElement,
          kindModifiers: '',
          sortText: '0',
          insertText: `${name}=`,
          replacementSpan: { start: position - typed.prefix.length, length: typed.prefix.length },
        }),
      );
      return {
        isGlobalCompletion: false,
        isMemberCompletion: false,
        isNewIdentifierLocation: false,
        entries: [...entries, ...(prior?.entries ?? [])],
      };
    };

    return proxy;
  }

  return { create };
}

/** An editor plugin never breaks the editor: what it cannot compute, it leaves out. */
function safely<T>(compute: () => T): T | undefined;
function safely<T>(compute: () => T, fallback: T): T;
function safely<T>(compute: () => T, fallback?: T): T | undefined {
  try {
    return compute();
  } catch {
    return fallback;
  }
}

/** The `@redisLock` tag whose JSDoc block holds `position`: from the tag to the block's end. */
function tagAt(text: string, position: number): { start: number; end: number } | undefined {
  for (const at of tagMentions(text)) {
    if (!text.startsWith(TAG, at) || at > position) continue;
    const open = text.lastIndexOf('/**', at);
    const close = text.indexOf('*/', at);
    if (open < 0 || close < 0 || text.lastIndexOf('*/', at) > open) continue;
    if (position <= close + 2) return { start: at, end: close + 2 };
  }
  return undefined;
}

/** The plan of the function the tag ending at `end` stands on: the first one starting after it. */
function planAfter(plans: readonly LockPlan[], sourceFile: ts.SourceFile, end: number): LockPlan | undefined {
  let best: LockPlan | undefined;
  for (const plan of plans) {
    const start = plan.target.node.getStart(sourceFile);
    if (start < end) continue;
    if (!best || start < best.target.node.getStart(sourceFile)) best = plan;
  }
  const between = best && sourceFile.text.slice(end, best.target.node.getStart(sourceFile));
  // Another JSDoc block between them: the tag is not this function's.
  return between !== undefined && !between.includes('/**') ? best : undefined;
}

function describePlan(plan: LockPlan): string {
  const prefix = String(plan.options.prefix ?? DEFAULT_LOCK_OPTIONS.prefix);
  const path = (key: LockPlan['keys'][number]) => [key.parameter, ...key.properties].join('.');
  const key =
    plan.keys.length === 0
      ? `${prefix}${plan.businessFlag} (one lock for the business)`
      : plan.separateKeys
        ? `${plan.keys.map((k) => `${prefix}${plan.businessFlag}_<${path(k)}>`).join(', ')} (each a lock of its own, taken in sorted order)`
        : `${prefix}${plan.businessFlag}_${plan.keys.map((k) => `<${path(k)}>`).join('_')}`;
  const given = Object.entries(plan.options)
    .filter(([name]) => name !== 'prefix')
    .map(([name, value]) => `${name}=${String(value)}`);
  const acquire = plan.keys.length === 0 ? 'acquireKeyless()' : plan.separateKeys ? 'acquireEach([…])' : 'acquire(key)';
  return [
    `Locks ${key} on Redis.`,
    `Options: ${given.length ? given.join(', ') : 'none set'}; the rest from configure({ defaults }) or lockweave's defaults.`,
    `Woven: const lease = await ${plan.target.baseName}_lock.${acquire}; try { …the body… } finally { await lease.release(); }`,
  ].join('\n\n');
}

/** Inside a tag, where an attribute name goes: what is typed of it, and the names used already. */
function attributeBeingTyped(text: string, position: number): { prefix: string; used: Set<string> } | undefined {
  const tag = tagAt(text, position);
  if (!tag) return undefined;
  const typed = text.slice(tag.start + TAG.length, position);
  // After `@redisLock` and a space, in a name (not a value, not past the tag's end).
  if (typed.includes('@') || typed.includes('*/')) return undefined;
  const word = /[\s*]([A-Za-z]*)$/.exec(typed);
  if (!word) return undefined;
  const used = new Set([...typed.matchAll(/([A-Za-z]+)=/g)].map((match) => match[1]));
  return { prefix: word[1], used };
}

export = init;
