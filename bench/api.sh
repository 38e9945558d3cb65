#!/usr/bin/env bash
# The CloudKit Web Services API over HTTP, on `cumulus serve` (release build, access log on):
#   records/lookup of one record   (API token: the world reads the public database)
#   records/modify of one record   (a signed-in user creates a record per request)
#   the same two in the user's private database (lookup-private, modify1-private), which also
#                                  reads the zone's shares to mark a shared root and to find
#                                  the participants' subscriptions
#   records/modify of 200 records  (a signed-in user creates 200 records per request, named by
#                                   the server; and again with random names chosen by the client)
# wrk -t2 -c64 -d10s --latency (-c16 for 200-record batches), three rounds each, 127.0.0.1 only.
#
# Usage: bench/api.sh            (ROUNDS, DURATION override the defaults; CASES="lookup modify1"
#                                 runs only those cases; CUMULUS_BIN another build of cumulus)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-10s}"
CASES="${CASES:-lookup modify1 lookup-private modify1-private modify200 modify200-named}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

use_cumulus_binary
bench_workspace api

make_bench_container "$DATA" "$BENCH/lib/notes.ckdb"

serve_bench
BASE="http://127.0.0.1:$PORT/database/1/$CONTAINER/development/public"
AS_WORLD="?ckAPIToken=$TOKEN"
AS_USER="?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"
PRIVATE="http://127.0.0.1:$PORT/database/1/$CONTAINER/development/private"

FIELDS='"title":{"value":"A moderately long note title for benchmarking"},"body":{"value":"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore"},"count":{"value":42}'
printf '{"operations":[{"operationType":"create","record":{"recordName":"lookup-target","recordType":"Note","fields":{%s}}}]}' "$FIELDS" > "$WORK/seed.json"
curl -sf "$BASE/records/modify$AS_USER" -d @"$WORK/seed.json" >/dev/null
curl -sf "$PRIVATE/records/modify$AS_USER" -d @"$WORK/seed.json" >/dev/null
printf '{"records":[{"recordName":"lookup-target"}]}' > "$WORK/lookup.json"
printf '{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{%s}}}],"desiredKeys":[]}' "$FIELDS" > "$WORK/modify1.json"
python3 - "$FIELDS" > "$WORK/modify200.json" <<'PY'
import sys
op = '{"operationType":"create","record":{"recordType":"Note","fields":{%s}}}' % sys.argv[1]
print('{"operations":[%s],"desiredKeys":[]}' % ",".join([op] * 200))
PY
# A request that fails would still count in wrk's rate: check each body once first.
curl -sf "$BASE/records/lookup$AS_WORLD" -d @"$WORK/lookup.json" | grep -q '"recordChangeTag"'
curl -sf "$BASE/records/modify$AS_USER" -d @"$WORK/modify1.json" | grep -q '"recordChangeTag"'
curl -sf "$PRIVATE/records/lookup$AS_USER" -d @"$WORK/lookup.json" | grep -q '"recordChangeTag"'
[ "$(curl -sf "$BASE/records/modify$AS_USER" -d @"$WORK/modify200.json" | grep -o '"recordChangeTag"' | wc -l)" = 200 ]

SUMMARY="$RESULTS/summary.tsv"
echo -e "case\tround\trequests_per_s\tp99_ms\terrors\tcpu_busy_before\tserver_cpu_s\twrk_cpu_s\tforeign_cpu_pct\tserver_user_s\tserver_system_s" > "$SUMMARY"
run() {  # name connections url body [wrk script]
    [[ " $CASES " == *" $1 "* ]] || return 0
    for round in $(seq 1 "$ROUNDS"); do
        measured="$(BODY="$4" FIELDS="$FIELDS" measured_wrk "$RESULTS/wrk-$1-$round.txt" "$PID" "${DURATION%s}" \
            -t2 -c"$2" --latency -s "$BENCH/wrk/${5:-post.lua}" "$3")"
        printf '%s\t%s\t%s\n' "$1" "$round" "$measured" | tee -a "$SUMMARY"
        sleep 1
    done
}
run lookup 64 "$BASE/records/lookup$AS_WORLD" "$WORK/lookup.json"
run modify1 64 "$BASE/records/modify$AS_USER" "$WORK/modify1.json"
run lookup-private 64 "$PRIVATE/records/lookup$AS_USER" "$WORK/lookup.json"
run modify1-private 64 "$PRIVATE/records/modify$AS_USER" "$WORK/modify1.json"
run modify200 16 "$BASE/records/modify$AS_USER" "$WORK/modify200.json"
run modify200-named 16 "$BASE/records/modify$AS_USER" "" create_named.lua
echo "server VmRSS after the runs: $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status)" | tee "$RESULTS/rss.txt"
DB="$DATA/containers/$CONTAINER/development.sqlite"
echo "write-ahead log after the runs: $(( $(stat -c %s "$DB-wal") / 1048576 )) MiB, database file: $(( $(stat -c %s "$DB") / 1048576 )) MiB" | tee -a "$RESULTS/rss.txt"
echo "records stored: $(sqlite3 "$DB" 'SELECT count(*) FROM records')" | tee -a "$RESULTS/rss.txt"
if [[ " $CASES " == *" modify200-named "* ]]; then
    # Every request of the client-named case must have created its 200 records: the server
    # names records with version 7 UUIDs, the client with version 4.
    sent=$(cat "$RESULTS"/wrk-modify200-named-*.txt | awk '/requests in/ {n += $1} END {print n}')
    stored=$(sqlite3 "$DB" "SELECT count(*) FROM records WHERE substr(name, 15, 1) = '4'")
    echo "client-named records: $stored stored, $((sent * 200)) sent in completed requests" | tee -a "$RESULTS/rss.txt"
    [ "$stored" -ge $((sent * 200)) ] || { echo "client-named records are missing" >&2; exit 1; }
fi

python3 - "$SUMMARY" "${DURATION%s}" <<'PY' | tee "$RESULTS/medians.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
duration = float(sys.argv[2])
names = {"lookup": ("records/lookup, 1 record", 25_000), "modify1": ("records/modify, 1 record", 8_000),
         "lookup-private": ("records/lookup, 1 record, private database", 25_000),
         "modify1-private": ("records/modify, 1 record, private database", 8_000),
         "modify200": ("records/modify, 200 records", 150),
         "modify200-named": ("records/modify, 200 records named by the client (random UUIDs)", 150)}
print("| request | rounds: req/s (other work's CPU %) | median req/s | median p99 | server CPU per request | target |")
print("|---|---|---|---|---|---|")
for case, (name, target) in names.items():
    picked = [r for r in rows if r["case"] == case]
    if not picked:
        continue
    rps = [float(r["requests_per_s"]) for r in picked]
    p99 = [float(r["p99_ms"]) for r in picked]
    cost = [float(r["server_cpu_s"]) / (float(r["requests_per_s"]) * duration) * 1e6 for r in picked]
    rounds = " / ".join(f"{float(r['requests_per_s']):,.0f} ({r['foreign_cpu_pct']}%)" for r in picked)
    print(f"| {name} | {rounds} | **{statistics.median(rps):,.0f}** | {statistics.median(p99):.2f} ms "
          f"| {statistics.median(cost):,.0f} µs | ≥ {target:,} |")
PY
echo "raw results: $RESULTS"
