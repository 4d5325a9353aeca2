#!/usr/bin/env bash
# `npm run demo`: compile examples/ with tspc, show one woven method beside its source, run
# the four cases of the original Java article. Redis: REDIS_URL if set, else a throwaway redis-server, else the
# in-process store (said so on screen).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo
echo "== Compiling examples/ with tspc (ts-patch) and the lockweave transformer"
rm -rf examples/dist
npx tspc -p examples/tsconfig.json
echo "   ok: examples/dist/"

echo
echo "== Source: examples/src/order-service.ts, payByBean"
node scripts/print-method.js examples/src/order-service.ts payByBean
echo
echo "== Woven JavaScript: examples/dist/order-service.js (module-level spec, then the method)"
node scripts/print-method.js examples/dist/order-service.js payByBean --with-specs

echo
echo "== Running the four cases, and a fifth on fencing tokens"
node -r ts-node/register/transpile-only scripts/run-demo.ts
