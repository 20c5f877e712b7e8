#!/usr/bin/env bash
# Scores the CLI on the real phone photographs of ID-1 cards
# (../shared/eval-real, 50 clips from DLC-2021) with the
# development set's scorer, prints its summary, and fails when the mean IoU
# or the recall falls below the floors here (a floor just under what the
# detector reaches, so that a change that loses real cards fails), or when
# more than max_low clips score under IoU 0.9 (issue 39's bar).
#
#   scripts/eval-real.sh BIN            score, gate, exit 1 below a floor
#   EVAL_REAL=DIR scripts/eval-real.sh  another copy of the set
#
# Without the set (a clone with no shared/ beside it) this says so and exits
# 0: the set is not ours to ship. Every clip is a paper copy, so the flow's
# outcome is not judged here (the scorer's outcome is always a pass).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/hkid-liveness}
set_dir=${EVAL_REAL:-../shared/eval-real}
scorer=${EVAL_DEV:-../shared/eval-dev}/score.py
# Reached on 2026-11-29: mean IoU 0.977, recall 0.979, one clip under 0.9.
min_iou=0.972
min_recall=0.97
max_low=1
if [ ! -f "$set_dir/scenarios.json" ] || [ ! -f "$scorer" ]; then
  echo "eval-real: no real clips at $set_dir (or no scorer at $scorer); not scored"
  exit 0
fi
[ -x "$bin" ] || { echo "eval-real: $bin is not built (make build)" >&2; exit 2; }
python=/usr/bin/python3
mkdir -p .build
out=.build/eval-real.json
"$python" "$scorer" --scenarios "$set_dir/scenarios.json" --videos "$set_dir" --no-baseline \
  --cmd "$bin replay {video} --card {card_type} --overtime {overtime} --json --trace" \
  --out "$out" | tail -n 3
"$python" - "$out" "$min_iou" "$min_recall" "$max_low" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))
overall = cases["overall"]
iou, recall = overall["mean_iou"] or 0.0, overall["recall"] or 0.0
low = sum(1 for c in cases["cases"] if (c.get("iou") or 0.0) < 0.9)
print(f"eval-real: mean IoU {iou:.3f} (floor {sys.argv[2]}), recall {recall:.3f} (floor {sys.argv[3]}), "
      f"{low} of {len(cases['cases'])} clips below IoU 0.9 (at most {sys.argv[4]})")
sys.exit(0 if iou >= float(sys.argv[2]) and recall >= float(sys.argv[3]) and low <= int(sys.argv[4]) else 1)
PY
