#!/usr/bin/env bash
# HTTP throughput on a small JSON route: `cumulus serve` /healthz (on the event loop, and on the
# worker pool) vs a Hummingbird 2 server returning the same bytes vs nginx serving the same bytes
# as a static file. wrk -t2 -c64 -d10s --latency against each in turn, three rounds, with
# keep-alive and with `Connection: close`. Everything listens on 127.0.0.1 only.
#
# Usage: bench/http.sh            (ROUNDS, DURATION, CONNECTIONS override the defaults; CUMULUS_BIN
#                                 measures another build of cumulus)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"

install_missing() {
    local missing=()
    command -v wrk >/dev/null || missing+=(wrk)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
    if [ "${#missing[@]}" -gt 0 ]; then
        apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}
install_missing
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

echo "building cumulus and the Hummingbird baseline (release)…"
use_cumulus_binary
(cd "$BENCH" && swift build -c release --product HummingbirdHealthz 2>&1 | tail -1)
HUMMINGBIRD="$BENCH/.build/release/HummingbirdHealthz"

RESULTS="$BENCH/results/http-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$RESULTS"
WORK="$(mktemp -d /tmp/cumulus-bench.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/public" "$WORK/data" "$WORK/nginx"

PORT_CUMULUS="$(free_port)"; PORT_POOL="$(free_port)"; PORT_HB="$(free_port)"; PORT_NGINX="$(free_port)"

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# The access log is on (one line per request through swift-log's buffered handler); it goes to
# /dev/null so that runs do not fill the disk.
"$CUMULUS" serve --host 127.0.0.1 --port "$PORT_CUMULUS" --data-dir "$WORK/data" --public-dir "$WORK/public" --templates-dir "$ROOT/Templates" --no-demo >/dev/null &
PIDS+=($!); PID_CUMULUS=$!
CUMULUS_HEALTHZ_ON_EVENT_LOOP=false "$CUMULUS" serve --host 127.0.0.1 --port "$PORT_POOL" --data-dir "$WORK/data-pool" --public-dir "$WORK/public" --templates-dir "$ROOT/Templates" --no-demo >/dev/null &
PIDS+=($!); PID_POOL=$!
"$HUMMINGBIRD" "$PORT_HB" >/dev/null 2>&1 &
PIDS+=($!); PID_HB=$!

# nginx serves the same bytes as /healthz as a file, with the same content type.
printf '%s' '{"status":"ok","version":"0.1.0","uptimeSeconds":0}' > "$WORK/nginx/healthz"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    open_file_cache max=100;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    server {
        listen 127.0.0.1:$PORT_NGINX;
        root $WORK/nginx;
        location = /healthz {
            default_type application/json;
            charset utf-8;
            charset_types application/json;
            add_header X-Request-Id \$request_id;
        }
    }
}
CONF
"$NGINX" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g 'daemon off;' 2>>"$RESULTS/nginx-stderr.log" &
PIDS+=($!)

for port in "$PORT_CUMULUS" "$PORT_POOL" "$PORT_HB" "$PORT_NGINX"; do
    wait_for_url "http://127.0.0.1:$port/healthz"
done
for target in cumulus:$PORT_CUMULUS pool:$PORT_POOL hummingbird:$PORT_HB nginx:$PORT_NGINX; do
    echo "--- ${target%%:*}: curl -si /healthz" >> "$RESULTS/responses.txt"
    curl -si "http://127.0.0.1:${target##*:}/healthz" >> "$RESULTS/responses.txt"
    echo >> "$RESULTS/responses.txt"
done

