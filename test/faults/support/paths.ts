// Where the fault suite lives and where it may write. Everything it writes goes under
// test/.tmp/ (gitignored), so a run leaves the repository as it found it.
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const TMP_DIR = join(REPO_ROOT, 'test', '.tmp');
export const WORKERS_DIR = resolve(__dirname, '..', 'workers');
export const SUMMARY_FILE = join(TMP_DIR, 'faults-summary.jsonl');
