#!/usr/bin/env bash
# Add XyClaw to the desktop's application menu for the current user.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
icons="${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor/scalable/apps"
mkdir -p "$apps" "$icons"
install -m 0644 "$here/resources/xyclaw.desktop" "$apps/xyclaw.desktop"
install -m 0644 "$here/resources/icons/xyclaw.svg" "$icons/xyclaw.svg"
command -v update-desktop-database >/dev/null && update-desktop-database "$apps" || true
echo "XyClaw added to the application menu ($apps/xyclaw.desktop)"
