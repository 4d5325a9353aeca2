#!/usr/bin/env bash
# Everything a fresh machine needs before the demo, the tests or the benchmarks:
# redis-server (Debian's package), valkey-server (Debian's backports, for the test matrix),
# the npm dependencies, and the compiled package in dist/.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

ensure_redis_server() {
  if command -v redis-server >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing redis-server (Debian package)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
    # Debian's package may start a system service on 6379; we never use it, and leave it alone.
  else
    echo "setup: redis-server is missing. Install it (Debian/Ubuntu: sudo apt-get install redis-server) and run again." >&2
    exit 1
  fi
}

# The tests also run on Valkey (scripts/test-all.sh). Debian 12 ships valkey-server only in
# bookworm-backports (8.0), so that suite is added when missing, from the same Debian mirror the
# machine already uses: its URI (and keyring) are read from the configured apt sources, never
# written here. Skipped when valkey-server is there, or when LOCKWEAVE_TEST_SERVERS leaves Valkey out.
ensure_valkey_server() {
  if command -v valkey-server >/dev/null 2>&1; then return 0; fi
  case " ${LOCKWEAVE_TEST_SERVERS:-redis valkey} " in *" valkey "*) ;; *) return 0 ;; esac
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: valkey-server is missing. Install it (Debian 12: enable bookworm-backports, then" \
      "sudo apt-get install -t bookworm-backports valkey-server), or skip it with LOCKWEAVE_TEST_SERVERS=redis." >&2
    exit 1
  fi
  local codename
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  if [ -z "$codename" ]; then
    echo "setup: cannot tell the Debian release (no VERSION_CODENAME in /etc/os-release) to add its backports" >&2
    exit 1
  fi
  local suite="$codename-backports"
  if ! apt_has_suite "$suite"; then add_backports_source "$codename" "$suite"; fi
  echo "setup: installing valkey-server (Debian $suite)"
  apt-get update -qq
  local candidate
  candidate="$(apt-cache policy valkey-server | awk '$1 == "Candidate:" { print $2 }')"
  if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
    echo "setup: apt has no valkey-server candidate after adding $suite (apt-cache policy valkey-server):" >&2
    apt-cache policy valkey-server >&2 || true
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t "$suite" valkey-server >/dev/null
  # Like redis-server's, the package may start a system service on 6379; the tests never use it.
  echo "setup: $(valkey-server --version)"
}

# The apt source files apt reads (sources.list.d/*.list and *.sources, not *.disabled and the like).
apt_source_files() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && echo "$f"
  done
  return 0
}

# Whether an enabled `deb` source already lists suite $1.
apt_has_suite() {
  local f
  while read -r f; do
    case "$f" in
      *.sources)
        awk -v suite="$1" '
          function flush() { if (deb && enabled && has) found = 1; deb = 0; enabled = 1; has = 0 }
          BEGIN { enabled = 1 }
          /^[ \t]*$/ { flush(); next }
          /^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
          /^Enabled:/ { if ($2 == "no") enabled = 0 }
          /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
          END { flush(); exit !found }' "$f" && return 0 ;;
      *)
        awk -v suite="$1" '
          $1 == "deb" { sub(/\[[^]]*\]/, ""); if ($3 == suite) found = 1 }
          END { exit !found }' "$f" && return 0 ;;
    esac
  done < <(apt_source_files)
  return 1
}

