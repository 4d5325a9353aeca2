// A disk cache of woven files for lockweave/register and the bundler plugins, so that a start
// whose tagged files have not changed loads no TypeScript at all (loading TypeScript 6's parser
// alone costs ~300 ms).
//
// An entry is found by a hash of everything the weave reads — lockweave's code (below: the
// weaver's compiled files, the transformer's and the runtime base it imports) and TypeScript's version, the file's path and text, the module format, which tsconfig.json is nearest — and is
// used only while every config file it was woven with (the tsconfig and its `extends` chain, where
// `prefix` and `defaults` come from) still has the text it had, and no package an `extends` names
// has appeared nearer than where it was found (it would be read instead). Only successful weaves are
// stored: a tag error is found again on every start.
//
// A cache must never change what runs: a poisoned entry would run someone else's code, or a
// tagged method unlocked. So (private-dir.ts) the directory must be this user's own, mode 0700,
// not a link; every file is opened without following links and must be this user's, 0600, with
// one link; and every entry carries an HMAC-SHA256 of its key and content under a secret only
// this user can read. An entry that fails any of these is not read: the file is woven again.
//
// Where: $LOCKWEAVE_CACHE_DIR; else node_modules/.cache/lockweave of the package the process
// runs in (where babel, eslint and vite keep theirs), else <tmpdir>/lockweave-<uid>.
// LOCKWEAVE_CACHE=off disables it.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownTypeScriptPackage } from '../typescript';
import type { SourceMapV3 } from '../weave-source';
import { privateDir, readPrivateFile, writePrivateFile } from './private-dir';
import { LOCKWEAVE_VERSION } from '../version';

export interface CachedWeave {
  readonly code: string;
  readonly map: SourceMapV3 | undefined;
  /** The site of every tagged method the code locks. */
  readonly locked: readonly string[];
  /** The config files the entry was woven with (a bundler declares them as dependencies). */
  readonly configFiles?: readonly string[];
  /** The paths that did not exist then, and would be read instead if they did (ProjectConfig's shadowedBy). */
  readonly absent?: readonly string[];
  /** The paths that existed then, and whose removal would change the settings (ProjectConfig's present). */
  readonly present?: readonly string[];
}

interface Entry {
  readonly code: string;
  readonly map: SourceMapV3 | null;
  readonly locked: readonly string[];
  /** Config file → sha256 of its text when the entry was written. */
  readonly configs: Record<string, string>;
  /** Paths that did not exist, and would be read instead if they did (a package an `extends` names, nearer). */
  readonly absent?: readonly string[];
  /** Paths that existed, and whose removal would change what the entry was woven with (a project root's marker). */
  readonly present?: readonly string[];
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const SECRET_FILE = 'secret';
const SECRET_BYTES = 32;

export class WovenCache {
  private constructor(
    private readonly dir: string,
    private readonly secret: Buffer,
    private readonly salt: string,
  ) {}

