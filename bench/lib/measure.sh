# Shared by the bench scripts (sourced): free ports, waiting for a quiet machine, and one wrk
# run measured with the CPU it cost the server, wrk itself and other work on the machine.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# Waits until something answers 2xx at the URL (up to 10 s).
wait_for_url() {
    for _ in $(seq 1 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
    echo "nothing answered at $1" >&2
    return 1
}

# wrk prints latencies as 512.00us, 1.23ms or 1.02s: convert to milliseconds.
to_ms() { awk -v v="$1" 'BEGIN { if (v ~ /us$/) { sub(/us$/,"",v); printf "%.2f", v/1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v); printf "%.2f", v } else if (v ~ /s$/) { sub(/s$/,"",v); printf "%.2f", v*1000 } else print v }'; }

# The machine may be shared with other work: before each run wait (up to QUIET_WAIT seconds)
# until the CPUs are nearly idle for a second, and record how busy they were.
QUIET_WAIT="${QUIET_WAIT:-120}"
cpu_busy_percent() {
    read -r _ a1 a2 a3 a4 a5 a6 a7 a8 _ < /proc/stat
    sleep 1
    read -r _ b1 b2 b3 b4 b5 b6 b7 b8 _ < /proc/stat
    local total=$(( (b1+b2+b3+b4+b5+b6+b7+b8) - (a1+a2+a3+a4+a5+a6+a7+a8) ))
    echo $(( 100 * (total - (b4 - a4)) / (total > 0 ? total : 1) ))
}
wait_for_quiet() {
    local waited=0 busy
    busy="$(cpu_busy_percent)"
    while [ "$busy" -gt 10 ] && [ "$waited" -lt "$QUIET_WAIT" ]; do
        sleep 2; waited=$((waited + 3)); busy="$(cpu_busy_percent)"
    done
    echo "$busy"
}

# CPU ticks of a process and its children (nginx's workers), as "user system" (utime, stime),
# read in one pass so that both are taken at the same moment.
tree_ticks() {
    local user=0 system=0 pid u s
    for pid in "$1" $(pgrep -P "$1" || true); do
        read -r u s < <(awk '{print $14, $15}' "/proc/$pid/stat")
        user=$((user + u)) system=$((system + s))
    done
    echo "$user $system"
}
busy_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }

# measured_wrk OUT SERVER_PID SECONDS wrk-arguments…
# Runs wrk (its report in OUT) and prints one tab-separated line:
#   req/s  p99 ms  errors  CPU busy before %  server CPU s  wrk CPU s  other work's CPU %
#   server user CPU s  server system CPU s
measured_wrk() {
    local out="$1" pid="$2" seconds="$3"
    shift 3
    local load user_before system_before user_after system_after busy_before busy_run server_ticks user_ticks wrk_ticks foreign errors
    load="$(wait_for_quiet)"
    read -r user_before system_before <<< "$(tree_ticks "$pid")"
    busy_before="$(busy_ticks)"
    /usr/bin/time -f "%U %S" -o "$out.time" wrk -d"${seconds}s" "$@" > "$out"
    busy_run=$(( $(busy_ticks) - busy_before ))
    read -r user_after system_after <<< "$(tree_ticks "$pid")"
    user_ticks=$(( user_after - user_before ))
    server_ticks=$(( user_ticks + system_after - system_before ))
    wrk_ticks="$(awk '{printf "%d", ($1 + $2) * 100}' "$out.time")"
    # CPU used during the run by anything but this server and wrk (other work on the machine).
    foreign=$(( busy_run - server_ticks - wrk_ticks ))
    [ "$foreign" -lt 0 ] && foreign=0
    errors="$(grep -E 'Non-2xx|Socket errors' "$out" | tr -s ' ' | paste -sd';' - || true)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$(awk '/^Requests\/sec/ {print $2}' "$out")" \
        "$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")" \
        "${errors:-none}" \
        "$load" \
        "$(awk -v t="$server_ticks" 'BEGIN {printf "%.2f", t / 100}')" \
        "$(awk -v t="$wrk_ticks" 'BEGIN {printf "%.2f", t / 100}')" \
        "$(( 100 * foreign / ($(nproc) * seconds * 100) ))" \
        "$(awk -v t="$user_ticks" 'BEGIN {printf "%.2f", t / 100}')" \
        "$(awk -v t="$(( server_ticks - user_ticks ))" 'BEGIN {printf "%.2f", t / 100}')"
}

# Sets CUMULUS to the binary to measure: CUMULUS_BIN (another build, such as an earlier commit's,
# to compare) or else this checkout's release build, built now.
use_cumulus_binary() {
    if [ -n "${CUMULUS_BIN:-}" ]; then
        CUMULUS="$CUMULUS_BIN"
    else
        echo "building cumulus (release)…"
        (cd "$ROOT" && swift build -c release --product cumulus 2>&1 | tail -1)
        CUMULUS="$ROOT/.build/release/cumulus"
    fi
}

# public_type_schema TYPE FILE: writes to FILE a schema of one record type TYPE with a title,
# readable by the world and created and written by any signed-in user.
public_type_schema() {
    cat > "$2" <<SCHEMA
DEFINE SCHEMA
    RECORD TYPE $1 (
        "___recordID" REFERENCE QUERYABLE,
        title STRING,
        GRANT READ TO "_world",
        GRANT CREATE TO "_icloud",
        GRANT WRITE TO "_icloud"
    );
SCHEMA
}

