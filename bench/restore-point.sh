#!/usr/bin/env bash
# A restore point of a 100,000-record zone while the server serves (release build, SQLite):
#   seed         RECORDS records in the public database's default zone, in batches of 200 over the API
#   mark         the time T to go back to
#   change       after T: CHANGED records updated, CHANGED deleted and CHANGED created, over the API
#   dry run      `cumulus restore-point --zone _defaultZone --at T --dry-run`: its time and its counts
#   restore      the same without --dry-run: its time; then the zone is read back over the API and
#                must hold exactly the RECORDS records of T with their titles of T
#   from backup  a backup taken at T (`cumulus backups take`); the same changes made again, then
#                `cumulus restore-point --zone _defaultZone --backup NAME [--dry-run]`: their times,
#                and the zone read back as at T again
#
# Usage: bench/restore-point.sh   (RECORDS 100000, CHANGED 5000; CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
RECORDS="${RECORDS:-100000}"
CHANGED="${CHANGED:-5000}"

use_cumulus_binary
bench_workspace restore-point
make_bench_container "$DATA" "$BENCH/lib/notes.ckdb"
serve_bench
BASE="http://127.0.0.1:$PORT/database/1/$CONTAINER/development/public"
AS_USER="?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"

# write KIND FIRST COUNT TITLE: COUNT records note-FIRST… created, updated or deleted, 200 a call.
write() {
    python3 - "$BASE/records/modify$AS_USER" "$@" <<'PY'
import concurrent.futures, json, sys, urllib.request
url, kind, first, count, title = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
def batch(start):
    operations = []
    for n in range(start, min(start + 200, first + count)):
        record = {"recordName": f"note-{n:07d}", "recordType": "Note"}
        if kind != "forceDelete":
            record["fields"] = {"title": {"value": f"{title} {n:07d}"}, "count": {"value": n % 1000}}
        operations.append({"operationType": kind, "record": record})
    request = urllib.request.Request(url, data=json.dumps({"operations": operations, "desiredKeys": []}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        assert response.status == 200
        assert not any("serverErrorCode" in r for r in json.load(response)["records"])
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    list(pool.map(batch, range(first, first + count, 200)))
PY
}

seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }

echo "seeding $RECORDS records…"
STARTED=$(date +%s.%N)
write create 0 "$RECORDS" "Note"
SEED_SECONDS=$(seconds_since "$STARTED")
sleep 1.1
AT=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
STARTED=$(date +%s.%N)
BACKUP=$("$CUMULUS" backups take --data-dir "$DATA" | grep -o 'cumulus-backup-[^ ]*\.tar' | head -1)
BACKUP_SECONDS=$(seconds_since "$STARTED")
sleep 1.1
change() {
    echo "changing $CHANGED updated, $CHANGED deleted, $CHANGED created…"
    write forceUpdate 0 "$CHANGED" "Changed"
    write forceDelete "$CHANGED" "$CHANGED" ""
    write create "$RECORDS" "$CHANGED" "New"
}
change

point() { "$CUMULUS" restore-point --container "$CONTAINER" --zone _defaultZone --at "$AT" --data-dir "$DATA" "$@"; }
STARTED=$(date +%s.%N)
point --dry-run > "$RESULTS/dry-run.txt"
DRY_SECONDS=$(seconds_since "$STARTED")
STARTED=$(date +%s.%N)
point > "$RESULTS/restore.txt"
RESTORE_SECONDS=$(seconds_since "$STARTED")

# The zone as a client reads it: exactly the records of T, with their titles of T.
read_back() {
python3 - "$BASE/records/query$AS_USER" "$RECORDS" <<'PY'
import json, sys, urllib.request
url, total = sys.argv[1], int(sys.argv[2])
seen, marker = {}, None
while True:
    body = {"query": {"recordType": "Note"}, "resultsLimit": 200, "desiredKeys": ["title"]}
    if marker:
        body["continuationMarker"] = marker
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        answer = json.load(response)
    for record in answer["records"]:
        seen[record["recordName"]] = record["fields"]["title"]["value"]
    marker = answer.get("continuationMarker")
    if not marker:
        break
expected = {f"note-{n:07d}": f"Note {n:07d}" for n in range(total)}
assert seen == expected, f"{len(seen)} records read back, {sum(seen.get(k) == v for k, v in expected.items())} as at the restore point"
print(f"read back: {len(seen)} records, every one as at the restore point")
PY
}
read_back

change
from_backup() { "$CUMULUS" restore-point --container "$CONTAINER" --zone _defaultZone --backup "$BACKUP" --data-dir "$DATA" "$@"; }
STARTED=$(date +%s.%N)
from_backup --dry-run > "$RESULTS/backup-dry-run.txt"
BACKUP_DRY_SECONDS=$(seconds_since "$STARTED")
STARTED=$(date +%s.%N)
from_backup > "$RESULTS/backup-restore.txt"
BACKUP_RESTORE_SECONDS=$(seconds_since "$STARTED")
read_back

{
    echo "records $RECORDS, changed after the point: $CHANGED updated, $CHANGED deleted, $CHANGED created"
    echo "seed ${SEED_SECONDS}s"
    echo "restore-point --dry-run ${DRY_SECONDS}s:"
    sed 's/^/  /' "$RESULTS/dry-run.txt" | head -12
    echo "restore-point ${RESTORE_SECONDS}s:"
    sed 's/^/  /' "$RESULTS/restore.txt" | head -6
    echo "backup at the point ${BACKUP_SECONDS}s: $BACKUP"
    echo "restore-point --backup --dry-run ${BACKUP_DRY_SECONDS}s:"
    sed 's/^/  /' "$RESULTS/backup-dry-run.txt" | head -12
    echo "restore-point --backup ${BACKUP_RESTORE_SECONDS}s:"
    sed 's/^/  /' "$RESULTS/backup-restore.txt" | head -6
} | tee "$RESULTS/summary.txt"
