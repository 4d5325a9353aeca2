// The `nest build` / `nest start` rule of the audit: which of the builds a Nest CLI config gives
// (nest-config.ts) run tagged methods unlocked, each its own hole naming its project and the fix.
// Its tsc builder weaves with the compiler plugin lockweave/nest (or a TypeScript that `ts-patch
// install` patched, with the tsconfig's plugin entry); its rspack builder with lockweave/rspack in the
// rspack config, which Nest merges over its own; swc and webpack cannot.
import { RSPACK_CONFIGS } from './config-files';
import { nestBuilds, type NestBuild, type Origin } from './nest-config';
import type { PartHole, Use } from './toolchain-rules';
import { printableWithoutCredentials } from './without-credentials';

const PLUGIN = 'lockweave/nest';

export const NEST_UNLOCKED =
  "the Nest CLI compiles with plain TypeScript (or swc, webpack, rspack) and runs lockweave only as nest-cli.json's compiler plugin with its tsc builder, or as the rspack builder's plugin: every tagged method is emitted unlocked";
export const NEST_FIX =
  'nest-cli.json: "compilerOptions": { "builder": "tsc", "plugins": ["lockweave/nest"] }  (the rspack builder: plugins: [require(\'lockweave/rspack\')()] in rspack.config.js)';

/**
 * The builds of this use that run unlocked: for a config file, its root and each of its projects;
 * for a command, what it builds. A config Nest cannot parse builds nothing, so holds none.
 */
export function nestHoles(use: Use): PartHole[] {
  // The rule asks twice of one use (is it safe, then which parts): parsed once.
  let holes = byUse.get(use);
  if (holes) return holes;
  const builds = nestBuilds(use.config, use.text === use.config ? undefined : use.text) ?? [];
  holes = builds.filter((build) => !weaves(build, use)).map((build) => hole(shown(build)));
  byUse.set(use, holes);
  return holes;
}

const byUse = new WeakMap<Use, PartHole[]>();

/**
 * A build's names as its hole prints them: a project's, a builder's, a plugin's, an rspack config's
 * are the user's text (a plugin may be named by a URL with a token in it, a project's name may hold
 * a new line), shown as a script is.
 */
function shown(build: NestBuild): NestBuild {
  return {
    ...build,
    project: build.project === undefined ? undefined : printableWithoutCredentials(build.project),
    builder: printableWithoutCredentials(build.builder),
    plugins: build.plugins.map(printableWithoutCredentials),
    rspackConfig: build.rspackConfig === undefined ? undefined : printableWithoutCredentials(build.rspackConfig),
  };
}

function weaves(build: NestBuild, use: Use): boolean {
  switch (build.builder) {
    case 'tsc':
      return (
        build.plugins.includes(PLUGIN) ||
        (use.project.typescriptPatched && use.project.hasPluginEntry(tsconfigFlag(build, use)))
      );
    case 'rspack':
      return use.project
        .readConfig(build.rspackConfig ? [build.rspackConfig] : RSPACK_CONFIGS)
        .includes('lockweave/rspack');
    default:
      return false;
  }
}

/** The tsconfig the tsc builder compiles, as a `-p` for ProjectFacts: the named one, else tsconfig.build.json when there is one. */
function tsconfigFlag(build: NestBuild, use: Use): string {
  const named = build.tsconfig ?? (use.project.readConfig(['tsconfig.build.json']) ? 'tsconfig.build.json' : undefined);
  return named ? `-p ${named}` : '';
}

/** The root's hole keeps the general words; a project's says which setting, its own or the root's, leaves it unlocked. */
function hole(build: NestBuild): PartHole {
  const { project } = build;
  if (project === undefined) return { part: '', runsUnlocked: NEST_UNLOCKED, fix: NEST_FIX };
  const part = `project ${project}`;
  const built = `\`nest build ${project}\``;
  const plugins = pluginsWith(build);
  if (build.builder === 'rspack')
    return {
      part,
      runsUnlocked: `project ${project} builds with rspack (set by ${origin(build.builderFrom, 'builder')}) and its rspack config has no lockweave/rspack: ${built} bundles every tagged method unlocked`,
      fix: `plugins: [require('lockweave/rspack')()] in ${build.rspackConfig ?? 'rspack.config.js'}`,
    };
  if (build.builder !== 'tsc')
    return {
      part,
      runsUnlocked: `project ${project} builds with ${build.builder} (set by ${origin(build.builderFrom, 'builder')}), which runs no lockweave plugin: ${built} emits every tagged method unlocked`,
      fix:
        build.builderFrom === 'command'
          ? `build project ${project} with Nest's tsc builder (no -b/--builder, no --webpack) and "lockweave/nest" among its plugins`
          : `${where(build.builderFrom, project)}"compilerOptions": { "builder": "tsc", "plugins": ${plugins} }${closing(build.builderFrom)}`,
    };
  const own = build.pluginsFrom === 'project';
  return {
    part,
    runsUnlocked: own
      ? `project ${project} has its own compilerOptions.plugins (${JSON.stringify(build.plugins)}), which Nest takes instead of the root's, not with them: ${built} runs no lockweave/nest and emits every tagged method unlocked`
      : `project ${project} takes the root's compilerOptions.plugins (${JSON.stringify(build.plugins)}), which have no lockweave/nest: ${built} compiles with plain TypeScript and emits every tagged method unlocked`,
    fix: `${where(build.pluginsFrom, project)}"compilerOptions": { "plugins": ${plugins} }${closing(build.pluginsFrom)}${own ? "  (a project's list replaces the root's: name lockweave/nest in each)" : ''}`,
  };
}

function origin(from: Origin, key: string): string {
  return from === 'project'
    ? `its own compilerOptions.${key}`
    : from === 'command'
      ? 'the command'
      : `the root's compilerOptions.${key}`;
}

/** Where a fix goes: the project's entry for what the project sets itself, else the root. */
function where(from: Origin, project: string): string {
  return from === 'project' ? `nest-cli.json: "projects": { ${JSON.stringify(project)}: { ` : 'nest-cli.json: ';
}

function closing(from: Origin): string {
  return from === 'project' ? ' } }' : '';
}

/** The build's plugin list with lockweave/nest added, as JSON. */
function pluginsWith(build: NestBuild): string {
  return JSON.stringify([...build.plugins.filter((name) => name !== PLUGIN), PLUGIN]).replace(/","/g, '", "');
}
