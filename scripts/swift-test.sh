#!/usr/bin/env bash
# Runs `swift test` with the given arguments and, when it fails, repeats every
# failed test's issues at the end: CI keeps only the tail of a long log, and
# Swift Testing prints an issue where it happened, a thousand lines earlier.
# The whole log stays in .build/test.log.
set -uo pipefail
cd "$(dirname "$0")/.."
log=.build/test.log
mkdir -p .build
"${SWIFT:-swift}" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "== swift test failed (exit $status); the issues it recorded (whole log: $log) =="
  # An issue line starts with ✘ and may be followed by a comment (↳, then
  # indented lines; the first 20 of each are enough to name the cause); a
  # crash shows as swift test's own "error:" line.
  awk '/^✘/ { print; more = 20; next }
       more > 0 && /^(↳|  )/ { print; more--; next }
       { more = 0 }
       /^error: / { print }' "$log"
fi
exit "$status"
