// A lock token proves ownership: only its holder can renew or release the key. It must be
// unguessable, so it comes from a cryptographic source (uuid v4 uses crypto.randomUUID), and it
// names its process, whose subscriber alone hears the key passed to it (store/process-tag.ts).
//
// uuid is loaded at the first token, not with the runtime: it and node:crypto behind it cost an
// app's start about 10 ms (a third of the runtime's load), and a process pays them only once it
// locks — beside the Redis client it loads then.
import type * as Uuid from 'uuid';
import { taggedToken } from '../store/process-tag';

let v4: typeof Uuid.v4 | undefined;

export function newToken(): string {
  return taggedToken((v4 ??= (require('uuid') as typeof Uuid).v4)());
}
