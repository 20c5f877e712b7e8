#!/usr/bin/env bash
# The scenes battery (`hkid-bench scenes`) over photographs the detector was
# not developed on: scikit-image's other sample photographs, taken from
# Debian's python3-skimage package (downloaded, unpacked in a temporary
# directory, not installed), each standing in for one of samples/photos.
#
#   scripts/unseen-backgrounds.sh a|b [hkid-bench scenes options...]
#
# Set a: a motorcycle in a garage, a printed page, grass, coins on a dark
# cloth, the cameraman in a field, a stained tissue. Set b: colour patches,
# printed text, a cell, the Hubble deep field, the moon, a retina. Grass is
# also in samples/photos since 2026-11-25 (a test scene uses it); set b has
# not been looked at beyond its totals (docs/benchmarks.md, "Backgrounds
# the detector was not developed on").
set -euo pipefail
cd "$(dirname "$0")/.."

set_name=${1:-}
case "$set_name" in
  a) photos=(rocket:motorcycle_left.png coffee:page.png brick:grass.png gravel:coins.png
             chelsea:camera.png astronaut:ihc.png) ;;
  b) photos=(rocket:color.png coffee:text.png brick:cell.png gravel:hubble_deep_field.jpg
             chelsea:moon.png astronaut:retina.jpg) ;;
  *) echo "usage: scripts/unseen-backgrounds.sh a|b [hkid-bench scenes options...]" >&2; exit 2 ;;
esac
shift

scripts/install-deps.sh eval  # python3-opencv converts the PNGs
bench=.build/release/hkid-bench
[ -x "$bench" ] || swift build -c release --product hkid-bench >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download python3-skimage >/dev/null 2>&1); then
  echo "unseen-backgrounds: could not download Debian's python3-skimage (apt-get download)" >&2
  exit 1
fi
dpkg-deb -x "$work"/python3-skimage_*.deb "$work/pkg"
data="$work/pkg/usr/lib/python3/dist-packages/skimage/data"
mkdir "$work/photos"
/usr/bin/python3 - "$data" "$work/photos" "${photos[@]}" <<'PY'
import sys, cv2
data, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
for pair in pairs:
    slot, name = pair.split(":")
    image = cv2.imread(f"{data}/{name}", cv2.IMREAD_COLOR)
    if image is None:
        sys.exit(f"unseen-backgrounds: {data}/{name}: not in the package")
    cv2.imwrite(f"{out}/{slot}.jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
PY
"$bench" scenes --photos "$work/photos" "$@"
