#!/bin/sh
# `make memcheck` (and `make test`): the tracker reads and writes only memory
# it owns. valgrind memcheck replays each video and fails on any invalid
# read or write, or use of freed memory. Leaks are `make leakcheck`'s.
#   Tests/Fixtures/person-side-at-border.mp4: a person scene on which the
#   search once read a side's gradients beyond the searched image (it
#   crashed a batch replay); samples/genuine-2018.mp4: the ordinary flow.
# Usage: scripts/memcheck.sh BIN [VIDEO CARD]...   Exit 0 when every run is clean.
set -u
BIN=${1:?usage: scripts/memcheck.sh BIN [VIDEO CARD]...}
shift
[ $# -eq 0 ] && set -- Tests/Fixtures/person-side-at-border.mp4 2018 samples/genuine-2018.mp4 2018
OUT=${MEMCHECK_OUT:-out/memcheck}
mkdir -p "$OUT"

. scripts/valgrind-common.sh
valgrind_copy "$BIN" "$OUT" || exit 1

# One replay under valgrind: valgrind's status (3 on an invalid access),
# else the replay's own.
run() {
  # shellcheck disable=SC2086
  valgrind $VALGRIND_OPTIONS --leak-check=no --num-callers=20 --log-file="$3" \
    "$OUT/hkid-liveness" replay "$1" --card "$2" > /dev/null 2> "$3.stderr"
}

status=0
while [ $# -ge 2 ]; do
  video=$1 card=$2
  shift 2
  log="$OUT/$(basename "$video" .mp4).log"
  run "$video" "$card" "$log"
  rc=$?
  # Under valgrind a frame can take longer than the replay's 10 s stall
  # watchdog on a loaded host: once more before calling it a failure.
  if [ $rc -eq 2 ] && grep -q "stalled" "$log.stderr"; then
    run "$video" "$card" "$log"
    rc=$?
  fi
  if [ $rc -eq 3 ]; then
    echo "memcheck: $video: $(grep -o 'ERROR SUMMARY: [0-9]* errors' "$log" | tail -n 1) (valgrind log: $log)" >&2
    status=1
  elif [ $rc -ne 0 ]; then
    echo "memcheck: $video: the replay ended with status $rc under valgrind: $(head -n 1 "$log.stderr")" >&2
    status=1
  else
    echo "memcheck: $video: no invalid access"
  fi
done
exit $status
