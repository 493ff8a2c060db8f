#!/usr/bin/env bash
# CI's wheel check: build XyClaw's wheel, install it into a fresh virtualenv outside the
# checkout (dependencies from PyPI through pip's cache), and from there run what a new user
# runs first: `xyclaw --version`, `xyclaw doctor --json`, `xyclaw plan`, and `xyclaw demo
# --fast` where that command exists. Checks that every bundled file (agents/, ui/,
# resources/) is in the installed package and is what xyclaw.paths.bundled() finds.
# Usage: scripts/check-wheel.sh            (KEEP=1 keeps the temp folder for a look)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -x "$root/.venv/bin/python" ]; then py="$root/.venv/bin/python"; else py=$(command -v python3); fi

work=$(mktemp -d)
cleanup() {
  # `plan` and `demo` start the simulated cloud in the background: stop it.
  [ -x "$work/venv/bin/xyclaw" ] && XYCLAW_HOME="$work/home" "$work/venv/bin/xyclaw" sim stop >/dev/null 2>&1 || true
  if [ -n "${KEEP:-}" ]; then echo "check-wheel: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
passed=0
fail() { echo "check-wheel: FAIL: $*" >&2; echo "check-wheel: $passed passed, 1 failed"; exit 1; }
ok() { passed=$((passed + 1)); echo "check-wheel: ok   $*"; }
pip_opts=(--disable-pip-version-check --quiet)
start=$SECONDS

# 1. The wheel. Without build isolation when hatchling is already here (no download).
build_opts=()
"$py" -c 'import hatchling' 2>/dev/null && build_opts=(--no-build-isolation)
"$py" -m pip wheel "${pip_opts[@]}" --no-deps "${build_opts[@]}" -w "$work/dist" "$root" \
  >"$work/build.log" 2>&1 || fail "the wheel did not build: $(tail -20 "$work/build.log")"
wheel=$(ls "$work"/dist/xyclaw-*.whl)
ok "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB, $((SECONDS - start)) s)"

# 2. A fresh virtualenv outside the checkout, with the wheel and its dependencies.
"$py" -m venv "$work/venv" || fail "cannot create a virtualenv"
# --no-compile: the byte-code is written on first import instead (saves ~20 s on 2 cores).
"$work/venv/bin/python" -m pip install "${pip_opts[@]}" --no-compile "$wheel" >"$work/install.log" 2>&1 ||
  fail "pip install of the wheel failed: $(tail -20 "$work/install.log")"
ok "installed into a fresh venv ($((SECONDS - start)) s)"

# Everything below runs as a user would: from elsewhere, with the installed command only.
cd "$work"
unset PYTHONPATH VIRTUAL_ENV
export XYCLAW_HOME="$work/home" XYCLAW_SECRETS_BACKEND=file QT_QPA_PLATFORM=offscreen
xyclaw="$work/venv/bin/xyclaw"
[ -x "$xyclaw" ] || fail "the wheel installed no xyclaw command"

version=$("$xyclaw" --version) || fail "xyclaw --version exited $?"
expected=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$root/xyclaw/__init__.py")
[ "$version" = "xyclaw $expected" ] || fail "xyclaw --version said '$version', expected $expected"
ok "$version"

# 3. The installed package, not the checkout, and every bundled file in it.
where=$("$work/venv/bin/python" -c '
import xyclaw, xyclaw.paths as p
print(xyclaw.__file__)
for name in ("agents", "ui", "resources"):
    print(p.bundled(name))') || fail "xyclaw.paths.bundled() failed in the installed package"
site="$work/venv/lib"
while read -r path; do
  [[ $path == "$site"/* ]] || fail "$path is not inside the fresh venv"
done <<<"$where"
bundled_dir=$(dirname "$(sed -n 2p <<<"$where")")
count=0
for name in agents ui resources; do
  while read -r f; do
    [ -f "$bundled_dir/$name/$f" ] || fail "the wheel lacks $name/$f"
    count=$((count + 1))
  done < <(cd "$root/$name" && find . -type f ! -path '*/__pycache__/*' | sed 's|^\./||')
done
ok "all $count bundled files installed and found by bundled()"

"$xyclaw" doctor --json >"$work/doctor.json" || fail "xyclaw doctor --json exited $?"
"$work/venv/bin/python" - "$work/doctor.json" <<'EOF' || fail "doctor's report: $(cat "$work/doctor.json")"
import json, sys
report = json.load(open(sys.argv[1]))
bad = [c["name"] for c in report["checks"] if c["required"] and not c["ok"]]
assert report["ok"] and not bad, f"required checks failed: {bad}"
qt = next(c for c in report["checks"] if c["name"] == "qt")
assert qt["ok"], f"Qt does not start: {qt['detail']}"
EOF
ok "xyclaw doctor --json: every required check passes, Qt starts"

"$xyclaw" plan --task finetune-lora --model-size 13B --gpus 8 --limit 3 >"$work/plan.txt" 2>&1 ||
  fail "xyclaw plan exited $?: $(cat "$work/plan.txt")"
ok "xyclaw plan reads the bundled catalogue"

if "$xyclaw" demo --help >/dev/null 2>&1; then
  timeout 120 "$xyclaw" demo --fast >"$work/demo.txt" 2>&1 ||
    fail "xyclaw demo --fast exited $?: $(tail -30 "$work/demo.txt")"
  ok "xyclaw demo --fast: $(grep -v '^[[:space:]]*$' "$work/demo.txt" | tail -1)"
else
  echo "check-wheel: skip xyclaw demo --fast (no demo command in this version)"
fi

echo "check-wheel: $((SECONDS - start)) s in all"
echo "check-wheel: $passed passed, 0 failed"
