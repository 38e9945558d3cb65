#!/usr/bin/env bash
# SQLite against PostgreSQL, and one server against two, on the CloudKit Web Services API
# (release build, access log on), four configurations side by side:
#   sqlite   one `cumulus serve` on SQLite files in its data directory (the default, with
#            `--synchronous normal`: a commit survives a crash of the process, not power loss)
#   sqlite_full  the same with `--synchronous full` (an fsync per commit group, as PostgreSQL here)
#   pg       one `cumulus serve` on a PostgreSQL database (--database)
#   pg2      two `cumulus serve` processes on one PostgreSQL database, nginx in front
#            (one worker, keep-alive to both servers, as the compose file's postgres profile)
# and three workloads, each by a user signed in to their private database:
#   hot      records/modify creating one record per request, all in one zone
#   spread   the same, each request to a zone picked at random among ZONES zones
#   feed     changes/zone from a sync token picked at random among those a reader was handed
#            paging FEED_RECORDS records in pages of PAGE, asking PAGE changes; nothing writes
# wrk -t2 -c64 -d10s --latency (CONNECTIONS, DURATION), 127.0.0.1 only; ROUNDS rounds, each running every case
# on every configuration (configurations in a rotating order), so that noise on the shared
# machine falls on all of them alike. PostgreSQL runs a cluster of its own started here, with
# fsync and synchronous_commit on (durability is part of what is compared) and 256 MB of
# shared buffers. Server CPU per request counts, from /proc, the cumulus processes and, where
# they serve the configuration, PostgreSQL's processes and nginx.
#
# Usage: bench/postgres.sh   (ROUNDS 3, DURATION 10s, CONNECTIONS 64, ZONES 64, FEED_RECORDS 2000,
#                             PAGE 10; CASES="hot spread feed" and CONFIGS="sqlite sqlite_full pg pg2" choose;
#                             CUMULUS_BIN another build of cumulus)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
# 36 runs by default: wait at most 20 s before each for the machine to be quiet.
QUIET_WAIT="${QUIET_WAIT:-20}"
source "$BENCH/lib/measure.sh"
source "$ROOT/scripts/lib/postgres.sh"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"
ZONES="${ZONES:-64}"
FEED_RECORDS="${FEED_RECORDS:-2000}"
PAGE="${PAGE:-10}"
CASES="${CASES:-hot spread feed}"
CONFIGS="${CONFIGS:-sqlite sqlite_full pg pg2}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
command -v nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null; }

use_cumulus_binary
bench_workspace postgres
SERVERS=()          # every process started here, stopped on exit
POSTGRES_DIR=""
end_postgres_bench() {
    local pid
    for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    [ -n "$POSTGRES_DIR" ] && stop_test_postgres "$POSTGRES_DIR"
    rm -rf "$WORK"
}
trap end_postgres_bench EXIT

# MARK: - PostgreSQL, durable

# As start_test_postgres, with fsync and synchronous commits on: a cluster on a free port of
# 127.0.0.1, its files in a temporary directory owned by `nobody` when we are root.
start_bench_postgres() {
    local bindir port
    bindir=$(pg_config --bindir)
    POSTGRES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cumulus-postgres-bench.XXXXXX")
    [ "$(id -u)" = 0 ] && chown nobody:nogroup "$POSTGRES_DIR"
    port=$(free_port)
    as_cluster_owner "$bindir/initdb" -D "$POSTGRES_DIR/data" -U cumulus -A trust -E UTF8 --locale=C >/dev/null
    as_cluster_owner "$bindir/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w -s \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $POSTGRES_DIR -c fsync=on -c synchronous_commit=on -c shared_buffers=256MB -c max_connections=500" \
        start >/dev/null
    POSTGRES_URL="postgres://cumulus@127.0.0.1:$port/postgres"
    POSTGRES_PID=$(head -1 "$POSTGRES_DIR/data/postmaster.pid")
}

# MARK: - Servers

