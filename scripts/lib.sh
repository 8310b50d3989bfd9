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

ensure_rust_toolchain() {
  trim_target_dir
  step "Checking the Rust toolchain"
  command -v cargo >/dev/null || { echo "cargo not found: install Rust 1.95 with rustup first." >&2; exit 1; }
  note "$(rustc --version)"
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "Installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

ensure_wasm_bindgen() {
  local want
  want="$(wasm_bindgen_version)"
  if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $want"; then
    step "Installing wasm-bindgen-cli $want from crates.io (about 4 minutes on 2 cores, once)"
    # Not --locked: its lockfile names a webpki-roots release the registry does not serve.
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
  note "$(wasm-bindgen --version)"
}

# Stops the script when one of the loopback ports given is in use. The benchmarks poll readiness
# by port: a process already listening there would be measured instead of their own (a leftover
# console once made a whole table of the replicas run empty). `$1` names the variables that
# choose other ports, for the message.
refuse_taken_ports() {
  local how="$1" port
  shift
  for port in "$@"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "port $port is in use: stop what listens there, or choose others ($how)" >&2
      exit 1
    fi
  done
}

ensure_rust_tools() {
  ensure_rust_toolchain
  ensure_wasm_bindgen
}

# Background jobs (scripts/test): a job's output goes to a file; `join_job` waits for it, prints
# what it printed and stops the script when it failed; `stop_jobs` (on exit) ends what still runs.
JOBS_DIR=""
declare -A JOB_PIDS=()

start_job() {
  local name="$1"
  shift
  [ -n "$JOBS_DIR" ] || JOBS_DIR="$(mktemp -d)"
  ("$@") >"$JOBS_DIR/$name.log" 2>&1 &
  JOB_PIDS[$name]=$!
  note "started in the background: $name (its output follows when it is joined)"
}

join_job() {
  local name="$1" status=0
  wait "${JOB_PIDS[$name]}" || status=$?
  unset "JOB_PIDS[$name]"
  step "Joined the background job: $name"
  cat "$JOBS_DIR/$name.log"
  if [ "$status" -ne 0 ]; then
    echo "The background job '$name' failed (exit $status)." >&2
    exit "$status"
  fi
}

kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill -TERM "$1" 2>/dev/null || true
}