SUMMARY="$RESULTS/summary.tsv"
echo -e "mode\ttarget\tround\trequests_per_s\tp99_ms\terrors\tcpu_busy_before\tserver_cpu_s\twrk_cpu_s\tforeign_cpu_pct\tserver_user_s\tserver_system_s" > "$SUMMARY"
TARGETS="cumulus pool hummingbird nginx"
port_of() { case "$1" in cumulus) echo "$PORT_CUMULUS";; pool) echo "$PORT_POOL";; hummingbird) echo "$PORT_HB";; nginx) echo "$PORT_NGINX";; esac; }
PID_NGINX_MASTER="$(cat "$WORK/nginx/nginx.pid")"
pid_of() { case "$1" in cumulus) echo "$PID_CUMULUS";; pool) echo "$PID_POOL";; hummingbird) echo "$PID_HB";; nginx) echo "$PID_NGINX_MASTER";; esac; }
for mode in keepalive close; do
    for round in $(seq 1 "$ROUNDS"); do
        for target in $TARGETS; do
            extra=()
            [ "$mode" = close ] && extra=(-H 'Connection: close')
            out="$RESULTS/wrk-$mode-$target-$round.txt"
            measured="$(measured_wrk "$out" "$(pid_of "$target")" "${DURATION%s}" \
                -t2 -c"$CONNECTIONS" --latency "${extra[@]}" "http://127.0.0.1:$(port_of "$target")/healthz")"
            IFS=$'\t' read -r rps p99 errors load server_s wrk_s foreign_pct user_s system_s <<< "$measured"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s%%\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$target" "$round" "$rps" "$p99" "$errors" "$load" \
                "$server_s" "$wrk_s" "$foreign_pct" "$user_s" "$system_s" | tee -a "$SUMMARY"
        done
    done
done

for name in cumulus:$PID_CUMULUS pool:$PID_POOL hummingbird:$PID_HB; do
    echo "${name%%:*} VmRSS after the runs: $(awk '/VmRSS/ {print $2, $3}' "/proc/${name##*:}/status")" >> "$RESULTS/rss.txt"
done

python3 - "$SUMMARY" "${DURATION%s}" <<'PY' | tee "$RESULTS/medians.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
DURATION = float(sys.argv[2])
names = {"cumulus": "Cumulus /healthz (event loop)", "pool": "Cumulus /healthz (worker pool)",
         "hummingbird": "Hummingbird 2.28 /healthz", "nginx": "nginx static file"}
CLEAN = 10  # runs where other work used more than this % of the CPUs are set apart
for mode in ("keepalive", "close"):
    print(f"\n{'keep-alive' if mode == 'keepalive' else 'Connection: close'}\n")
    print("| server | rounds: req/s (other work's CPU %) | median req/s | median req/s, clean rounds | median p99 | server CPU per request |")
    print("|---|---|---|---|---|---|")
    med, clean_med = {}, {}
    for target in ("cumulus", "pool", "hummingbird", "nginx"):
        picked = [r for r in rows if r["mode"] == mode and r["target"] == target]
        rps = [float(r["requests_per_s"]) for r in picked]
        p99 = [float(r["p99_ms"]) for r in picked]
        clean = [float(r["requests_per_s"]) for r in picked if int(r["foreign_cpu_pct"]) <= CLEAN]
        cost = [float(r["server_cpu_s"]) / (float(r["requests_per_s"]) * DURATION) * 1000 for r in picked]
        med[target] = statistics.median(rps)
        clean_med[target] = statistics.median(clean) if clean else float("nan")
        rounds = " / ".join(f"{float(r['requests_per_s']):,.0f} ({r['foreign_cpu_pct']}%)" for r in picked)
        print(f"| {names[target]} | {rounds} | **{med[target]:,.0f}** | {clean_med[target]:,.0f} ({len(clean)} of {len(picked)}) "
              f"| {statistics.median(p99):.2f} ms | {statistics.median(cost) * 1000:.1f} µs |")
    print()
    for target in ("cumulus", "pool"):
        print(f"- {names[target]}: {med[target]/med['hummingbird']:.2f}× Hummingbird, {med[target]/med['nginx']:.2f}× nginx "
              f"(clean rounds: {clean_med[target]/clean_med['hummingbird']:.2f}×, {clean_med[target]/clean_med['nginx']:.2f}×)")
PY
echo "raw results: $RESULTS"
