#!/usr/bin/env bash
# Runs the jest suites (all, or those named) while a busy loop holds one of the machine's cores, so a
# test that relies on spare CPU fails here before it fails in CI. The hog is pinned to the first core
# where taskset exists; the suites run as `npm test` runs them, two at a time.
set -euo pipefail
cd "$(dirname "$0")/../.."

if command -v taskset >/dev/null 2>&1; then
  taskset -c 0 node -e 'for (;;) {}' &
else
  node -e 'for (;;) {}' &
fi
hog=$!
trap 'kill "$hog" 2>/dev/null || true' EXIT
echo "stress: a busy loop (pid $hog) holds one core while the suites run"
npm run -s test:jest -- "$@"
