// A lock token proves ownership: only its holder can renew or release the key. It must be
// unguessable, so it comes from a cryptographic source (uuid v4 uses crypto.randomUUID).
import { v4 as uuidv4 } from 'uuid';

export function newToken(): string {
  return uuidv4();
}
