#!/usr/bin/env bash
# Browser end-to-end tests of the release build. Expects dist/ from `trunk build --release` at the
# repository root; installs playwright-core (npm ci) if missing; never downloads a browser
# (it drives /usr/bin/chromium, or $CHROMIUM). The tests serve the site under /course/reglab/ with
# python3 -m http.server and save a screenshot to target/e2e/reglab.png.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
if [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund
fi
exec node --test --test-concurrency=1
