#!/bin/sh
# `make leakcheck`: leaks of one replay, two ways.
#   1. valgrind memcheck: no definitely-lost block (scripts/valgrind.supp holds
#      only GLib/GStreamer/loader one-time allocations, each commented).
#   2. GStreamer's leaks tracer: every GstObject and GstMiniObject (buffers,
#      samples, caps, events) created during a single replay, a batch replay
#      of the library and a live run is released by gst_deinit
#      (HKIDMedia deinitialises at exit when GST_TRACERS contains "leaks").
# Usage: scripts/leakcheck.sh BIN SAMPLE        Exit 0 when both are clean.
set -u
BIN=${1:-.build/release/hkid-liveness}
SAMPLE=${2:-samples/genuine-2018.mp4}
OUT=${LEAKCHECK_OUT:-out/leakcheck}
mkdir -p "$OUT"
status=0

. scripts/valgrind-common.sh
valgrind_copy "$BIN" "$OUT"

echo "leakcheck: valgrind memcheck on $SAMPLE (a few minutes)"
# shellcheck disable=SC2086
valgrind $VALGRIND_OPTIONS --leak-check=full --errors-for-leak-kinds=definite --num-callers=30 \
  --log-file="$OUT/memcheck.log" "$OUT/hkid-liveness" replay "$SAMPLE" --json > "$OUT/memcheck.stdout"
rc=$?
grep -E "definitely lost:|indirectly lost:|possibly lost:|ERROR SUMMARY" "$OUT/memcheck.log" | sed 's/^==[0-9]*== /  /'
if [ $rc -eq 0 ]; then
  echo "leakcheck: valgrind: no definitely-lost blocks (log: $OUT/memcheck.log)"
else
  echo "leakcheck: valgrind FAILED (exit $rc); see $OUT/memcheck.log"; status=1
fi

# The leaks tracer lists alive objects when GStreamer is deinitialised, one
# "object-alive, type-name=(string)GstSample, ..." line each (the record's
# format line, with %s in it, is not one).
ALIVE='object-alive, type-name=\(string\)[^%]'
tracer() {
  name=$1; shift
  GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7,leaks:7 GST_DEBUG_NO_COLOR=1 "$BIN" "$@" \
    > /dev/null 2> "$OUT/tracer-$name.log"
  if ! grep -q "checking for leaks" "$OUT/tracer-$name.log"; then
    echo "leakcheck: GStreamer leaks tracer ($name): the tracer never reported (no gst_deinit?)"; status=1
  elif grep -Eq "$ALIVE" "$OUT/tracer-$name.log" || ! grep -q "listed 0 alive objects" "$OUT/tracer-$name.log"; then
    echo "leakcheck: GStreamer leaks tracer ($name): LEAKED OBJECTS:"
    grep -E "$ALIVE" "$OUT/tracer-$name.log" | sed 's/.*object-alive/  object-alive/' | head -20; status=1
  else
    echo "leakcheck: GStreamer leaks tracer ($name): 0 objects alive at exit"
  fi
}
tracer replay replay "$SAMPLE" --json
tracer batch replay samples/*.mp4 --expect
tracer live run --source videotestsrc --overtime 3 --json
exit $status