# serve NAME DATA_DIR [serve flags…]: a `cumulus serve` on a free port; sets PORT and SERVED
# (its process id); its log in WORK/NAME.log.
serve() {
    local name="$1" dir="$2"
    shift 2
    PORT="$(free_port)"
    "$CUMULUS" serve --host 127.0.0.1 --port "$PORT" --data-dir "$dir" --no-demo \
        --templates-dir "$ROOT/Templates" --public-dir "$ROOT/Public" "$@" >"$WORK/$name.log" 2>&1 &
    SERVED=$!
    SERVERS+=("$SERVED")
    wait_for_url "http://127.0.0.1:$PORT/readyz"
}

# nginx_in_front NAME PORT…: nginx on a free port balancing over the servers; sets PORT and
# NGINX_PID.
nginx_in_front() {
    local name="$1" servers="" upstream
    shift
    for upstream in "$@"; do servers+="        server 127.0.0.1:$upstream;"$'\n'; done
    PORT="$(free_port)"
    mkdir -p "$WORK/$name-nginx/temp"
    cat > "$WORK/$name-nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/$name-nginx/nginx.pid;
error_log $WORK/$name-nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    # Bodies stay in memory: the workers (nobody, when started by root) may not write here.
    client_body_buffer_size 1m;
    client_body_temp_path $WORK/$name-nginx/temp/body;
    proxy_temp_path $WORK/$name-nginx/temp/proxy;
    fastcgi_temp_path $WORK/$name-nginx/temp/fastcgi;
    uwsgi_temp_path $WORK/$name-nginx/temp/uwsgi;
    scgi_temp_path $WORK/$name-nginx/temp/scgi;
    upstream cumulus {
$servers        keepalive 64;
    }
    server {
        listen 127.0.0.1:$PORT;
        location / {
            proxy_pass http://cumulus;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_read_timeout 3600s;
            proxy_buffering off;
        }
    }
}
CONF
    nginx -c "$WORK/$name-nginx/nginx.conf" -p "$WORK/$name-nginx" &
    NGINX_PID=$!
    SERVERS+=("$NGINX_PID")
    wait_for_url "http://127.0.0.1:$PORT/healthz"
}

FIELDS='"title":{"value":"A moderately long note title for benchmarking"},"body":{"value":"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore"},"count":{"value":42}'
printf '{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{%s}}}],"zoneID":{"zoneName":"hot"},"desiredKeys":[]}' \
    "$FIELDS" > "$WORK/hot.json"

# prepare CONFIG: its container (with the user and token), the zones, the feed's records and the
# tokens a reader was handed for them; the configuration's URL in URL_<config>, its processes in
# CUMULUS_<config> (the cumulus processes), PG_<config> and NGINX_<config> (or empty).
prepare() {
    local config="$1" base query
    python3 - "$BASE_URL" "$CONTAINER" "$TOKEN" "$WEB_QUERY" "$ZONES" "$FEED_RECORDS" "$PAGE" "$FIELDS" \
        > "$WORK/tokens-$config.txt" <<'PY'
import http.client, json, sys
from urllib.parse import urlsplit
base, container, token, web, zones, records, page, fields = sys.argv[1:9]
zones, records, page = int(zones), int(records), int(page)
fields = json.loads("{" + fields + "}")
target = urlsplit(base)
connection = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
def call(operation, body):
    connection.request("POST", f"/database/1/{container}/development/private/{operation}?ckAPIToken={token}&ckWebAuthToken={web}",
                       body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    payload = response.read()
    if response.status != 200:
        raise SystemExit(f"{operation}: {response.status} {payload[:300]!r}")
    return json.loads(payload)
names = ["hot", "feed"] + [f"z{index}" for index in range(zones)]
call("zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": name}}} for name in names]})
for start in range(0, records, 200):
    call("records/modify", {"zoneID": {"zoneName": "feed"}, "desiredKeys": [], "operations": [
        {"operationType": "create", "record": {"recordType": "Note", "fields": fields}} for _ in range(start, min(start + 200, records))]})
sync_token, seen = None, 0
while True:
    zone = {"zoneID": {"zoneName": "feed"}, "resultsLimit": page}
    if sync_token:
        zone["syncToken"] = sync_token
        print(sync_token)
    answer = call("changes/zone", {"zones": [zone]})["zones"][0]
    seen += len(answer["records"])
    sync_token = answer["syncToken"]
    if not answer["moreComing"]:
        break
