#!/usr/bin/env bash
# A per-user export and erase of a user holding 100,000 records (release build, SQLite; with
# CUMULUS_BENCH_POSTGRES_URL, on that PostgreSQL database instead):
#   seed     the user `bench` writes PUBLIC notes in the public database and PRIVATE notes in their
#            private database, and `other` writes OTHER public notes, in batches of 200 over the API
#   export   `cumulus users export --container C bench --to FILE`: its time and the archive's size
#   dry run  `cumulus users erase --container C bench --dry-run`: its time and its counts
#   erase    the same without --dry-run: its time; then `other`'s notes are counted over the API
#            (they must all be there) and the public zone must hold none of bench's
# The server is stopped before each command, so that its time is the command's alone.
#
# Usage: bench/user-privacy.sh   (PUBLIC 50000, PRIVATE 50000, OTHER 5000; CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
PUBLIC="${PUBLIC:-50000}"
PRIVATE="${PRIVATE:-50000}"
OTHER="${OTHER:-5000}"

use_cumulus_binary
bench_workspace user-privacy
STORE=()
if [ -n "${CUMULUS_BENCH_POSTGRES_URL:-}" ]; then
    STORE=(--database-url "$CUMULUS_BENCH_POSTGRES_URL")
fi
CUMULUS_REAL="$CUMULUS"
# Every command of this run uses the chosen store.
cumulus_on_store() { "$CUMULUS_REAL" "$@" "${STORE[@]}"; }
CUMULUS=cumulus_on_store
make_bench_container "$DATA" "$BENCH/lib/notes.ckdb"
printf '%s\n' 'other password' | "$CUMULUS" users add --container "$CONTAINER" other --data-dir "$DATA" >/dev/null
OTHER_WEB="$(printf '%s\n' 'other password' | "$CUMULUS" users token --container "$CONTAINER" other --keep-signed-in --data-dir "$DATA")"
OTHER_QUERY="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$OTHER_WEB")"

serve() {
    PORT="$(free_port)"
    "$CUMULUS_REAL" serve --host 127.0.0.1 --port "$PORT" --data-dir "$DATA" --no-demo "${STORE[@]}" \
        --templates-dir "$ROOT/Templates" --public-dir "$ROOT/Public" >/dev/null &
    PID=$!
    wait_for_url "http://127.0.0.1:$PORT/healthz"
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }

# write DATABASE WEB_QUERY PREFIX COUNT: COUNT notes PREFIX-n created as the token's user, 200 a call.
write() {
    python3 - "http://127.0.0.1:$PORT/database/1/$CONTAINER/development/$1/records/modify?ckAPIToken=$TOKEN&ckWebAuthToken=$2" \
        "$3" "$4" <<'PY'
import concurrent.futures, json, sys, urllib.request
url, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
def batch(start):
    operations = [{"operationType": "create", "record": {"recordName": f"{prefix}-{n:07d}", "recordType": "Note",
                   "fields": {"title": {"value": f"{prefix} {n:07d}"}, "count": {"value": n % 1000}}}}
                  for n in range(start, min(start + 200, count))]
    request = urllib.request.Request(url, data=json.dumps({"operations": operations, "desiredKeys": []}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        assert response.status == 200
        assert not any("serverErrorCode" in r for r in json.load(response)["records"])
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    list(pool.map(batch, range(0, count, 200)))
PY
}

seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }
timed() { local started; started=$(date +%s.%N); "$@" > "$RESULTS/out.txt"; seconds_since "$started"; }

serve
echo "seeding $PUBLIC public and $PRIVATE private records of bench, $OTHER of other…"
STARTED=$(date +%s.%N)
write public "$WEB_QUERY" bench-public "$PUBLIC"
write private "$WEB_QUERY" bench-private "$PRIVATE"
write public "$OTHER_QUERY" other "$OTHER"
SEED_SECONDS=$(seconds_since "$STARTED")
stop

ARCHIVE="$WORK/bench-export.tar"
EXPORT_SECONDS=$(timed "$CUMULUS" users export --container "$CONTAINER" bench --to "$ARCHIVE" --data-dir "$DATA")
ARCHIVE_BYTES=$(stat -c %s "$ARCHIVE")
EXPORTED=$(tar -xOf "$ARCHIVE" development/public/_defaultZone.jsonl development/private/_defaultZone.jsonl | wc -l)
DRY_SECONDS=$(timed "$CUMULUS" users erase --container "$CONTAINER" bench --dry-run --data-dir "$DATA")
cp "$RESULTS/out.txt" "$RESULTS/dry-run.json"
ERASE_SECONDS=$(timed "$CUMULUS" users erase --container "$CONTAINER" bench --data-dir "$DATA")
cp "$RESULTS/out.txt" "$RESULTS/erase.json"

serve
LEFT=$(python3 - "http://127.0.0.1:$PORT/database/1/$CONTAINER/development/public/records/query?ckAPIToken=$TOKEN" <<'PY'
import json, sys, urllib.request
url, names, marker = sys.argv[1], [], None
while True:
    body = {"query": {"recordType": "Note"}, "resultsLimit": 200, "desiredKeys": []}
    if marker: body["continuationMarker"] = marker
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    answer = json.load(urllib.request.urlopen(request, timeout=300))
    names += [r["recordName"] for r in answer["records"]]
    marker = answer.get("continuationMarker")
    if not marker: break
print(sum(n.startswith("other-") for n in names), sum(n.startswith("bench-") for n in names))
PY
)
stop
read -r OTHER_LEFT BENCH_LEFT <<< "$LEFT"
[ "$OTHER_LEFT" = "$OTHER" ] && [ "$BENCH_LEFT" = 0 ] && [ "$EXPORTED" = $((PUBLIC + PRIVATE)) ] || {
    echo "check failed: other's notes left $OTHER_LEFT of $OTHER, bench's left $BENCH_LEFT, exported $EXPORTED" >&2
    exit 1
}

{
    echo "| user-privacy ($([ ${#STORE[@]} -gt 0 ] && echo PostgreSQL || echo SQLite), $((PUBLIC + PRIVATE)) records of the user) | seconds |"
    echo "|---|---|"
    echo "| seed over the API | $SEED_SECONDS |"
    echo "| users export ($EXPORTED records, $ARCHIVE_BYTES bytes) | **$EXPORT_SECONDS** |"
    echo "| users erase --dry-run | **$DRY_SECONDS** |"
    echo "| users erase | **$ERASE_SECONDS** |"
} | tee "$RESULTS/summary.md"
