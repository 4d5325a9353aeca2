// A disk cache of woven files for lockweave/register, so that a start whose tagged files have
// not changed loads no TypeScript at all (loading TypeScript 6's parser alone costs ~300 ms).
//
// An entry is found by a hash of everything the weave reads — lockweave's code (its version and
// its compiled transformer files' sizes and times: a rebuilt lockweave weaves afresh) and
// TypeScript's version, the file's path and text, the module format, which tsconfig.json is nearest — and is
// used only while every config file it was woven with (the tsconfig and its `extends` chain, where
// `prefix` and `defaults` come from) still has the text it had. Only successful weaves are
// stored: a tag error is found again on every start. Any trouble with the cache (unwritable,
// corrupt, not ours) means weaving again, never a different result.
//
// Where: $LOCKWEAVE_CACHE_DIR, else <tmpdir>/lockweave-<uid>. LOCKWEAVE_CACHE=off disables it.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownTypeScriptPackage } from '../typescript';
import type { SourceMapV3 } from '../weave-source';

export interface CachedWeave {
  readonly code: string;
  readonly map: SourceMapV3 | undefined;
  /** On a read: the config files the entry was woven with (a bundler declares them as dependencies). */
  readonly configFiles?: readonly string[];
}

interface Entry extends CachedWeave {
  /** Config file → sha256 of its text when the entry was written. */
  readonly configs: Record<string, string>;
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

export class WovenCache {
  private constructor(private readonly dir: string, private readonly salt: string) {}

  /** undefined when caching is off or the directory cannot be ours. */
  static open(): WovenCache | undefined {
    if (process.env.LOCKWEAVE_CACHE === 'off') return undefined;
    const uid = process.getuid?.() ?? 'user';
    const dir = process.env.LOCKWEAVE_CACHE_DIR || path.join(os.tmpdir(), `lockweave-${uid}`);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      // In a shared tmpdir, a directory someone else made could hold entries of their choosing.
      if (process.getuid && fs.statSync(dir).uid !== process.getuid()) return undefined;
      return new WovenCache(dir, JSON.stringify([lockweaveStamp(), ownTypeScriptPackage().version]));
    } catch {
      return undefined;
    }
  }

  key(file: string, source: string, format: string | undefined, configFile: string | undefined): string {
    return sha256(JSON.stringify([this.salt, file, format ?? null, configFile ?? null, sha256(source)]));
  }

  read(key: string): CachedWeave | undefined {
    try {
      const entry = JSON.parse(fs.readFileSync(this.entryPath(key), 'utf8')) as Entry;
      for (const [config, hash] of Object.entries(entry.configs)) {
        if (sha256(fs.readFileSync(config, 'utf8')) !== hash) return undefined;
      }
      return typeof entry.code === 'string' ? { code: entry.code, map: entry.map, configFiles: Object.keys(entry.configs) } : undefined;
    } catch {
      return undefined;
    }
  }

  write(key: string, woven: CachedWeave, configFiles: readonly string[]): void {
    try {
      const configs = Object.fromEntries(configFiles.map((config) => [config, sha256(fs.readFileSync(config, 'utf8'))]));
      // Written whole under a temporary name, then renamed: a reader never sees half an entry.
      const temporary = `${this.entryPath(key)}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, JSON.stringify({ code: woven.code, map: woven.map, configs } satisfies Entry), { mode: 0o600 });
      fs.renameSync(temporary, this.entryPath(key));
    } catch {
      // A cache that cannot be written only costs the next start a weave.
    }
  }

  private entryPath(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }
}

/** A package's version, read without loading the package. */
function packageVersion(manifest: string): string {
  return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** lockweave's version and the size and time of every compiled file of the transformer. */
function lockweaveStamp(): string {
  const transformerDir = path.join(__dirname, '..');
  const files = (fs.readdirSync(transformerDir, { recursive: true }) as string[]).filter((name) => name.endsWith('.js')).sort();
  const stamps = files.map((name) => {
    const stat = fs.statSync(path.join(transformerDir, name));
    return `${name}:${stat.size}:${stat.mtimeMs}`;
  });
  return `${packageVersion(path.join(transformerDir, '..', '..', 'package.json'))};${stamps.join(';')}`;
}
