#!/usr/bin/env bash
# Everything a fresh machine needs before the demo, the tests or the benchmarks:
# redis-server (Debian's package), the npm dependencies, and the compiled package in dist/.
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

ensure_node_modules() {
  if [ -d node_modules/ts-patch ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then return 0; fi
  # Not `npm ci`: the lock file lists every platform's optional binaries (rollup's, esbuild's)
  # but can only hold the ones the registry served when it was written, and `npm ci` refuses a
  # lock file missing any of them. `npm install --no-save` installs the locked versions and
  # leaves package.json and the lock file as they are.
  echo "setup: npm install (locked versions)"
  npm install --no-save --no-audit --no-fund --loglevel=error
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
ensure_node_modules
unlink_node_bins
link_self
build_package
