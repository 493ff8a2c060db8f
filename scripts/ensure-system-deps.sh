#!/usr/bin/env bash
# What the tests need from Debian: an OpenSSH server to test the SSH layer against,
# Xvfb and the X11 libraries for `xvfb-run xyclaw`, the libraries Qt loads offscreen, and a
# CJK font so the 简体中文 interface and its screenshots show glyphs, not boxes.
# Installs what is missing when run as root; otherwise says exactly what to install.
set -euo pipefail

packages=(
  openssh-server openssh-client
  xvfb xauth
  libgl1 libegl1 libfontconfig1 libxkbcommon0 libxkbcommon-x11-0 libdbus-1-3
  libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-xinerama0
  libxcb-xkb1 libxcb-randr0 libxcb-shape0 libxcb-cursor0
  fonts-wqy-microhei
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "ensure-system-deps: not a Debian-like system; install the equivalents of: ${packages[*]}" >&2
  exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need these Debian packages, which are missing:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  echo "(without them the SSH and display tests are skipped)" >&2
  exit 0
fi

echo "ensure-system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
