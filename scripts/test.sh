#!/usr/bin/env bash
# One command for a fresh machine: install what is missing, then run every test — formatting,
# clippy (warnings are errors), native tests, the no_std check of sim-core, wasm tests in headless
# Chromium, and browser end-to-end tests of the release build served under a sub-path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$REPO_ROOT"

ensure_rust_targets
ensure_trunk
ensure_wasm_bindgen
ensure_chromium
ensure_e2e_packages

say "1/7 formatting"
cargo fmt --all -- --check

say "2/7 clippy, warnings as errors"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The page's build (feature `page`: kernel views from the job worker) in both of its forms.
cargo clippy -p web-app --features page --all-targets --locked -- -D warnings
cargo clippy -p web-app --features page --target wasm32-unknown-unknown --locked -- -D warnings

say "3/7 native tests"
cargo test --workspace --locked
# The page's build's reducer: kernel views asked of the job worker and answered.
cargo test -p web-app --features page --test kernel_jobs --locked

say "4/7 no_std check of sim-core"
cargo check -p sim-core --no-default-features --target wasm32v1-none --locked

say "5/7 wasm tests in headless Chromium"
CHROMEDRIVER=/usr/bin/chromedriver CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  WASM_BINDGEN_TEST_TIMEOUT=600 \
  cargo test -p sim-core -p web-app --target wasm32-unknown-unknown --profile wasm-test --locked

say "6/7 release build of the site"
build_site

# bench.test.mjs also builds the release CLI (cargo build --release -p reglab-cli) for the native counts.
say "7/7 browser end-to-end tests (site served under /course/reglab/)"
if [ -f tests/e2e/package.json ]; then
  (cd tests/e2e && npm test)
else
  echo "no end-to-end tests found in tests/e2e" >&2
  exit 1
fi

say "figures measured by the tests (reported, never asserted)"
for f in target/tmp/figures/*.txt target/e2e/bench-*.json target/e2e/editor-latency.json; do
  if [ -f "$f" ]; then echo "$f:"; cat "$f"; echo; fi
done

say "all tests passed"