assert seen == records, (seen, records)
PY
    base="$BASE_URL/database/1/$CONTAINER/development/private"
    query="?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY"
    # A request that fails would still count in wrk's rate: check each kind once first.
    curl -sf "$base/records/modify$query" -d @"$WORK/hot.json" | grep -q '"recordChangeTag"'
    curl -sf "$base/records/modify$query" -d "{\"operations\":[{\"operationType\":\"create\",\"record\":{\"recordType\":\"Note\",\"fields\":{$FIELDS}}}],\"zoneID\":{\"zoneName\":\"z$((ZONES - 1))\"}}" \
        | grep -q '"recordChangeTag"'
    curl -sf "$base/changes/zone$query" -d "{\"zones\":[{\"zoneID\":{\"zoneName\":\"feed\"},\"syncToken\":\"$(head -1 "$WORK/tokens-$config.txt")\",\"resultsLimit\":$PAGE}]}" \
        | grep -q '"recordChangeTag"'
    printf -v "URL_$config" '%s' "$base"
    printf -v "QUERY_$config" '%s' "$query"
}

CONFIG_LIST=($CONFIGS)
if [[ " $CONFIGS " == *" pg"* ]]; then
    start_bench_postgres
    echo "PostgreSQL $(pg_config --version | awk '{print $2}') at $POSTGRES_URL (fsync on)"
fi
for config in "${CONFIG_LIST[@]}"; do
    case "$config" in
    sqlite | sqlite_full)
        mkdir -p -m 700 "$WORK/$config"
        make_bench_container "$WORK/$config" "$BENCH/lib/notes.ckdb"
        serve "$config" "$WORK/$config" --synchronous "$([ "$config" = sqlite ] && echo normal || echo full)"
        BASE_URL="http://127.0.0.1:$PORT"
        printf -v "CUMULUS_$config" '%s' "$SERVED"
        printf -v "PG_$config" '%s' ""
        printf -v "NGINX_$config" '%s' ""
        ;;
    pg | pg2)
        psql "$POSTGRES_URL" -qc "CREATE DATABASE bench_$config"
        database="${POSTGRES_URL%/*}/bench_$config"
        mkdir -p -m 700 "$WORK/$config-a" "$WORK/$config-b" "$WORK/$config-assets"
        CUMULUS_DATABASE_URL="$database" make_bench_container "$WORK/$config-a" "$BENCH/lib/notes.ckdb"
        serve "$config-a" "$WORK/$config-a" --database-url "$database" --assets "$WORK/$config-assets"
        BASE_URL="http://127.0.0.1:$PORT" first="$SERVED" first_port="$PORT"
        printf -v "CUMULUS_$config" '%s' "$first"
        printf -v "PG_$config" '%s' "$POSTGRES_PID"
        printf -v "NGINX_$config" '%s' ""
        if [ "$config" = pg2 ]; then
            serve "$config-b" "$WORK/$config-b" --database-url "$database" --assets "$WORK/$config-assets"
            second="$SERVED" second_port="$PORT"
            nginx_in_front "$config" "$first_port" "$second_port"
            BASE_URL="http://127.0.0.1:$PORT"
            printf -v "CUMULUS_$config" '%s' "$first $second"
            printf -v "NGINX_$config" '%s' "$NGINX_PID"
        fi
        ;;
    *) echo "unknown configuration $config" >&2; exit 1 ;;
    esac
    prepare "$config"
    echo "$config ready at $BASE_URL ($(wc -l < "$WORK/tokens-$config.txt") feed tokens)"
done

# MARK: - Measuring

# ticks_of PIDS…: the CPU ticks (user + system) of the processes and their children.
ticks_of() {
    local total=0 pid u s
    for pid in "$@"; do
        read -r u s <<< "$(tree_ticks "$pid")"
        total=$((total + u + s))
    done
    echo "$total"
}

