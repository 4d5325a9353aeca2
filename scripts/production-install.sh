#!/usr/bin/env bash
# What a service's production install of lockweave holds: packs this repo, installs the tarball
# and ioredis with --omit=dev into a fresh directory (from the npm registry), prints its size and
# packages, fails if a build tool is among them, and takes one real lock from that install
# against a redis-server it starts on a free loopback port.
#
#   bash scripts/production-install.sh            (needs the registry; not part of `npm test`,
#                                                   whose test/install checks the same offline)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/lockweave-production-install-XXXXXX")
redis_pid=
cleanup() {
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

npm run --silent build
tarball=$(npm pack --silent --pack-destination "$work" | tail -1)
mkdir "$work/service"
cd "$work/service"
npm init -y >/dev/null
npm install "$work/$tarball" ioredis --omit=dev --no-audit --no-fund --loglevel=error

packages=$(npm ls --omit=dev --all --parseable 2>/dev/null | tail -n +2 | sed 's|.*/node_modules/||' | sort -u)
echo "production install: $(du -sh node_modules | cut -f1) in node_modules, $(echo "$packages" | wc -l) packages:"
echo "$packages" | sed 's/^/  /'
build_tools=$(echo "$packages" | grep -E '^(typescript[0-9]*|magic-string|unplugin|ts-patch)$' || true)
if [ -n "$build_tools" ]; then
  echo "production-install: build tools in a production install: $build_tools" >&2
  exit 1
fi

# One lock, as a woven method takes it, from the installed package alone.
port=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null &
redis_pid=$!
for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
REDIS_URL="redis://127.0.0.1:$port" node -e "
  const lockweave = require('lockweave');
  const { Redis } = require('ioredis');
  (async () => {
    lockweave.configure({ redis: process.env.REDIS_URL });
    const probe = new Redis(process.env.REDIS_URL);
    const held = await lockweave.defineLock({ businessFlag: 'payOrder' }).run('A1', () => probe.get('LOCK_payOrder_A1'));
    probe.disconnect();
    await lockweave.close();
    if (!/^[0-9a-f-]{36}$/.test(held ?? '')) throw new Error('the body did not find its key in Redis');
    console.log('production install: a locked call took LOCK_payOrder_A1 and released it');
  })().catch((error) => { console.error(error); process.exitCode = 1; });
"
