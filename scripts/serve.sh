#!/usr/bin/env bash
# One command for a fresh machine: install what is missing, build the site in release mode and
# serve it on http://127.0.0.1:8080/ (a plain static file server; Ctrl-C stops it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

ensure_rust_targets
ensure_trunk
ensure_wasm_bindgen
build_site

say "serving RegLab on http://127.0.0.1:8080/ (Ctrl-C to stop)"
exec python3 -m http.server 8080 --bind 127.0.0.1 --directory "$REPO_ROOT/dist"
