#!/usr/bin/env bash
# Sync throughput and notification latency against `cumulus serve` (release build):
#   1. change-feed throughput: RECORDS records in the public default zone, read through
#      changes/zone in pages of 200, ROUNDS times, with the server's CPU per record;
#   2. notification latency: WAITERS long-poll clients waiting on the web courier, each with its
#      own push token; the tokens belong to SUBSCRIBERS signed-in users (WAITERS / SUBSCRIBERS
#      each, at most the 20 a user may hold), each with one query subscription; each of CHANGES
#      record saves fires one notification per subscriber, handed to each of their tokens; the
#      time from sending the save to each poll's answer (commit to delivery, the save's own
#      round trip included), p50 / p99 / max over all deliveries.
#
# Usage: bench/sync-feed.sh    (RECORDS 100000, ROUNDS 3, WAITERS 1000, SUBSCRIBERS 50, CHANGES 20;
#                               CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
RECORDS="${RECORDS:-100000}"
ROUNDS="${ROUNDS:-3}"
WAITERS="${WAITERS:-1000}"
SUBSCRIBERS="${SUBSCRIBERS:-50}"
CHANGES="${CHANGES:-20}"

use_cumulus_binary
bench_workspace sync-feed
cat > "$WORK/schema.ckdb" <<'SCHEMA'
DEFINE SCHEMA
    RECORD TYPE Feed (
        "___recordID" REFERENCE QUERYABLE,
        title STRING,
        rank INT64 QUERYABLE,
        GRANT READ TO "_world",
        GRANT CREATE TO "_icloud",
        GRANT WRITE TO "_icloud"
    );
SCHEMA
make_bench_container "$DATA" "$WORK/schema.ckdb"
# The subscribers, each signed in for two weeks: one web auth token a line.
for index in $(seq 1 "$SUBSCRIBERS"); do
    printf '%s\n' 'bench password' | "$CUMULUS" users add --container "$CONTAINER" "subscriber$index" --data-dir "$DATA" >/dev/null
    printf '%s\n' 'bench password' | "$CUMULUS" users token --container "$CONTAINER" "subscriber$index" --keep-signed-in --data-dir "$DATA"
done > "$WORK/subscribers.txt"
# One client address holds every waiting poll here: lift the per-client cap (256) above WAITERS.
export CUMULUS_MAX_CONNECTIONS_PER_CLIENT=$((WAITERS + 64))
serve_bench
python3 "$BENCH/sync_feed.py" "http://127.0.0.1:$PORT" "$CONTAINER" "$TOKEN" "$WEB_QUERY" "$PID" "$RECORDS" "$ROUNDS" "$WAITERS" "$CHANGES" \
    "$WORK/subscribers.txt" \
    | tee "$RESULTS/summary.json"
echo "raw results: $RESULTS"