# Writes a source for suite $2 with the URI of the configured Debian source for release $1.
add_backports_source() {
  local codename="$1" suite="$2" f stanza="" line=""
  while read -r f; do
    case "$f" in
      *.sources)
        # The first enabled deb822 stanza of type deb that lists the release itself: its first URI and,
        # when it has one, its Signed-By (a keyring path, or an inline key over several lines).
        stanza="$(awk -v suite="$codename" '
          function flush() {
            if (!done && deb && enabled && has && uri != "") {
              print "URIs: " uri; if (signed != "") printf "%s", signed; done = 1
            }
            deb = 0; enabled = 1; has = 0; uri = ""; signed = ""; insigned = 0
          }
          BEGIN { enabled = 1 }
          /^[ \t]*#/ { next }
          /^[ \t]*$/ { flush(); next }
          /^[ \t]/ { if (insigned) signed = signed $0 "\n"; next }
          { insigned = 0 }
          /^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
          /^Enabled:/ { if ($2 == "no") enabled = 0 }
          /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
          /^URIs:/ { uri = $2 }
          /^Signed-By:/ { signed = $0 "\n"; insigned = 1 }
          END { flush() }' "$f")"
        [ -n "$stanza" ] && break ;;
      *)
        # Classic one-line form: `deb [options] URI suite components`.
        line="$(awk -v suite="$codename" '
          $1 == "deb" {
            opts = match($0, /\[[^]]*\]/) ? substr($0, RSTART, RLENGTH) " " : ""
            sub(/\[[^]]*\]/, "")
            if ($3 == suite) { print "deb " opts $2; exit }
          }' "$f")"
        [ -n "$line" ] && break ;;
    esac
  done < <(apt_source_files)
  if [ -n "$stanza" ]; then
    printf 'Types: deb\n%s\nSuites: %s\nComponents: main\n' "$stanza" "$suite" \
      | sed '/^$/d' > /etc/apt/sources.list.d/lockweave-backports.sources
    echo "setup: added $suite from the configured Debian source ($(echo "$stanza" | sed -n 's/^URIs: //p')) in /etc/apt/sources.list.d/lockweave-backports.sources"
  elif [ -n "$line" ]; then
    echo "$line $suite main" > /etc/apt/sources.list.d/lockweave-backports.list
    echo "setup: added $suite from the configured Debian source in /etc/apt/sources.list.d/lockweave-backports.list"
  else
    echo "setup: found no apt source for Debian $codename to take the $suite URI from; add $suite by hand" \
      "(or skip Valkey with LOCKWEAVE_TEST_SERVERS=redis)" >&2
    exit 1
  fi
}

ensure_node_modules() {
  if [ -d node_modules/ts-patch ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then return 0; fi
  # Not `npm ci`: the lock file lists every platform's optional binaries (rollup's, esbuild's)
  # but can only hold the ones the registry served when it was written, and `npm ci` refuses a
  # lock file missing any of them. `npm install --no-save` installs the locked versions and
  # leaves package.json and the lock file as they are.
  echo "setup: npm install (locked versions)"
  npm install --no-save --no-audit --no-fund --loglevel=error
}

# The Bun route tests run the `bun` devDependency's binary, which comes in its platform package.
# npm's first install of a fresh tree has been seen to leave that package without bin/bun (a second
# install fills it in), so setup checks for it rather than let the Bun tests find it missing.
BUN_BINARY=node_modules/@oven/bun-linux-x64/bin/bun
ensure_bun_binary() {
  if [ -x "$BUN_BINARY" ]; then return 0; fi
  echo "setup: $BUN_BINARY is missing; installing its package again"
  rm -rf node_modules/@oven/bun-linux-x64
  npm install --no-save --no-audit --no-fund --loglevel=error
  if [ ! -x "$BUN_BINARY" ]; then
    echo "setup: still no Bun binary at $BUN_BINARY" >&2
    exit 1
  fi
}

build_package() {
  npm run --silent build
}

# The examples, fixtures and benchmarks name the package as users do (`lockweave/transformer`,
# `lockweave/runtime`). ts-patch resolves plugins from the project's folder, where Node's
# package self-reference does not apply, so the repo links itself into node_modules.
link_self() {
  ln -sfn .. node_modules/lockweave
}

# node22 and node24 (devDependencies) are the real Node binaries the route tests run on. Each
# ships a `node` bin, and npm links one of them as node_modules/.bin/node, which would silently
# put every npm script on that Node; the scripts run on the machine's own node instead.
unlink_node_bins() {
  rm -f node_modules/.bin/node
}

ensure_redis_server
ensure_valkey_server
ensure_node_modules
ensure_bun_binary
unlink_node_bins
link_self
build_package
