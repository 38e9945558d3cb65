#!/usr/bin/env bash
# What one request costs the server, for /healthz, read (records/lookup of one record, as the
# world), query (records/query on an indexed field with one result, as the world) and create
# (records/modify of one record, as a signed-in user), and on request read-private (the same
# lookup by a signed-in user in their private database) and update (records/modify forceUpdate of one
# record, as a signed-in user: each keeps the version it replaced), on `cumulus serve` (release build,
# access log on), 127.0.0.1 only:
#   - instructions, malloc calls and commits per request: the server under callgrind, counting
#     only while one client makes COUNT requests of the case one after another (after WARMUP),
#     then again with the COUNT requests spread over each of CONNECTIONS connections at once
#     (16, then 64, the load of the performance targets): as under load, where creates in
#     flight together commit in one group. The counts start from the same seeded data (2,001
#     records), whatever the wrk runs before them added, and each count follows WARMUP
#     requests over as many connections as it uses;
#   - syscalls per request: strace -c -f attached during a wrk -t2 -c64 run of DURATION;
#   - context switches per request: every server thread's switches over a wrk run (no strace);
#   - fsyncs per create at synchronous=NORMAL and FULL, and so commits per create at FULL
#     (there each commit syncs the write-ahead log once): strace of fsync/fdatasync over a wrk
#     run of creates.
#
# Usage: bench/profile.sh   (COUNT 2000, WARMUP 300, DURATION 5s, CONNECTIONS "16 64"; CUMULUS_BIN another build;
#                            CASES="healthz read query create" a subset, or read-private, update)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
COUNT="${COUNT:-2000}"
WARMUP="${WARMUP:-300}"
DURATION="${DURATION:-5s}"
CONNECTIONS="${CONNECTIONS:-16 64}"
CASES="${CASES:-healthz read query create}"
for tool in valgrind strace wrk; do
    command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind strace wrk >/dev/null; break; }
done

use_cumulus_binary
bench_workspace profile
make_bench_container "$DATA" "$BENCH/lib/notes.ckdb"
FIELDS='"title":{"value":"A moderately long note title for benchmarking"},"body":{"value":"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore"},"count":{"value":42}'
printf '{"records":[{"recordName":"lookup-target"}]}' > "$WORK/read.json"
printf '{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":7}}]}}' > "$WORK/query.json"
printf '{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{%s}}}],"desiredKeys":[]}' "$FIELDS" > "$WORK/create.json"
printf '{"operations":[{"operationType":"forceUpdate","record":{"recordName":"update-target","recordType":"Note","fields":{%s}}}],"desiredKeys":[]}' \
    "$FIELDS" > "$WORK/update.json"

