// Text the CLI prints but did not write — an argument it was given, a package.json script it
// audited — with whatever could be a credential hidden. The output goes to terminals shared on a
// screen and to CI logs kept and read more widely than the repository or the shell history.
//
// Hidden: the user and password of a URL with a scheme (scheme://user:pass@host → scheme://…@host),
// the value of every NAME=value word (NAME=…, whatever the name: REDIS_URL holds a URL, DB_PASS a
// password, and no list of names is complete), and the value of an option named like a secret
// (--password x → --password …). Hiding too much is the safe way to be wrong: a URL's credentials
// run to the last @ of its word, since a password with a raw @, / or # splits no way a parser can
// guess (runtime/base/redis-address.ts prints nothing of such a URL for the same reason).
import { printable } from '../runtime/base/printable';
import { parseRedisUrl, printAddress } from '../runtime/base/redis-address';

const SCHEME = /[A-Za-z][A-Za-z0-9+.-]*:\/\//g;

/** A shell word's value: quoted parts (an unclosed quote runs to the end), escapes and plain characters. */
const VALUE = String.raw`(?:'[^']*'?|"(?:[^"\\]|\\.)*"?|\\.|[^\s'"\\])+`;

/** `NAME=value` as a word of its own: `REDIS_URL=… tsx`, `export A=…`, `env A=…`, `cross-env A=…`. */
const ASSIGNMENT = new RegExp(String.raw`(^|\s)([A-Za-z_][A-Za-z0-9_]*)=${VALUE}`, 'g');

/**
 * `--password x`, `--auth-token=x`: an option one of whose dash-separated words says its value is a
 * secret (whole words: `--passWithNoTests` and `--keep` are not).
 */
const SECRET_OPTION = new RegExp(
  String.raw`(^|\s)(--?(?:[A-Za-z0-9]+-)*(?:password|passwd|pass|pwd|secret|token|key|auth|credentials?)(?:-[A-Za-z0-9]+)*)(=|\s+(?!-))${VALUE}`,
  'gi',
);

/** `text` (a script, a command, a word) with URL credentials, assigned values and secret options' values hidden. */
export function withoutCredentials(text: string): string {
  return hideUrlCredentials(text.replace(ASSIGNMENT, '$1$2=…')).replace(SECRET_OPTION, '$1$2$3…');
}

/**
 * One command-line argument as a message may show it: a redis:// URL by its host:port only (as
 * `--redis` is printed), any other URL not at all, other text with `withoutCredentials`.
 */
export function printArgument(arg: string): string {
  if (!arg.includes('://')) return printable(withoutCredentials(arg));
  try {
    const { host, port } = parseRedisUrl(arg, 'an argument');
    return `a Redis URL (${printAddress({ host, port })})`;
  } catch {
    return 'a URL (not shown: it may hold credentials)';
  }
}

/** scheme://user:pass@host → scheme://…@host, the credentials running to the last @ of the URL's word. */
function hideUrlCredentials(text: string): string {
  let shown = '';
  let from = 0;
  for (const match of text.matchAll(SCHEME)) {
    const start = match.index + match[0].length;
    if (match.index < from) continue; // inside credentials already hidden
    // A quoted URL runs to its closing quote (a space may be inside); a bare one to white space.
    const quote = text[match.index - 1];
    const end = quote === '"' || quote === "'" ? text.indexOf(quote, start) : text.slice(start).search(/\s/) + start;
    const word = text.slice(start, end < start ? text.length : end);
    const at = word.lastIndexOf('@');
    if (at < 0) continue;
    shown += `${text.slice(from, start)}…`;
    from = start + at;
  }
  return shown + text.slice(from);
}
