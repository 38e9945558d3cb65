#!/usr/bin/env bash
# The request log at 1,000,000 calls: fills it with real API calls (wrk on records/lookup, the
# first tenth with a revoked token, so that errors are there to find), then times the management
# API's filters — by user, by operation, errors only, and a page of everything — as one script
# asking after another (wrk -t1 -c1 --latency), three rounds each, with the server's CPU per
# answer from /proc.
#
# Usage: bench/logs.sh       (CALLS, ROUNDS, DURATION override the defaults; CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
CALLS="${CALLS:-1000000}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-10s}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

use_cumulus_binary
bench_workspace logs
cat > "$WORK/schema.ckdb" <<'SCHEMA'
DEFINE SCHEMA
    RECORD TYPE Note (title STRING QUERYABLE, GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
SCHEMA
make_bench_container "$DATA" "$WORK/schema.ckdb"
printf '%s\n' 'bench operator password' | "$CUMULUS" operators add bench --data-dir "$DATA" >/dev/null
MT="$("$CUMULUS" operators token bench --data-dir "$DATA")"
serve_bench
SERVER="http://127.0.0.1:$PORT"
API="$SERVER/database/1/$CONTAINER/development/public/records/lookup"
printf '{"records":[{"recordName":"nothing"}]}' > "$WORK/lookup.json"

# Fill the log: signed-in lookups (a user to filter by), and a tenth with a revoked token.
echo "filling the request log with $CALLS calls…"
BAD="$("$CUMULUS" tokens create --container "$CONTAINER" --data-dir "$DATA")"
"$CUMULUS" tokens revoke "$BAD" --data-dir "$DATA" >/dev/null
# Ids follow one another from 1, so the newest id is the count of calls logged.
logged() { sqlite3 "$DATA/requests.sqlite" 'SELECT coalesce(max(first_id + count - 1), 0) FROM request_blocks' 2>/dev/null || echo 0; }
# The errors come first, so that the newest errors lie under 900,000 newer calls.
while [ "$(logged)" -lt $((CALLS / 10)) ]; do
    BODY="$WORK/lookup.json" wrk -t2 -c32 -d5s -s "$BENCH/wrk/post.lua" "$API?ckAPIToken=$BAD" >/dev/null
    sleep 1
done
while [ "$(logged)" -lt "$CALLS" ]; do
    BODY="$WORK/lookup.json" wrk -t2 -c32 -d10s -s "$BENCH/wrk/post.lua" "$API?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY" >/dev/null
    sleep 1
done
echo "calls logged: $(logged)" | tee "$RESULTS/calls.txt"

USER_RECORD="$(curl -sf -H "Authorization: Bearer $MT" "$SERVER/admin/v1/containers/$CONTAINER/users" | python3 -c 'import json,sys; print(json.load(sys.stdin)["users"][0]["userRecordName"])')"
LOGS="$SERVER/admin/v1/containers/$CONTAINER/logs"
declare -A URLS=(
    [page]="$LOGS?limit=100"
    [user]="$LOGS?user=$USER_RECORD&limit=100"
    [operation]="$LOGS?operation=records/lookup&environment=development&limit=100"
    [errors]="$LOGS?errors=1&limit=100"
    [errors-deep]="$LOGS?errors=1&before=$(sqlite3 "$DATA/requests.sqlite" 'SELECT first_id FROM request_blocks WHERE errors > 0 ORDER BY first_id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM request_blocks WHERE errors > 0)')&limit=100"
)
for name in "${!URLS[@]}"; do
    count="$(curl -sf -H "Authorization: Bearer $MT" "${URLS[$name]}" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')"
    [ "$count" = 100 ] || { echo "$name answered $count entries, not 100" >&2; exit 1; }
done

SUMMARY="$RESULTS/summary.tsv"
latency_header "$SUMMARY"
for name in page user operation errors errors-deep; do
    latency_rounds "$SUMMARY" "$name" "${URLS[$name]}" -H "Authorization: Bearer $MT"
done
latency_table "$SUMMARY" "filter on 1,000,000 calls" "page=newest 100 calls" "user=100 calls of one user" \
    "operation=100 calls of records/lookup in development" "errors=newest 100 errors" \
    "errors-deep=100 errors from the middle of the log (before=)" | tee "$RESULTS/medians.md"
echo "raw results: $RESULTS"