# measured CONFIG OUT wrk-arguments…: one wrk run; prints req/s, p99 ms, errors, CPU busy before %,
# then CPU seconds of the cumulus processes, PostgreSQL, nginx and wrk, and other work's CPU %.
# PostgreSQL's CPU is counted for every configuration (for sqlite it is the idle PostgreSQL
# servers' background work) but charged only to those it serves.
measured() {
    local config="$1" out="$2" seconds="${DURATION%s}"
    shift 2
    local cumulus_pids pg_pid nginx_pid load c0 p0 n0 c1 p1 n1 busy0 busy wrk_ticks foreign errors
    cumulus_pids="CUMULUS_$config" pg_pid="PG_$config" nginx_pid="NGINX_$config"
    cumulus_pids=(${!cumulus_pids}) pg_pid="${!pg_pid}" nginx_pid="${!nginx_pid}"
    load="$(wait_for_quiet)"
    c0=$(ticks_of "${cumulus_pids[@]}") p0=$(ticks_of ${POSTGRES_PID:-}) n0=$(ticks_of $nginx_pid) busy0=$(busy_ticks)
    /usr/bin/time -f "%U %S" -o "$out.time" wrk -d"${seconds}s" "$@" > "$out"
    busy=$(( $(busy_ticks) - busy0 ))
    c1=$(ticks_of "${cumulus_pids[@]}") p1=$(ticks_of ${POSTGRES_PID:-}) n1=$(ticks_of $nginx_pid)
    wrk_ticks="$(awk '{printf "%d", ($1 + $2) * 100}' "$out.time")"
    foreign=$(( busy - (c1 - c0) - (p1 - p0) - (n1 - n0) - wrk_ticks ))
    [ "$foreign" -lt 0 ] && foreign=0
    errors="$(grep -E 'Non-2xx|Socket errors' "$out" | tr -s ' ' | paste -sd';' - || true)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$(awk '/^Requests\/sec/ {print $2}' "$out")" \
        "$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")" \
        "${errors:-none}" "$load" \
        "$(awk -v t=$((c1 - c0)) 'BEGIN {printf "%.2f", t / 100}')" \
        "$(awk -v t=$((p1 - p0)) 'BEGIN {printf "%.2f", t / 100}')" \
        "$(awk -v t=$((n1 - n0)) 'BEGIN {printf "%.2f", t / 100}')" \
        "$(awk -v t="$wrk_ticks" 'BEGIN {printf "%.2f", t / 100}')" \
        "$(( 100 * foreign / ($(nproc) * seconds * 100) ))" \
        "${pg_pid:+yes}"
}

SUMMARY="$RESULTS/summary.tsv"
echo -e "case\tconfig\tround\trequests_per_s\tp99_ms\terrors\tcpu_busy_before\tcumulus_cpu_s\tpostgres_cpu_s\tnginx_cpu_s\twrk_cpu_s\tforeign_cpu_pct\ton_postgres" > "$SUMMARY"
for round in $(seq 1 "$ROUNDS"); do
    # Rotate the order of the configurations from round to round.
    shift_by=$(( (round - 1) % ${#CONFIG_LIST[@]} ))
    order=("${CONFIG_LIST[@]:$shift_by}" "${CONFIG_LIST[@]:0:$shift_by}")
    for case in $CASES; do
        for config in "${order[@]}"; do
            url="URL_$config" query="QUERY_$config"
            url="${!url}" query="${!query}"
            out="$RESULTS/wrk-$case-$config-$round.txt"
            case "$case" in
            hot) line="$(BODY="$WORK/hot.json" measured "$config" "$out" -t2 -c"$CONNECTIONS" --latency \
                    -s "$BENCH/wrk/post.lua" "$url/records/modify$query")" ;;
            spread) line="$(ZONES="$ZONES" FIELDS="$FIELDS" measured "$config" "$out" -t2 -c"$CONNECTIONS" --latency \
                    -s "$BENCH/wrk/create_zoned.lua" "$url/records/modify$query")" ;;
            feed) line="$(ZONE=feed PAGE="$PAGE" TOKENS="$WORK/tokens-$config.txt" measured "$config" "$out" -t2 -c"$CONNECTIONS" --latency \
                    -s "$BENCH/wrk/changes_zone.lua" "$url/changes/zone$query")" ;;
            *) echo "unknown case $case" >&2; exit 1 ;;
            esac
            printf '%s\t%s\t%s\t%s\n' "$case" "$config" "$round" "$line" | tee -a "$SUMMARY"
            sleep 1
        done
    done
