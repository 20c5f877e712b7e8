#!/bin/sh
# Builds the libFuzzer target for hkcv_tracker_process with AddressSanitizer
# and UndefinedBehaviorSanitizer, and runs it for SECONDS (default 120).
# Usage: Fuzz/run.sh [SECONDS]
set -eu
SECONDS_TO_RUN=${1:-120}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
OUT=${FUZZ_OUT:-$ROOT/fuzz-out}
CXX=${CXX:-/opt/swift/usr/bin/clang++}
PKG_CONFIG_PATH=$ROOT/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
mkdir -p "$OUT/corpus"
# The shim's one C file (the JPEG encoder) is compiled on its own: -std=c++17 does not apply to C.
"${CC:-/opt/swift/usr/bin/clang}" -O1 -g -fsanitize=address,undefined -c "$ROOT/Sources/CCardVision/src/jpeg_encode.c" \
    -o "$OUT/jpeg_encode.o"
# The shim is instrumented; OpenCV itself is the system library (not instrumented).
$CXX -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I "$ROOT/Sources/CCardVision/include" $(pkg-config --cflags hkid-opencv4) \
    "$HERE/fuzz_frame.cpp" "$ROOT"/Sources/CCardVision/src/*.cpp "$OUT/jpeg_encode.o" \
    $(pkg-config --libs hkid-opencv4) -ljpeg -o "$OUT/fuzz_frame"
cd "$OUT"
exec ./fuzz_frame -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=2048 -timeout=10 corpus