stop_jobs() {
  local pid
  for pid in "${JOB_PIDS[@]}"; do kill_tree "$pid"; done
  [ -z "$JOBS_DIR" ] || rm -rf "$JOBS_DIR"
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

# The sign-in tests' OpenID provider (end2end/oidc/provider.mjs) makes its throwaway CA with
# the openssl command.
ensure_openssl() {
  if ! command -v openssl >/dev/null; then
    step "Installing openssl for the sign-in tests' certificates"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openssl
  fi
  note "$(openssl version)"
}

# build_site: the hydrate wasm (release profile wasm-release), its JS glue, CSS and assets into
# $LEPTOS_SITE_ROOT, the app's files named by their contents (served `immutable`, server/src/http/
# site.rs) and listed in Leptos' hash file. Work is skipped when its input did not change: the
# wasm-bindgen and wasm-opt steps when the linked wasm is the one last built, the compression of a
# file whose copies are newer than it. So a second run with nothing changed takes seconds.
build_site() {
  local pkg="$LEPTOS_SITE_ROOT/pkg"
  local linked="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/frontend.wasm"
  local work="$CARGO_TARGET_DIR/site-work"
  step "Building the browser app (wasm, profile wasm-release)"
  cargo build -p frontend --lib --target wasm32-unknown-unknown --profile wasm-release
  mkdir -p "$pkg" "$work"
  local input
  # WASM_KEEP_NAMES=1 keeps the functions' names (wasm-opt -g), for a profiler: a bigger file.
  local keep_names=()
  [ -z "${WASM_KEEP_NAMES:-}" ] || keep_names=(-g)
  input="$(sha256sum "$linked" | cut -d' ' -f1) $(wasm_bindgen_version) $(wasm-opt --version) ${keep_names[*]:-}"
  if [ "$(cat "$work/input" 2>/dev/null)" != "$input" ] || [ ! -f "$work/$OUTPUT_NAME.js" ]; then
    step "wasm-bindgen and wasm-opt -Oz"
    rm -f "$work/input"
    wasm-bindgen --target web --no-typescript --out-dir "$work" --out-name "$OUTPUT_NAME" "$linked"
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int ${keep_names[@]+"${keep_names[@]}"} \
      "$work/${OUTPUT_NAME}_bg.wasm" -o "$work/$OUTPUT_NAME.wasm"
    rm -f "$work/${OUTPUT_NAME}_bg.wasm"
    echo "$input" >"$work/input"
  else
    note "the wasm is unchanged since the last build: wasm-bindgen and wasm-opt skipped"
  fi
  # main.css first (design tokens), then each screen's sheet in name order, as one file.
  cat "$ROOT/style/main.css" $(ls "$ROOT"/style/*.css | grep -v "/main.css$" | sort) >"$work/$OUTPUT_NAME.css"
  # Each file under its content's name; a name in use is left alone (its compressed copies stay).
  local hashes="" ext hash name
  for ext in js wasm css; do
    hash="$(sha256sum "$work/$OUTPUT_NAME.$ext" | cut -c1-16)"
    name="$OUTPUT_NAME.$hash.$ext"
    [ -f "$pkg/$name" ] || cp "$work/$OUTPUT_NAME.$ext" "$pkg/$name"
    hashes="$hashes$ext: $hash"$'\n'
  done
  # Files of older builds go (their names are not referenced any more).
  find "$pkg" -maxdepth 1 -type f ! -name "$OUTPUT_NAME.$(sed -n 's/^js: //p' <<<"$hashes").js*" \
    ! -name "$OUTPUT_NAME.$(sed -n 's/^wasm: //p' <<<"$hashes").wasm*" \
    ! -name "$OUTPUT_NAME.$(sed -n 's/^css: //p' <<<"$hashes").css*" -delete
  # Written only when it changes: the embedding build watches the site (server/build.rs), and a
  # rewritten file would build the server again for nothing.
  printf '%s' "$hashes" | cmp -s - "$LEPTOS_SITE_ROOT/hash.txt" || printf '%s' "$hashes" >"$LEPTOS_SITE_ROOT/hash.txt"
  cp -Rp "$ROOT/public/." "$LEPTOS_SITE_ROOT/"
  step "Precompressing the site's files (gzip and brotli, for browsers that accept them)"
  node "$ROOT/scripts/precompress.mjs" "$LEPTOS_SITE_ROOT"
  note "wasm $(du -h "$work/$OUTPUT_NAME.wasm" | cut -f1) ($(stat -c %s "$pkg/$OUTPUT_NAME".*.wasm.br) bytes brotli), JS $(du -h "$work/$OUTPUT_NAME.js" | cut -f1), CSS $(du -h "$work/$OUTPUT_NAME.css" | cut -f1)"
}

# Leptos reads the hash file beside the binary that serves the site (`HydrationScripts`).
install_hash_file() {
  cp "$LEPTOS_SITE_ROOT/hash.txt" "$(dirname "$1")/hash.txt"
}

# The release binary with the built site inside it (feature embed-site, ADR 0041): it runs from
# any directory, with no hash file or site directory beside it. Build the site first.
build_server() {
  step "Building the agent-taskbay server (release, the site inside it)"
  cargo build -p server --release --bin agent-taskbay --features embed-site
}

SERVER_BIN() { echo "$CARGO_TARGET_DIR/release/agent-taskbay"; }

# The browser tests run the server binary the Rust tests build (`cargo test` builds it for the
# integration tests, with the same features): after `scripts/test`'s Rust tests this compiles
# nothing, so the test command compiles the server once, not twice. (`cargo build --bin` would
# leave out the dev-dependencies' features and compile part of the dependency tree again.)
build_test_server() {
  step "Building the agent-taskbay server (as the Rust tests build it)"
  cargo test --all-targets --no-run
  install_hash_file "$(TEST_SERVER_BIN)"
}

TEST_SERVER_BIN() { echo "$CARGO_TARGET_DIR/debug/agent-taskbay"; }

# The test build with the site inside it (feature embed-site), copied out of the way: the test
# server is built after it and takes its place in target/debug again (without compiling; cargo
# keeps both). Build the site first.
build_embedded_test_server() {
  step "Building the agent-taskbay server with the site inside it (feature embed-site)"
  cargo build -p server --bin agent-taskbay --features embed-site
  mkdir -p "$CARGO_TARGET_DIR/embedded"
  cp "$CARGO_TARGET_DIR/debug/agent-taskbay" "$(EMBEDDED_TEST_SERVER_BIN)"
}

EMBEDDED_TEST_SERVER_BIN() { echo "$CARGO_TARGET_DIR/embedded/agent-taskbay"; }

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
