# Shared by scripts/run and scripts/test: install what is missing, build the site.
# Sourced, not executed. Every step says what it does; nothing is downloaded at run time.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Build outputs live outside the clone so a fresh clone (CI) rebuilds incrementally.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/agent-taskbay/target}"
# The built site (wasm, JS, CSS, public assets) is served from here by the binary.
export LEPTOS_SITE_ROOT="${LEPTOS_SITE_ROOT:-$ROOT/target/site}"
export PATH="$ROOT/end2end/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# Incremental caches are tens of GB and do not help one-shot builds of a fresh clone.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

OUTPUT_NAME="agent-taskbay"

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }

# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate in Cargo.lock.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# A shared target directory only grows (old feature sets, old versions). Past this size it is
# cleared once, so a long-lived machine does not fill its disk.
MAX_TARGET_GB="${MAX_TARGET_GB:-40}"

trim_target_dir() {
  [ -d "$CARGO_TARGET_DIR" ] || return 0
  local gb
  gb="$(du -s --block-size=1G "$CARGO_TARGET_DIR" 2>/dev/null | cut -f1)"
  if [ "${gb:-0}" -gt "$MAX_TARGET_GB" ]; then
    step "Clearing $CARGO_TARGET_DIR (${gb} GB > ${MAX_TARGET_GB} GB); the next build starts cold"
    rm -rf "$CARGO_TARGET_DIR"
  fi
}

ensure_rust_tools() {
  trim_target_dir
  step "Checking the Rust toolchain"
  command -v cargo >/dev/null || { echo "cargo not found: install Rust 1.95 with rustup first." >&2; exit 1; }
  note "$(rustc --version)"
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "Installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  local want
  want="$(wasm_bindgen_version)"
  if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $want"; then
    step "Installing wasm-bindgen-cli $want from crates.io (about 2 minutes, once)"
    # Not --locked: its lockfile names a webpki-roots release the registry does not serve.
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
  note "$(wasm-bindgen --version)"
}

ensure_node_packages() {
  command -v npm >/dev/null || { echo "npm not found: install Node.js 20 first." >&2; exit 1; }
  if [ ! -x "$ROOT/end2end/node_modules/.bin/wasm-opt" ] || [ ! -d "$ROOT/end2end/node_modules/@playwright/test" ] \
    || [ "$ROOT/end2end/package-lock.json" -nt "$ROOT/end2end/node_modules/.package-lock.json" ]; then
    step "Installing npm packages in end2end/ (Playwright, binaryen's wasm-opt; no browser download)"
    npm ci --prefix "$ROOT/end2end" --no-audit --no-fund
  fi
  note "wasm-opt $(wasm-opt --version | awk '{print $3}')"
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    step "Installing Debian's Chromium for the browser tests"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
  fi
  note "$(/usr/bin/chromium --version 2>/dev/null | tail -n1)"
}

# build_site: the hydrate wasm (release profile wasm-release) split at its lazily loaded
# routes (ADR 0010), its JS glue, CSS and assets into $LEPTOS_SITE_ROOT.
build_site() {
  local pkg="$LEPTOS_SITE_ROOT/pkg"
  local linked="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/frontend.wasm"
  local main="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/frontend_split.wasm"
  step "Building the browser app (wasm, profile wasm-release) and its splitter"
  cargo build -p frontend --lib --target wasm32-unknown-unknown --profile wasm-release
  cargo build -p wasm-split --release --quiet
  # Old chunks must not linger: their names are numbered.
  rm -rf "$pkg" && mkdir -p "$pkg"
  step "Splitting the wasm at its lazy routes"
  "$CARGO_TARGET_DIR/release/wasm-split" "$linked" "$pkg" "$main" "/pkg/$OUTPUT_NAME.js"
  # The chunks link against the main module's exports by name: wasm-bindgen keeps them.
  wasm-bindgen --target web --no-typescript --keep-lld-exports --no-demangle \
    --out-dir "$pkg" --out-name "$OUTPUT_NAME" "$main"
  mv -f "$pkg/${OUTPUT_NAME}_bg.wasm" "$pkg/$OUTPUT_NAME.wasm"
  step "Optimising the wasm files with wasm-opt -Oz"
  # The splitter writes a name subsection binaryen does not know; it says so for every file.
  find "$pkg" -name '*.wasm' -print0 \
    | xargs -0 -P "$(nproc)" -I{} wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int {} -o {} \
    2> >(grep -v "unknown name subsection" >&2)
  step "Packing each screen's wasm files into one (ADR 0019)"
  "$CARGO_TARGET_DIR/release/wasm-split" pack "$pkg"
  # main.css first (design tokens), then each screen's sheet in name order, as one file.
  cat "$ROOT/style/main.css" $(ls "$ROOT"/style/*.css | grep -v "/main.css$" | sort) >"$pkg/$OUTPUT_NAME.css"
  cp -R "$ROOT/public/." "$LEPTOS_SITE_ROOT/"
  step "Precompressing the site's files (gzip and brotli, served to browsers that accept them)"
  node "$ROOT/scripts/precompress.mjs" "$LEPTOS_SITE_ROOT"
  local modules
  modules="$(ls "$pkg"/*.wasm | grep -v '/pack_')"
  note "main wasm $(du -h "$pkg/$OUTPUT_NAME.wasm" | cut -f1) ($(gzip -9c "$pkg/$OUTPUT_NAME.wasm" | wc -c) bytes gzip), $(echo "$modules" | wc -l) wasm modules in all ($(cat $modules | wc -c) bytes) and $(ls "$pkg"/pack_*.wasm 2>/dev/null | wc -l) packs, JS $(du -h "$pkg/$OUTPUT_NAME.js" | cut -f1)"
}

build_server() {
  step "Building the agent-taskbay server (release)"
  cargo build -p server --release --bin agent-taskbay
}

SERVER_BIN() { echo "$CARGO_TARGET_DIR/release/agent-taskbay"; }

# The real A2A agents of the SDK compatibility tests (server/tests/sdk_agents, docs/reference/
# compatibility.md): a venv per pinned Python SDK under $A2A_TEST_SDK_AGENTS, re-created when its
# requirements file changes, and the JS agent's pinned npm packages. Quiet when up to date.
export A2A_TEST_SDK_AGENTS="${A2A_TEST_SDK_AGENTS:-$HOME/.cache/agent-taskbay/sdk-agents}"

ensure_sdk_agents() {
  local agents="$ROOT/server/tests/sdk_agents" name venv want
  command -v python3 >/dev/null || { echo "python3 not found: install Python 3.11+ first." >&2; exit 1; }
  for name in python_v1 python_v03; do
    venv="$A2A_TEST_SDK_AGENTS/$name"
    want="$(sha256sum "$agents/$name/requirements.txt" | cut -d' ' -f1)"
    if [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ] || [ ! -x "$venv/bin/python" ]; then
      step "Installing the $name SDK agent's pinned packages into $venv"
      rm -rf "$venv"
      python3 -m venv "$venv"
      "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$agents/$name/requirements.txt"
      echo "$want" >"$venv/.requirements.sha256"
    fi
  done
  if [ ! -f "$agents/js/node_modules/.package-lock.json" ] \
    || [ "$agents/js/package-lock.json" -nt "$agents/js/node_modules/.package-lock.json" ]; then
    step "Installing the JS SDK agent's pinned npm packages (server/tests/sdk_agents/js)"
    npm ci --prefix "$agents/js" --no-audit --no-fund
  fi
}