# The server under test, plain or under a tool (`valgrind …`), with `synchronous` as asked.
# Valgrind cannot read the debug information Swift 6 writes, so it runs a copy without it.
start_server() {  # synchronous [command prefix…]
    local synchronous="$1" binary="$CUMULUS"
    shift
    if [ "$#" -gt 0 ]; then
        binary="$WORK/cumulus-for-valgrind"
        [ -x "$binary" ] || { cp "$CUMULUS" "$binary" && strip --strip-debug "$binary"; }
    fi
    PORT="$(free_port)"
    "$@" "$binary" serve --host 127.0.0.1 --port "$PORT" --data-dir "$DATA" --no-demo --synchronous "$synchronous" \
        --templates-dir "$ROOT/Templates" --public-dir "$ROOT/Public" >"$RESULTS/serve-$synchronous.log" 2>&1 &
    PID=$!
    for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
    BASE="/database/1/$CONTAINER/development/public"
    PATHS=(
        [0]="/healthz" [1]="$BASE/records/lookup?ckAPIToken=$TOKEN" [2]="$BASE/records/query?ckAPIToken=$TOKEN"
        [3]="$BASE/records/modify?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"
        [4]="${BASE%/public}/private/records/lookup?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"
        [5]="$BASE/records/modify?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"
    )
}
stop_server() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; PID=""; }
case_index() { case "$1" in healthz) echo 0 ;; read) echo 1 ;; query) echo 2 ;; create) echo 3 ;; read-private) echo 4 ;; update) echo 5 ;; esac; }
client() {  # case count [connections]
    local index method=POST body
    index="$(case_index "$1")"
    body="$WORK/${1%-private}.json"
    [ "$1" = healthz ] && { method=GET; body=""; }
    CONNECTIONS="${3:-1}" python3 "$BENCH/profile_client.py" 127.0.0.1 "$PORT" "$2" "$method" "${PATHS[$index]}" ${body:+"$body"}
}
wrk_case() {  # case out-file
    local index
    index="$(case_index "$1")"
    if [ "$1" = healthz ]; then
        wrk -t2 -c64 -d"$DURATION" "http://127.0.0.1:$PORT${PATHS[$index]}" > "$2"
    else
        BODY="$WORK/${1%-private}.json" wrk -t2 -c64 -d"$DURATION" -s "$BENCH/wrk/post.lua" "http://127.0.0.1:$PORT${PATHS[$index]}" > "$2"
    fi
    awk '/requests in/ {print $1}' "$2"
}
thread_switches() { cat /proc/"$PID"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {n += $2} END {print n}'; }

# Seed: the record read, and 2,000 records of which one has count 7 (the query's one result).
start_server normal
for database in public private; do
    curl -sf "http://127.0.0.1:$PORT${BASE%/public}/$database/records/modify?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY" \
        -d "{\"operations\":[{\"operationType\":\"create\",\"record\":{\"recordName\":\"lookup-target\",\"recordType\":\"Note\",\"fields\":{$FIELDS}}}]}" >/dev/null
done
curl -sf "http://127.0.0.1:$PORT$BASE/records/modify?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY" \
    -d "{\"operations\":[{\"operationType\":\"create\",\"record\":{\"recordName\":\"update-target\",\"recordType\":\"Note\",\"fields\":{$FIELDS}}}]}" >/dev/null
python3 - "$FIELDS" "$WORK" <<'PY'
import json, sys
fields = json.loads("{" + sys.argv[1] + "}")
for batch in range(10):
    operations = []
    for index in range(200):
        number = batch * 200 + index
        record_fields = dict(fields, count={"value": 7 if number == 1234 else 100_000 + number})
        operations.append({"operationType": "create", "record": {"recordType": "Note", "fields": record_fields}})
    open(f"{sys.argv[2]}/seed-{batch}.json", "w").write(json.dumps({"operations": operations, "desiredKeys": []}))
PY
for batch in $(seq 0 9); do
    curl -sf "http://127.0.0.1:$PORT$BASE/records/modify?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY" -d @"$WORK/seed-$batch.json" >/dev/null
done
for name in $CASES; do client "$name" 1; done
[ "$(curl -sf "http://127.0.0.1:$PORT$BASE/records/query?ckAPIToken=$TOKEN" -d @"$WORK/query.json" | grep -o '"recordName"' | wc -l)" = 1 ]
# The seeded data, kept: the wrk runs below add as many records as the machine's speed allows,
# and a create's instructions grow with the table, so the counted runs start again from here.
stop_server
cp -a "$DATA" "$WORK/seeded"
start_server normal

SUMMARY="$RESULTS/summary.tsv"
header="case\tinstructions\tmalloc\tcommits\tsyscalls\tcontext_switches\tfsync_normal\tfsync_full"
for connections in $CONNECTIONS; do header="$header\tinstructions_$connections\tmalloc_$connections\tcommits_$connections"; done
echo -e "$header" > "$SUMMARY"
declare -A INSTR MALLOC COMMITS SYSCALLS SWITCHES FSYNC_NORMAL FSYNC_FULL INSTR_C MALLOC_C COMMITS_C

# Syscalls and context switches, natively.
for name in $CASES; do
    client "$name" "$WARMUP"
    before="$(thread_switches)"
    served="$(wrk_case "$name" "$RESULTS/wrk-$name-switches.txt")"
    SWITCHES[$name]="$(awk -v s="$(( $(thread_switches) - before ))" -v n="$served" 'BEGIN {printf "%.2f", s / n}')"
    strace -c -f -q -p "$PID" -o "$RESULTS/strace-$name.txt" &
    TRACER=$!
    sleep 1
    served="$(wrk_case "$name" "$RESULTS/wrk-$name-strace.txt")"
    kill -INT "$TRACER"; wait "$TRACER" 2>/dev/null || true
    SYSCALLS[$name]="$(awk -v n="$served" '$NF == "total" {printf "%.2f", $(NF-2) / n}' "$RESULTS/strace-$name.txt")"
done
# fsyncs per create at NORMAL (the server already running) and at FULL.
if [[ " $CASES " == *" create "* ]]; then
    for mode in normal full; do
        [ "$mode" = full ] && { stop_server; start_server full; client create "$WARMUP"; }
        strace -f -q -e trace=fsync,fdatasync -o "$RESULTS/fsync-$mode.txt" -p "$PID" &
        TRACER=$!
        sleep 1
        served="$(wrk_case create "$RESULTS/wrk-create-fsync-$mode.txt")"
        kill -INT "$TRACER"; wait "$TRACER" 2>/dev/null || true
        value="$(awk -v n="$served" 'END {printf "%.3f", NR / n}' "$RESULTS/fsync-$mode.txt")"
        if [ "$mode" = normal ]; then FSYNC_NORMAL[create]="$value"; else FSYNC_FULL[create]="$value"; fi
    done
fi
stop_server

# Instructions, mallocs and commits, under callgrind, collecting only around the counted requests.
rm -rf "$DATA" && cp -a "$WORK/seeded" "$DATA"
start_server normal valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$RESULTS/callgrind.%p"
# The counted requests of one case, one after another or over several connections at once:
# prints "instructions malloc_calls commits" per request.
counted() {  # case label connections
    callgrind_control -z "$PID" >/dev/null
    callgrind_control -i on "$PID" >/dev/null
    client "$1" "$COUNT" "$3"
    callgrind_control -i off "$PID" >/dev/null
    callgrind_control -d "$2" "$PID" >/dev/null
    dump="$(ls -t "$RESULTS"/callgrind.*.* | head -1)"
    mv "$dump" "$RESULTS/callgrind-$2.out"
    python3 "$BENCH/profile_callgrind.py" "$RESULTS/callgrind-$2.out" |
        awk -v n="$COUNT" '{printf "%d %.1f %.2f\n", $1 / n, $2 / n, $3 / n}'
}
for name in $CASES; do
    client "$name" "$WARMUP"
    read -r "INSTR[$name]" "MALLOC[$name]" "COMMITS[$name]" < <(counted "$name" "$name" 1)
    for connections in $CONNECTIONS; do
        # Warmed up over as many connections too, so that the count finds every worker with
        # its SQLite connections open: opening one costs about a million instructions, once.
        client "$name" "$WARMUP" "$connections"
        read -r "INSTR_C[$name.$connections]" "MALLOC_C[$name.$connections]" "COMMITS_C[$name.$connections]" \
            < <(counted "$name" "$name-$connections-connections" "$connections")
    done
done
stop_server

for name in $CASES; do
    line="$name\t${INSTR[$name]}\t${MALLOC[$name]}\t${COMMITS[$name]}\t${SYSCALLS[$name]}\t${SWITCHES[$name]}\t${FSYNC_NORMAL[$name]:--}\t${FSYNC_FULL[$name]:--}"
    for connections in $CONNECTIONS; do
        line="$line\t${INSTR_C[$name.$connections]}\t${MALLOC_C[$name.$connections]}\t${COMMITS_C[$name.$connections]}"
    done
    echo -e "$line" >> "$SUMMARY"
done
{
    header="| per request | instructions | malloc calls | commits |"
    rule="|---|---|---|---|"
    for connections in $CONNECTIONS; do
        header="$header instructions, $connections connections | malloc calls, $connections connections | commits, $connections connections |"
        rule="$rule---|---|---|"
    done
    echo "$header syscalls (wrk -c64) | context switches (wrk -c64) | fsyncs, NORMAL | fsyncs (= commits), FULL |"
    echo "$rule---|---|---|---|"
    tail -n +2 "$SUMMARY" | awk -F'\t' '{
        line = sprintf("| %s | %\047d | %s | %s |", $1, $2, $3, $4)
        for (i = 9; i <= NF; i += 3) line = line sprintf(" %\047d | %s | %s |", $i, $(i + 1), $(i + 2))
        printf "%s %s | %s | %s | %s |\n", line, $5, $6, $7, $8
    }'
} | tee "$RESULTS/profile.md"
echo "raw results: $RESULTS"
