#!/usr/bin/env bash
# The change feed's completeness under load: `cumulus serve` (release build), writers replacing
# and deleting records in the public database while a reader follows records/changes with pages
# of 50; at the end the reader's copy must equal the server's (bench/sync_soak.py).
#
# Usage: bench/sync-soak.sh     (DURATION seconds, default 600; WRITERS, default 4; CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
DURATION="${DURATION:-600}"
WRITERS="${WRITERS:-4}"

use_cumulus_binary
bench_workspace sync-soak
public_type_schema Soak "$WORK/schema.ckdb"
make_bench_container "$DATA" "$WORK/schema.ckdb"
serve_bench
echo "soaking for $DURATION s with $WRITERS writers…"
python3 "$BENCH/sync_soak.py" "http://127.0.0.1:$PORT/database/1/$CONTAINER/development/public" "$TOKEN" "$WEB_QUERY" "$DURATION" "$WRITERS" \
    | tee "$RESULTS/summary.json"
echo "raw results: $RESULTS"