done

# MARK: - Report

# What the servers logged beyond their access lines (warnings, errors), and every answer of 500
# or above, kept with the results.
for config in "${CONFIG_LIST[@]}"; do
    for log in "$WORK/$config"*.log; do
        [ -f "$log" ] || continue
        grep -vE '^[0-9TZ:.+-]+ (info|notice) ' "$log" | head -200 > "$RESULTS/$(basename "$log" .log)-log.txt" || true
        grep -E '" 5[0-9][0-9] | status=5[0-9][0-9]' "$log" | head -50 >> "$RESULTS/$(basename "$log" .log)-log.txt" || true
    done
done
[ -n "$POSTGRES_DIR" ] && grep -E 'ERROR|FATAL|PANIC|WARNING' "$POSTGRES_DIR/server.log" | head -200 > "$RESULTS/postgres-log.txt" || true
echo "server VmRSS after the runs:" | tee "$RESULTS/rss.txt"
for config in "${CONFIG_LIST[@]}"; do
    pids="CUMULUS_$config"
    for pid in ${!pids}; do echo "  $config: $(awk '/VmRSS/ {print $2, $3}' "/proc/$pid/status")" | tee -a "$RESULTS/rss.txt"; done
done
[ -n "$POSTGRES_DIR" ] && echo "  PostgreSQL databases: $(psql "$POSTGRES_URL" -Atc "SELECT string_agg(datname || ' ' || pg_size_pretty(pg_database_size(datname)), ', ') FROM pg_database WHERE datname LIKE 'bench_%'")" | tee -a "$RESULTS/rss.txt"

python3 - "$SUMMARY" "${DURATION%s}" "$CONFIGS" <<'PY' | tee "$RESULTS/medians.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
duration, configs = float(sys.argv[2]), sys.argv[3].split()
cases = {"hot": "create 1 record, one zone", "spread": "create 1 record, a random zone of many",
         "feed": "changes/zone from a random token, small pages"}
labels = {"sqlite": "SQLite, 1 server", "sqlite_full": "SQLite `full`, 1 server", "pg": "PostgreSQL, 1 server", "pg2": "PostgreSQL, 2 servers + nginx"}
print("| workload | configuration | rounds: req/s (other work's CPU %) | median req/s | median p99 | server CPU per request (cumulus + PostgreSQL + nginx) | errors |")
print("|---|---|---|---|---|---|---|")
for case, what in cases.items():
    for config in configs:
        picked = [r for r in rows if r["case"] == case and r["config"] == config]
        if not picked:
            continue
        rps = [float(r["requests_per_s"]) for r in picked]
        p99 = [float(r["p99_ms"]) for r in picked]
        def per_request(r, column):
            return float(r[column]) / (float(r["requests_per_s"]) * duration) * 1e6
        parts = ["cumulus_cpu_s"] + (["postgres_cpu_s"] if picked[0]["on_postgres"] else []) + (["nginx_cpu_s"] if config == "pg2" else [])
        cost = statistics.median(sum(per_request(r, c) for c in parts) for r in picked)
        split = " + ".join(f"{statistics.median(per_request(r, c) for r in picked):,.0f}" for c in parts)
        rounds = " / ".join(f"{float(r['requests_per_s']):,.0f} ({r['foreign_cpu_pct']}%)" for r in picked)
        errors = "; ".join(sorted({r["errors"] for r in picked if r["errors"] != "none"})) or "none"
        print(f"| {what} | {labels[config]} | {rounds} | **{statistics.median(rps):,.0f}** | {statistics.median(p99):.2f} ms "
              f"| {cost:,.0f} µs ({split}) | {errors} |")
PY
echo "raw results: $RESULTS"
