// A URL's user and password, wherever a URL stands in a text: what the CLI prints of a script or an
// argument and what a build error quotes of the user's settings (a Redis URL put where a prefix or
// a default belongs) show the URL with them hidden.

/**
 * Where a URL's user info may start: after `scheme://`, and after a Redis scheme without the
 * slashes (`redis:bob:pw@host`, which ioredis reads as a URL with a password).
 */
const SCHEME = /[A-Za-z][A-Za-z0-9+.-]*:\/\/|\b(?:rediss?|valkeys?):(?!\/\/)/gi;

/**
 * scheme://user:pass@host → scheme://…@host, the credentials running to the last @ of the URL's
 * word: a password with a raw @, / or # splits no way a parser can guess, and hiding too much is
 * the safe way to be wrong.
 */
export function withoutUrlCredentials(text: string): string {
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
