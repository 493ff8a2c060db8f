#!/usr/bin/env bash
# Add XyClaw to the desktop's application menu for the current user: a .desktop file
# under ~/.local/share/applications whose Exec is the absolute path of the xyclaw
# command (a menu does not see a virtualenv's PATH), and the icon under hicolor.
#
# Works for each way XyClaw is installed:
#   - the frozen app:       dist/xyclaw/install-desktop-entry.sh  (it lies beside the program)
#   - pip / a virtualenv:   packaging/linux/install-desktop-entry.sh [PATH/TO/xyclaw]
#                           (default: the xyclaw on PATH, else the checkout's .venv/bin/xyclaw)
# --uninstall removes both files again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data="${XDG_DATA_HOME:-$HOME/.local/share}"
apps="$data/applications"
icons="$data/icons/hicolor/scalable/apps"

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$apps/xyclaw.desktop" "$icons/xyclaw.svg"
  command -v update-desktop-database >/dev/null && update-desktop-database "$apps" || true
  echo "XyClaw removed from the application menu"
  exit 0
fi

# Which program the menu starts, and where its bundled resources (the entry and icon) are.
if [ -n "${1:-}" ]; then
  exe=$1
elif [ -x "$here/xyclaw" ] && [ -d "$here/_internal" ]; then
  exe="$here/xyclaw" # the frozen app's folder
elif command -v xyclaw >/dev/null; then
  exe=$(command -v xyclaw)
elif [ -x "$here/../../.venv/bin/xyclaw" ]; then
  exe="$here/../../.venv/bin/xyclaw"
else
  echo "install-desktop-entry: no xyclaw command found; pass its path:" >&2
  echo "  $0 /path/to/venv/bin/xyclaw" >&2
  exit 2
fi
[ -x "$exe" ] || { echo "install-desktop-entry: $exe is not an executable" >&2; exit 2; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")

frozen_resources="$(dirname "$exe")/_internal/xyclaw/_bundled/resources"
if [ -f "$frozen_resources/xyclaw.desktop" ]; then
  resources=$frozen_resources
else
  # A pip-installed xyclaw: ask its own Python where its bundled resources are.
  python=$(sed -n '1s/^#![[:space:]]*//p' "$exe")
  resources=$("$python" -c 'from xyclaw.paths import bundled; print(bundled("resources"))' \
    2>/dev/null) || {
    echo "install-desktop-entry: $exe is not a XyClaw install I can read (python: $python)" >&2
    exit 2
  }
fi

# Exec needs quotes around a path with spaces (Desktop Entry spec).
case "$exe" in
  *[[:space:]]*) exec_line="Exec=\"$exe\"" ;;
  *) exec_line="Exec=$exe" ;;
esac

escaped=$(printf '%s' "$exec_line" | sed 's/[\\|&]/\\&/g')
mkdir -p "$apps" "$icons"
sed -e "s|^Exec=.*|$escaped|" -e "/^TryExec=/d" "$resources/xyclaw.desktop" \
  >"$apps/xyclaw.desktop.tmp"
chmod 0644 "$apps/xyclaw.desktop.tmp"
mv "$apps/xyclaw.desktop.tmp" "$apps/xyclaw.desktop"
install -m 0644 "$resources/icons/xyclaw.svg" "$icons/xyclaw.svg"
command -v update-desktop-database >/dev/null && update-desktop-database "$apps" || true
echo "XyClaw added to the application menu ($apps/xyclaw.desktop, starts $exe)"
