#!/usr/bin/env bash
# Scores the CLI on the independent development set (../shared/eval-dev, a
# renderer that is not ours; issue 12) with its own scorer, prints the
# scorer's table and summary, and fails when a non-attack video that is
# listed in samples/eval-dev-passing.txt no longer passes.
#
#   scripts/eval-dev.sh BIN            score, gate, exit 1 on a regression
#   EVAL_DEV=DIR scripts/eval-dev.sh   another copy of the set
#
# The list is what the detector passes today (and for a non-attack video,
# without an alert that the video does not contain); a video that newly passes is
# named at the end so it can be added. The attack videos (dev_copy_*,
# dev_screen_*) expect retCode 5 from the liveness checks (issue 13) and are
# gated like the rest. Without the set (a clone with no shared/ beside it) this
# says so and exits 0: the set is not ours to ship.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/hkid-liveness}
set_dir=${EVAL_DEV:-../shared/eval-dev}
if [ ! -f "$set_dir/score.py" ]; then
  echo "eval-dev: no development set at $set_dir (score.py missing); not scored"
  exit 0
fi
[ -x "$bin" ] || { echo "eval-dev: $bin is not built (make build)" >&2; exit 2; }
# Debian's numpy and OpenCV for Python (scripts/install-deps.sh eval) live in
# the system interpreter, whatever python3 comes first on PATH.
python=/usr/bin/python3
mkdir -p .build
out=.build/eval-dev.json
"$python" "$set_dir/score.py" --videos "$set_dir" \
  --cmd "$bin replay {video} --card {card_type} --overtime {overtime} --json --trace" \
  --out "$out" | tail -n 40
"$python" - "$out" samples/eval-dev-passing.txt "$set_dir" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["cases"]
listed = [l.split("#")[0].strip() for l in open(sys.argv[2])]
listed = [l for l in listed if l]
by_name = {c["name"]: c for c in results}
regressed = [n for n in listed if not by_name.get(n, {}).get("outcome")]
missing = [n for n in listed if n not in by_name]
def unexpected_alerts(c):
    """Alerts a non-attack video does not contain (VALID always may come)."""
    if c["name"].startswith(("dev_copy_", "dev_screen_")):
        return []
    gt = json.load(open(f"{sys.argv[3]}/{c['name']}.gt.json"))
    allowed = set(gt.get("expected", {}).get("alerts", [])) | {"VALID"}
    return sorted(set(c.get("alerts") or []) - allowed)
newly = sorted(c["name"] for c in results
               if c["outcome"] and c["name"] not in listed and not unexpected_alerts(c))
for n in missing:
    print(f"eval-dev: {n} is listed in {sys.argv[2]} but was not scored")
for n in regressed:
    c = by_name.get(n, {})
    print(f"eval-dev: REGRESSED {n}: expected retCode {c.get('expected_ret')}, got {c.get('got_ret')}, "
          f"operations ok {c.get('ops_ok')}, alerts ok {c.get('alerts_ok')}")
for n in newly:
    print(f"eval-dev: {n} passes and is not listed yet; add it to {sys.argv[2]}")
# The scorer checks that the expected alerts come in order; the detector issue
# also asks for no alert the video does not contain (a pose glitch read as a
# whip, a printed box read as a far card). Attacks are judged by retCode only.
extra = {n: unexpected_alerts(by_name[n]) for n in listed if n in by_name}
extra = {n: alerts for n, alerts in extra.items() if alerts}
for n, alerts in extra.items():
    print(f"eval-dev: UNEXPECTED ALERT {n}: {', '.join(alerts)} (the video has none)")
passed = len(listed) - len(regressed)
print(f"eval-dev: {passed} passed, {len(regressed)} failed, {len(extra)} with an alert the video does not contain")
sys.exit(1 if regressed or missing or extra else 0)
PY
