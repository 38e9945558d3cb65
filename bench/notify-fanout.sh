#!/usr/bin/env bash
# Notification write amplification (security review N2): what one save costs when another user
# holds many push tokens and many subscriptions that the save fires. User `spy` asks for TOKENS
# push tokens (`tokens/create`, signed in) and makes SUBSCRIPTIONS query subscriptions on public
# `Folder` creates; user `bench` then saves SAVES folders, one per `records/modify`. For each
# save: its round trip and the notification rows it added to the environment's queue. A baseline
# of the same saves with no subscription comes first.
#
# Usage: bench/notify-fanout.sh    (TOKENS 200, SUBSCRIPTIONS 50, SAVES 20; CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
TOKENS="${TOKENS:-200}"
SUBSCRIPTIONS="${SUBSCRIPTIONS:-50}"
SAVES="${SAVES:-20}"

use_cumulus_binary
bench_workspace notify-fanout
public_type_schema Folder "$WORK/schema.ckdb"
make_bench_container "$DATA" "$WORK/schema.ckdb"
printf '%s\n' 'spy password' | "$CUMULUS" users add --container "$CONTAINER" spy --data-dir "$DATA" >/dev/null
SPY="$(printf '%s\n' 'spy password' | "$CUMULUS" users token --container "$CONTAINER" spy --keep-signed-in --data-dir "$DATA")"
SPY_QUERY="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$SPY")"
serve_bench
QUEUE="$(find "$DATA" -name development.sqlite | head -1)"
python3 "$BENCH/notify_fanout.py" "http://127.0.0.1:$PORT" "$CONTAINER" "$TOKEN" "$WEB_QUERY" "$SPY_QUERY" "$QUEUE" \
    "$TOKENS" "$SUBSCRIPTIONS" "$SAVES" | tee "$RESULTS/summary.json"
echo "raw results: $RESULTS"
