#!/usr/bin/env bash
# A backup of a 1,000,000-record environment while the server serves (release build, SQLite):
#   seed         RECORDS records in the public database, in batches of 200 over the API
#   backup       `cumulus backup` of the data directory, alone: its time and the file's size
#   idle         requests with no backup running, for WINDOW: lookups of one record (wrk -t1 -c8)
#                and single-record creates (wrk -t1 -c2) at once; requests/s, p50 and p99 of each
#   during       the same requests while backups run back to back for the whole WINDOW (each
#                deleted once written): the p99 a client sees while a backup is being taken
#
# Usage: bench/backup.sh        (RECORDS 1000000, WINDOW 30s; CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
RECORDS="${RECORDS:-1000000}"
WINDOW="${WINDOW:-30s}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

use_cumulus_binary
bench_workspace backup
make_bench_container "$DATA" "$BENCH/lib/notes.ckdb"
serve_bench
BASE="http://127.0.0.1:$PORT/database/1/$CONTAINER/development/public"
AS_USER="?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"

echo "seeding $RECORDS records…"
SEED_STARTED=$(date +%s.%N)
python3 - "$BASE/records/modify$AS_USER" "$RECORDS" <<'PY'
import concurrent.futures, json, sys, urllib.request
url, total = sys.argv[1], int(sys.argv[2])
def batch(start):
    operations = [{"operationType": "create", "record": {
        "recordName": "lookup-target" if n == 0 else f"note-{n:07d}", "recordType": "Note", "fields": {
            "title": {"value": f"Note {n:07d}: a moderately long title for the backup benchmark"},
            "body": {"value": "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 4}, "count": {"value": n % 1000}}}}
        for n in range(start, min(start + 200, total))]
    request = urllib.request.Request(url, data=json.dumps({"operations": operations, "desiredKeys": []}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        assert response.status == 200
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    list(pool.map(batch, range(0, total, 200)))
PY
SEED_SECONDS=$(awk -v a="$SEED_STARTED" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')

printf '{"records":[{"recordName":"lookup-target"}]}' > "$WORK/lookup.json"
printf '{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"written during the benchmark"},"count":{"value":7}}}}],"desiredKeys":[]}' > "$WORK/create.json"
# A request that fails would still count in wrk's rate: check each body once first.
curl -sf "$BASE/records/lookup$AS_USER" -d @"$WORK/lookup.json" | grep -q '"recordChangeTag"'
curl -sf "$BASE/records/modify$AS_USER" -d @"$WORK/create.json" | grep -q '"recordChangeTag"'

# backup_once FILE: one backup of the data directory, as an operator runs it beside the server.
backup_once() { "$CUMULUS" backup --to "$1" --data-dir "$DATA" >/dev/null; }

STARTED=$(date +%s.%N)
backup_once "$WORK/alone.tar"
BACKUP_SECONDS=$(awk -v a="$STARTED" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
BACKUP_BYTES=$(stat -c %s "$WORK/alone.tar")
rm -f "$WORK/alone.tar"

# load NAME: lookups and creates at once for WINDOW, into RESULTS/wrk-NAME-{lookup,create}.txt.
load() {
    BODY="$WORK/lookup.json" wrk -t1 -c8 -d"$WINDOW" --latency -s "$BENCH/wrk/post.lua" "$BASE/records/lookup$AS_USER" \
        > "$RESULTS/wrk-$1-lookup.txt" &
    local lookups=$!
    BODY="$WORK/create.json" wrk -t1 -c2 -d"$WINDOW" --latency -s "$BENCH/wrk/post.lua" "$BASE/records/modify$AS_USER" \
        > "$RESULTS/wrk-$1-create.txt" &
    local creates=$!
    if [ "$1" = during ]; then
        # Backups back to back until both clients are done: every request of the window meets one.
        local count=0
        while kill -0 "$lookups" 2>/dev/null || kill -0 "$creates" 2>/dev/null; do
            backup_once "$WORK/during-$count.tar"
            rm -f "$WORK/during-$count.tar"
            count=$((count + 1))
        done
        echo "$count" > "$RESULTS/backups-during.txt"
    fi
    wait "$lookups" "$creates"
}

row() {  # phase kind
    local out="$RESULTS/wrk-$1-$2.txt" errors
    errors="$(grep -E 'Non-2xx|Socket errors' "$out" | tr -s ' ' | paste -sd';' - || true)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(awk '/^Requests\/sec/ {print $2}' "$out")" \
        "$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")")" "$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")" "${errors:-none}"
}

load idle
load during
SUMMARY="$RESULTS/summary.tsv"
{
    echo -e "records\t$RECORDS\tseeded in ${SEED_SECONDS}s"
    echo -e "backup alone\t${BACKUP_SECONDS}s\t$BACKUP_BYTES bytes"
    echo -e "backups during the window\t$(cat "$RESULTS/backups-during.txt")"
    echo -e "phase\trequest\trequests_per_s\tp50_ms\tp99_ms\terrors"
    row idle lookup
    row idle create
    row during lookup
    row during create
} | tee "$SUMMARY"
echo "raw results: $RESULTS"
