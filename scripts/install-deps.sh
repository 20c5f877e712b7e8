#!/usr/bin/env bash
# Installs the Debian 12 packages hkid-liveness needs, and only those missing.
# Safe to run again: with everything present it does nothing and is silent.
set -euo pipefail

packages=(
  pkg-config
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  libopencv-dev opencv-data libjpeg62-turbo-dev
  libsqlite3-dev sqlite3   # sqlite3: the station tests change the index under the daemon
  postgresql-15 postgresql-client-15 curl iproute2   # hkid-hub's tests: a real server, curl, network namespaces
)
# Extra groups, asked for by the make targets that need them.
for group in "$@"; do
  case "$group" in
    browser) packages+=(chromium fonts-noto-cjk) ;;   # operator-page and report screenshots (CJK hints)
    eval) packages+=(python3-numpy python3-opencv python3-matplotlib) ;;  # the development set's scorer (scripts/eval-dev.sh), scripts/liveness-plot.py
    memcheck) packages+=(valgrind binutils) ;;  # scripts/memcheck.sh and leakcheck.sh: valgrind, and strip for its copy
    *) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
