#!/usr/bin/env bash
# Smoke test of the frozen app that `make package` builds (dist/xyclaw/):
#   - `xyclaw --version` and `xyclaw doctor --json` answer from the frozen folder,
#     and the doctor's Qt probe (a child `xyclaw -m xyclaw.gui.probe`) starts Qt;
#   - the bundled agents/, ui/ and resources/ are all there, file for file;
#   - `xyclaw plan` reads the bundled catalogue;
#   - the desktop app opens offscreen and under Xvfb, draws its window, saves a
#     screenshot (XYCLAW_SMOKE_SCREENSHOT) and quits; the screenshots are not blank;
#   - the menu entry installed by the folder's install-desktop-entry.sh starts it.
# Usage: packaging/smoke.sh [APP_DIR] [SHOTS_DIR]   (defaults: dist/xyclaw, a temp folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
app_dir=$(cd "${1:-$root/dist/xyclaw}" 2>/dev/null && pwd) || {
  echo "smoke: ${1:-dist/xyclaw} not found: run \`make package\` first" >&2
  exit 2
}
exe="$app_dir/xyclaw"
[ -x "$exe" ] || { echo "smoke: $exe is not an executable: run \`make package\`" >&2; exit 2; }
py=$(command -v python3 || command -v python) || { echo "smoke: needs python3 to read results" >&2; exit 2; }

work=$(mktemp -d)
# `plan`, `demo` and the app start the simulated cloud in the background: stop it at the end.
trap '"$exe" sim stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
shots=${2:-$work}
mkdir -p "$shots"
export XYCLAW_HOME="$work/home" XYCLAW_SECRETS_BACKEND=file
# The frozen app must not lean on the checkout or its virtualenv.
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV
cd "$work"

fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
step() { echo "smoke: $*"; }

step "version"
version=$("$exe" --version) || fail "--version exited $?"
[[ $version == "xyclaw "* ]] || fail "--version printed '$version'"
echo "  $version"

step "doctor --json (offscreen)"
QT_QPA_PLATFORM=offscreen "$exe" doctor --json >"$work/doctor.json" || fail "doctor exited $?"
"$py" - "$work/doctor.json" <<'EOF' || fail "doctor's report"
import json, sys
report = json.load(open(sys.argv[1]))
checks = {c["name"]: c for c in report["checks"]}
for c in report["checks"]:
    print(f"  {'ok ' if c['ok'] else 'NO '} {c['name']}: {c['detail']}")
assert report["ok"], "a required check failed"
assert checks["qt"]["ok"], "the Qt probe did not start in the frozen app"
EOF

step "bundled files"
internal="$app_dir/_internal/xyclaw/_bundled"
for name in agents ui resources; do
  [ -d "$root/$name" ] || continue
  missing=$(cd "$root/$name" && find . -type f ! -name '*.ts' | while read -r f; do
    [ -f "$internal/$name/$f" ] || echo "$name/${f#./}"
  done)
  [ -z "$missing" ] || fail "not in the frozen app: $missing"
  echo "  $name: $(find "$internal/$name" -type f | wc -l) files"
done
if compgen -G "$root/resources/i18n/*.qm" >/dev/null; then
  ls "$internal/resources/i18n/"*.qm >/dev/null || fail "translations missing"
fi

step "plan (bundled catalogue)"
"$exe" plan --task finetune-lora --model-size 13B --gpus 8 --limit 3 >"$work/plan.txt" ||
  fail "plan exited $?: $(cat "$work/plan.txt")"
head -3 "$work/plan.txt" | sed 's/^/  /'

if "$exe" demo --help >/dev/null 2>&1; then
  step "demo --fast"
  QT_QPA_PLATFORM=offscreen timeout 300 "$exe" demo --fast >"$work/demo.txt" 2>&1 ||
    fail "demo --fast: $(tail -20 "$work/demo.txt")"
  tail -3 "$work/demo.txt" | sed 's/^/  /'
fi

shoot() {  # shoot NAME COMMAND...: open the app, let it save a screenshot, check it
  local name=$1
  shift
  local shot="$shots/$name.png"
  rm -f "$shot"
  XYCLAW_SMOKE_SCREENSHOT="$shot" timeout 90 "$@" "$exe" >"$work/$name.log" 2>&1 ||
    fail "the app exited $? under $name: $(tail -20 "$work/$name.log")"
  [ -s "$shot" ] || fail "no screenshot from $name"
  "$py" "$root/packaging/check_png.py" "$shot" | sed 's/^/  /' || fail "the $name screenshot"
}

step "desktop app, offscreen"
shoot offscreen env QT_QPA_PLATFORM=offscreen

step "desktop app, under Xvfb"
command -v xvfb-run >/dev/null || fail "xvfb-run is missing: run \`make system-deps\`"
platform=$(env -u QT_QPA_PLATFORM xvfb-run -a -s "-screen 0 1400x900x24" \
  "$exe" -m xyclaw.gui.probe) || fail "Qt did not start under Xvfb: $platform"
[[ $platform == *'"platform": "xcb"'* ]] || fail "expected the xcb platform, got $platform"
echo "  $platform"
shoot xvfb env -u QT_QPA_PLATFORM xvfb-run -a -s "-screen 0 1400x900x24"

step "menu entry (install-desktop-entry.sh in the frozen folder)"
export XDG_DATA_HOME="$work/xdg"
"$app_dir/install-desktop-entry.sh" | sed 's/^/  /' || fail "install-desktop-entry.sh exited $?"
entry="$XDG_DATA_HOME/applications/xyclaw.desktop"
[ -f "$XDG_DATA_HOME/icons/hicolor/scalable/apps/xyclaw.svg" ] || fail "no icon installed"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$entry" || fail "$entry is not a valid desktop entry"
fi
exec_path=$(sed -n 's/^Exec=//p' "$entry" | tr -d '"')
[ "$exec_path" = "$exe" ] || fail "the entry starts '$exec_path', not $exe"
exe=$exec_path shoot menu-entry env QT_QPA_PLATFORM=offscreen

step "passed ($app_dir, $(du -sh "$app_dir" | cut -f1))"