# make_bench_container DATA_DIR SCHEMA_FILE: creates iCloud.com.example.Bench in DATA_DIR with
# the schema, an API token (TOKEN) and a user `bench` signed in for two weeks (WEB, and
# WEB_QUERY percent-encoded for a URL), with $CUMULUS. Its development rate limit is set far
# above what this machine serves, so the limit is checked on every request and never refuses
# one (builds from before limits have no `limits` command, and nothing to set).
make_bench_container() {
    CONTAINER=iCloud.com.example.Bench
    "$CUMULUS" containers create "$CONTAINER" --data-dir "$1" >/dev/null
    TOKEN="$("$CUMULUS" tokens create --container "$CONTAINER" --data-dir "$1")"
    printf '%s\n' 'bench password' | "$CUMULUS" users add --container "$CONTAINER" bench --data-dir "$1" >/dev/null
    WEB="$(printf '%s\n' 'bench password' | "$CUMULUS" users token --container "$CONTAINER" bench --keep-signed-in --data-dir "$1")"
    WEB_QUERY="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$WEB")"
    "$CUMULUS" import-schema --file "$2" --container "$CONTAINER" --data-dir "$1" >/dev/null
    if "$CUMULUS" --help 2>/dev/null | grep -q "^  limits "; then
        "$CUMULUS" limits --container "$CONTAINER" --requests-per-second 1000000 --burst 1000000 --data-dir "$1" >/dev/null
    fi
}

# bench_workspace NAME: RESULTS (bench/results/NAME-<UTC time>), and WORK, a temporary directory
# holding DATA, removed on exit after the server (PID, once serve_bench set it) is stopped.
bench_workspace() {
    RESULTS="$BENCH/results/$1-$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "$RESULTS"
    WORK="$(mktemp -d "/tmp/cumulus-$1-bench.XXXXXX")"
    DATA="$WORK/data"
    PID=""
    trap 'end_bench_workspace' EXIT
}
end_bench_workspace() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }

# serve_bench: `cumulus serve` on DATA at a free port of 127.0.0.1 (PORT, PID), access log on,
# answering before this returns.
serve_bench() {
    PORT="$(free_port)"
    "$CUMULUS" serve --host 127.0.0.1 --port "$PORT" --data-dir "$DATA" --no-demo \
        --templates-dir "$ROOT/Templates" --public-dir "$ROOT/Public" >"${SERVE_LOG:-/dev/null}" &
    PID=$!
    wait_for_url "http://127.0.0.1:$PORT/healthz"
}

# latency_header SUMMARY: starts a summary of latency_rounds lines.
latency_header() {
    echo -e "case\tround\trequests_per_s\tp50_ms\tp99_ms\terrors\tcpu_busy_before\tserver_cpu_s\twrk_cpu_s\tforeign_cpu_pct" > "$1"
}

# latency_rounds SUMMARY NAME URL wrk-arguments…: ROUNDS runs of one client asking after
# another (wrk -t1 -c1 --latency, so each latency is one answer's), each a line of SUMMARY.
latency_rounds() {
    local summary="$1" name="$2" url="$3" round out measured p50
    shift 3
    for round in $(seq 1 "$ROUNDS"); do
        out="$RESULTS/wrk-$name-$round.txt"
        measured="$(measured_wrk "$out" "$PID" "${DURATION%s}" -t1 -c1 --latency "$@" "$url")"
        p50="$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")")"
        printf '%s\t%s\t%s\n' "$name" "$round" "$(echo "$measured" | awk -F'\t' -v p50="$p50" 'BEGIN {OFS="\t"} {print $1, p50, $2, $3, $4, $5, $6, $7}')" \
            | tee -a "$summary"
        sleep 1
    done
}

# latency_table SUMMARY "WHAT" "case=label"…: the medians of latency_rounds as a Markdown table.
latency_table() {
    python3 - "$@" "${DURATION%s}" <<'PY'
import csv, statistics, sys
summary, what, pairs, duration = sys.argv[1], sys.argv[2], sys.argv[3:-1], float(sys.argv[-1])
rows = list(csv.DictReader(open(summary), delimiter="\t"))
print(f"| {what} | rounds: p50 / p99 ms | median p50 | median p99 | server CPU per answer | target |")
print("|---|---|---|---|---|---|")
for case, name in (pair.split("=", 1) for pair in pairs):
    picked = [r for r in rows if r["case"] == case]
    if not picked:
        continue
    cost = [float(r["server_cpu_s"]) / (float(r["requests_per_s"]) * duration) * 1e6 for r in picked]
    rounds = " · ".join(f"{float(r['p50_ms']):.2f} / {float(r['p99_ms']):.2f}" for r in picked)
    print(f"| {name} | {rounds} | **{statistics.median(float(r['p50_ms']) for r in picked):.2f} ms** "
          f"| **{statistics.median(float(r['p99_ms']) for r in picked):.2f} ms** | {statistics.median(cost):,.0f} µs | < 50 ms |")
PY
}
