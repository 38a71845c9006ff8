#!/usr/bin/env bash
# Idempotent installers shared by scripts/serve.sh and scripts/test.sh. Each `ensure_*` function
# checks first and installs only what is missing, from the package registries only (crates.io,
# npm, Debian). Source this file; do not run it.

TRUNK_VERSION="0.21.14"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }

# Runs a command as root (directly when we are root, else through sudo).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

ensure_rust_targets() {
  local installed
  installed="$(rustup target list --installed)"
  for t in wasm32-unknown-unknown wasm32v1-none; do
    if ! grep -qx "$t" <<<"$installed"; then
      say "adding Rust target $t"
      rustup target add "$t"
    fi
  done
}

ensure_trunk() {
  if trunk --version 2>/dev/null | grep -q "trunk $TRUNK_VERSION"; then return; fi
  say "installing Trunk $TRUNK_VERSION (about 8 minutes on 2 cores)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
}

# The wasm-bindgen CLI must equal the wasm-bindgen version in Cargo.lock exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$REPO_ROOT/Cargo.lock"
}

ensure_wasm_bindgen() {
  local want
  want="$(wasm_bindgen_version)"
  if [ -z "$want" ]; then
    (cd "$REPO_ROOT" && cargo generate-lockfile)
    want="$(wasm_bindgen_version)"
  fi
  if wasm-bindgen --version 2>/dev/null | grep -q "wasm-bindgen $want"; then return; fi
  say "installing wasm-bindgen-cli $want"
  # Without --locked: the CLI's own lockfile pins a webpki-roots version the registry does not serve.
  cargo install wasm-bindgen-cli --version "$want"
}

ensure_chromium() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then return; fi
  say "installing Debian chromium and chromium-driver"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
}

ensure_e2e_packages() {
  local dir="$REPO_ROOT/tests/e2e"
  [ -f "$dir/package.json" ] || return 0
  if [ -d "$dir/node_modules/playwright-core" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    return
  fi
  say "installing npm packages for the browser tests"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
}

# wasm-opt, which shrinks the page's wasm (static/index.html: data-wasm-opt="z"): npm's binaryen
# (Debian's is too old for current rustc output), in .tools/, put first on PATH for Trunk.
ensure_wasm_opt() {
  local dir="$REPO_ROOT/.tools/binaryen"
  if [ ! -x "$dir/node_modules/.bin/wasm-opt" ]; then
    if ! command -v npm >/dev/null; then
      say "installing Debian nodejs and npm"
      as_root apt-get update -qq
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
    fi
    say "installing wasm-opt (npm binaryen@132)"
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --no-save binaryen@132)
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

# Builds the site into dist/ in release mode and prints the wasm bundle's size.
build_site() {
  ensure_wasm_opt
  say "building the site (trunk build --release)"
  (cd "$REPO_ROOT" && trunk build --release)
  local wasm
  for wasm in "$REPO_ROOT"/dist/*.wasm; do
    [ -f "$wasm" ] || continue
    printf 'wasm bundle %s: %s bytes raw, %s bytes gzip -9\n' "$(basename "$wasm")" \
      "$(wc -c <"$wasm")" "$(gzip -9 -c "$wasm" | wc -c)"
  done
}
