#!/usr/bin/env bash
# `npm test`: set up what is missing, type-check the repo, run every test file with ava.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "test: type-checking (tsc --noEmit)"
npx tsc -p tsconfig.json
npx ava "$@"
