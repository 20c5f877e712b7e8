#!/usr/bin/env bash
# Station soak: the real hkid-station daemon fed a sample at real-time speed,
# running liveness sessions back to back over HTTP for MINUTES, with its
# resident memory read from /proc after every session: the median of the
# first five (after a warm-up of three sessions) against the median of the
# last five. The bar (issue 7) is under 2 MB of growth.
#
#   scripts/station-soak.sh [MINUTES] [STATION_BINARY] [SAMPLE]
set -euo pipefail
minutes=${1:-10}
station=${2:-.build/release/hkid-station}
sample=${3:-samples/genuine-2018.mp4}
port=${SOAK_PORT:-18590}
data=$(mktemp -d /tmp/hkid-station-soak.XXXXXX)

# SOAK_SOURCE overrides the source flags, e.g. "--source test-pattern" with
# SOAK_BODY='{"cardType":"2018","overtimeSeconds":2}' for overtime sessions.
source_args=${SOAK_SOURCE:-"--source file --file $sample --restart-file-on-session"}
body=${SOAK_BODY:-'{"cardType":"2018","language":"en"}'}
# shellcheck disable=SC2086
"$station" $source_args --port "$port" --data-directory "$data/data" ${SOAK_STATION_ARGS:-} \
  >"$data/station.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
# Anonymous memory is what a leak or a fragmented heap grows; file-backed
# pages (shared libraries) come and go with the page cache.
anon_kb() { awk '/^RssAnon/ {print $2}' "/proc/$pid/status"; }
session() {  # starts one session and waits for it to end; prints its status
  local id status
  local reply attempt
  for attempt in $(seq 40); do
    # 409 while the previous session's recording is still being finalised.
    reply=$(curl -s -w '\n%{http_code}' -XPOST "http://127.0.0.1:$port/v1/sessions" \
              -H 'content-type: application/json' -d "$body")
    [ "${reply##*$'\n'}" = 201 ] && break
    sleep 0.25
  done
  [ "${reply##*$'\n'}" = 201 ] || { echo "station soak: POST /v1/sessions answered ${reply##*$'\n'}: ${reply%$'\n'*}" >&2; exit 1; }
  id=$(printf '%s' "${reply%$'\n'*}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  while :; do
    status=$(curl -sf "http://127.0.0.1:$port/v1/sessions/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
    [ "$status" != active ] && break
    sleep 0.25
  done
  echo "$status"
}

# RSS is read after every session. One reading can catch the previous
# session's encoder buffers on their way out (a few MB either way), so the
# start and the end are each the median of five sessions' readings.
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for _ in 1 2 3; do session >/dev/null; done
readings=()
deadline=$(( $(date +%s) + minutes * 60 ))
count=0; completed=0
while [ "$(date +%s)" -lt "$deadline" ] || [ "$count" -lt 10 ]; do
  [ "$(session)" = completed ] && completed=$((completed + 1))
  count=$((count + 1))
  readings+=("$(rss_kb) $(anon_kb)")
done
first=("${readings[@]:0:5}"); last=("${readings[@]: -5}")
start_rss=$(printf '%s\n' "${first[@]}" | cut -d' ' -f1 | median)
end_rss=$(printf '%s\n' "${last[@]}" | cut -d' ' -f1 | median)
start_anon=$(printf '%s\n' "${first[@]}" | cut -d' ' -f2 | median)
end_anon=$(printf '%s\n' "${last[@]}" | cut -d' ' -f2 | median)
echo "station soak: $count sessions in $minutes min ($completed completed)"
echo "station soak: RSS (median of 5 sessions) after warm-up ${start_rss} kB, at the end ${end_rss} kB, growth $(( end_rss - start_rss )) kB"
echo "station soak: of which anonymous ${start_anon} kB -> ${end_anon} kB, growth $(( end_anon - start_anon )) kB"
# A leak keeps climbing; warm-up (caches, arenas) levels off. The median RSS
# of each quarter of the run tells them apart.
n=${#readings[@]}; quarters=""
for q in 0 1 2 3; do
  from=$(( q * n / 4 )); to=$(( (q + 1) * n / 4 ))
  quarters+=" $(printf '%s\n' "${readings[@]:$from:$((to - from))}" | cut -d' ' -f1 | median)"
done
echo "station soak: RSS median by quarter of the run (kB):$quarters"