  /** undefined when caching is off or no directory can be ours alone. */
  static open(): WovenCache | undefined {
    if (process.env.LOCKWEAVE_CACHE === 'off') return undefined;
    const named = process.env.LOCKWEAVE_CACHE_DIR;
    const candidates = named
      ? [path.resolve(named)]
      : [projectCacheDir(), path.join(os.tmpdir(), `lockweave-${process.getuid?.() ?? 'user'}`)];
    for (const dir of candidates) {
      if (!dir || !privateDir(dir)) continue;
      const secret = cacheSecret(dir);
      if (!secret) continue;
      try {
        return new WovenCache(dir, secret, JSON.stringify([lockweaveStamp(), ownTypeScriptPackage().version]));
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  key(file: string, source: string, format: string | undefined, configFile: string | undefined): string {
    return sha256(JSON.stringify([this.salt, file, format ?? null, configFile ?? null, sha256(source)]));
  }

  read(key: string): CachedWeave | undefined {
    const stored = readPrivateFile(this.entryPath(key));
    if (!stored) return undefined;
    const text = stored.toString('utf8');
    const newline = text.indexOf('\n');
    const mac = Buffer.from(text.slice(0, newline), 'hex');
    const body = text.slice(newline + 1);
    const expected = this.mac(key, body);
    // Bound to its key: an entry of ours renamed to another key does not verify either.
    if (newline < 0 || mac.length !== expected.length || !crypto.timingSafeEqual(mac, expected)) return undefined;
    try {
      const entry = JSON.parse(body) as Entry;
      if (
        typeof entry.code !== 'string' ||
        !Array.isArray(entry.locked) ||
        typeof entry.configs !== 'object' ||
        entry.configs === null
      )
        return undefined;
      for (const [config, hash] of Object.entries(entry.configs)) {
        if (sha256(fs.readFileSync(config, 'utf8')) !== hash) return undefined;
      }
      if (entry.absent?.some((shadow) => fs.existsSync(shadow))) return undefined;
      if (entry.present?.some((marker) => !fs.existsSync(marker))) return undefined;
      return {
        code: entry.code,
        map: entry.map ?? undefined,
        locked: entry.locked,
        configFiles: Object.keys(entry.configs),
        absent: entry.absent ?? [],
        present: entry.present ?? [],
      };
    } catch {
      return undefined;
    }
  }

  write(key: string, woven: CachedWeave): void {
    const { configFiles = [], absent = [], present = [] } = woven;
    try {
      const configs = Object.fromEntries(
        configFiles.map((config) => [config, sha256(fs.readFileSync(config, 'utf8'))]),
      );
      const body = JSON.stringify({
        code: woven.code,
        map: woven.map ?? null,
        locked: woven.locked,
        configs,
        absent,
        present,
      } satisfies Entry);
      writePrivateFile(this.entryPath(key), `${this.mac(key, body).toString('hex')}\n${body}`);
    } catch {
      // A cache that cannot be written only costs the next start a weave.
    }
  }

  private mac(key: string, body: string): Buffer {
    return crypto.createHmac('sha256', this.secret).update(key).update('\n').update(body).digest();
  }

  private entryPath(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }
}

/** The secret entries are signed with: made once per directory, readable by this user alone. */
function cacheSecret(dir: string): Buffer | undefined {
  const file = path.join(dir, SECRET_FILE);
  const read = () => {
    const secret = readPrivateFile(file);
    return secret?.length === SECRET_BYTES ? secret : undefined;
  };
  const existing = read();
  if (existing) return existing;
  // Another process may be making it at this moment: writePrivateFile never replaces one.
  writePrivateFile(file, crypto.randomBytes(SECRET_BYTES), { replace: false });
  return read();
}

/** node_modules/.cache/lockweave of the package the working directory is in, when it has node_modules. */
function projectCacheDir(): string | undefined {
  for (let dir = process.cwd(), depth = 0; depth < 100; dir = path.dirname(dir), depth++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) {
      const modules = path.join(dir, 'node_modules');
      return fs.existsSync(modules) ? path.join(modules, '.cache', 'lockweave') : undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
  return undefined;
}

/**
 * What identifies the weaver that runs: lockweave's version, the hash of its files' text that its
 * build wrote, and the size and time of each file now. The version alone is not enough (a build from
 * git, a `file:` dependency, a patched copy keep it), nor are sizes and times: npm gives every file
 * it installs one fixed time, so two builds whose files have the same sizes would look alike. The
 * hash tells builds apart; the sizes and times tell a file edited after the install (patch-package)
 * from the one the build hashed. Reading every file's text instead would cost each start that opens
 * the cache a few milliseconds; this costs one small read and a stat of each file.
 */
export function lockweaveStamp(): string {
  stamp ??= stampNow();
  return stamp;
}

/** Taken once a process: the package does not change under a running build or test run. */
let stamp: string | undefined;

function stampNow(): string {
  const stamps = weaverFiles().map((name) => {
    const stat = fs.statSync(`${PACKAGE_DIR}/${name}`);
    return `${name}:${stat.size}:${stat.mtimeMs}`;
  });
  return `${LOCKWEAVE_VERSION};${builtHash() ?? weaverHash()};${stamps.join(';')}`;
}

/** The package's root: two up from routes/ (dist/ when installed, the repository when the tests run the source). */
const PACKAGE_DIR = path.join(__dirname, '..', '..');
/** The hash of the weaver's files, written by the build beside the transformer's files. */
const WEAVER_HASH_FILE = path.join(PACKAGE_DIR, 'transformer', 'weaver-hash.txt');

/** The hash the build wrote, or undefined when it wrote none (a build without lockweave's build script). */
function builtHash(): string | undefined {
  try {
    return fs.readFileSync(WEAVER_HASH_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A sha256 over the name and text of every file the weaver loads. */
function weaverHash(): string {
  const hash = crypto.createHash('sha256');
  for (const name of weaverFiles()) {
    hash
      .update(`${name}\0`)
      .update(fs.readFileSync(`${PACKAGE_DIR}/${name}`))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Called by the build (scripts/write-weaver-hash.js) once dist is complete: the hash lockweaveStamp reads. */
export function writeWeaverHash(): void {
  fs.writeFileSync(WEAVER_HASH_FILE, `${weaverHash()}\n`);
}

/**
 * The files the weaver loads, by their path from the package's root, in one order: the
 * transformer's and those of the runtime's base (the tag's text, the options and their table, key
 * names), compiled (.js) — or the sources when the tests run them. Paths joined by hand: path.join
 * and path.relative for each of 70 files cost a start a few milliseconds.
 */
function weaverFiles(): string[] {
  const extension = path.extname(__filename);
  return ['transformer', 'runtime/base']
    .flatMap((dir) => filesUnder(`${PACKAGE_DIR}/${dir}`, extension).map((name) => `${dir}/${name}`))
    .sort();
}

/**
 * The files under `dir` whose name ends with `extension`, by their path from it. Walked by hand:
 * readdirSync's `recursive` took 4-9 ms for dist's 200 files where this walk takes 0.5 ms for the
 * same names, and every start and build that opens the cache pays it.
 */
function filesUnder(dir: string, extension: string, under = ''): string[] {
  return fs.readdirSync(under ? `${dir}/${under}` : dir, { withFileTypes: true }).flatMap((entry) => {
    const name = under ? `${under}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return filesUnder(dir, extension, name);
    return entry.name.endsWith(extension) && !entry.name.endsWith(`.d${extension}`) ? [name] : [];
  });
}
