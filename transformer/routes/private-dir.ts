// Files only this user can have written: the woven-file cache keeps what decides the code a
// process runs, so a directory or file another local user could write (a shared temp folder, a
// shared LOCKWEAVE_CACHE_DIR, a link planted into either) is treated as absent.
//
//   directory   lstat: a directory, not a link, owned by this user, no group or other permission bits
//   file        opened with O_NOFOLLOW, then fstat on what was opened: a regular file, this
//               user's, no group or other bits, one link (a hard link of another file is not ours)
//
// Where the platform has no uids (Windows) only the link checks apply; the cache's HMAC still
// refuses an entry it did not write.
import * as fs from 'node:fs';
import * as path from 'node:path';

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const uid = process.getuid?.();

/** Makes `dir` (mode 0700) if missing; true when it is a directory that only this user can write. */
export function privateDir(dir: string): boolean {
  try {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && !stat.isSymbolicLink() && ownedPrivately(stat);
  } catch {
    return false;
  }
}

/** The file's bytes, or undefined when it is missing or anything but a private file of this user's. */
export function readPrivateFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.nlink !== 1 || !ownedPrivately(stat)) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes the file whole (mode 0600) under a fresh temporary name, then moves it into place, so a
 * reader never sees half of it. `replace: false` leaves a file already there as it is.
 */
export function writePrivateFile(file: string, data: string | Buffer, options: { replace?: boolean } = {}): void {
  // node:crypto on a write only: a start that reads its entries never loads it for this.
  const { randomBytes } = require('node:crypto') as typeof import('node:crypto');
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(
      temporary,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW,
      0o600,
    );
    try {
      fs.writeFileSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    if (options.replace === false) {
      try {
        fs.linkSync(temporary, file);
      } catch {
        // There already: the first writer's file stays.
      }
    } else {
      fs.renameSync(temporary, file);
    }
  } catch {
    // Unwritable: the caller goes on without the file.
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

function ownedPrivately(stat: fs.Stats): boolean {
  return uid === undefined || (stat.uid === uid && (stat.mode & 0o077) === 0);
}
