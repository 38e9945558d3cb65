#!/usr/bin/env bash
# Holds 10,000 idle keep-alive connections against `cumulus serve` (the client is a separate
# Python process) and reports the server's RSS from /proc/PID/status, plus the latency of a
# normal request made while they are open.
#
# Usage: bench/idle.sh [connections]     (default 10000; `ulimit -n` must allow it)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
COUNT="${1:-10000}"

(cd "$ROOT" && swift build -c release --product cumulus 2>&1 | tail -1)
WORK="$(mktemp -d /tmp/cumulus-idle.XXXXXX)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
RESULTS="$BENCH/results/idle-$(date -u +%Y%m%dT%H%M%SZ).txt"
mkdir -p "$BENCH/results"

# Room for the held connections plus the probe request.
CUMULUS_MAX_CONNECTIONS=$((COUNT + 100)) CUMULUS_MAX_CONNECTIONS_PER_CLIENT=$((COUNT + 100)) "$ROOT/.build/release/cumulus" serve --host 127.0.0.1 --port "$PORT" \
    --data-dir "$WORK/data" --public-dir "$WORK" --templates-dir "$ROOT/Templates" --no-demo >/dev/null &
SERVER=$!
cleanup() { kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 1 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done

rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVER/status"; }
threads() { awk '/Threads/ {print $2}' "/proc/$SERVER/status"; }
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  cores: $(nproc)  connections: $COUNT"
    echo "server RSS before: $(rss) kB, threads: $(threads)"
} | tee "$RESULTS"

FIFO="$WORK/control"
mkfifo "$FIFO"
python3 "$BENCH/idle_clients.py" "$PORT" "$COUNT" < "$FIFO" > "$WORK/clients.out" &
CLIENTS=$!
exec 4> "$FIFO"
for _ in $(seq 1 600); do grep -q '^open' "$WORK/clients.out" 2>/dev/null && break; sleep 0.1; done
{
    cat "$WORK/clients.out"
    echo "open connections seen by the kernel: $(ls /proc/$SERVER/fd | wc -l) descriptors in the server"
    echo "server RSS with $COUNT idle connections: $(rss) kB ($(( $(rss) / 1024 )) MiB), threads: $(threads)"
    echo "a normal request meanwhile: $(curl -s -o /dev/null -w '%{http_code} in %{time_total}s' "http://127.0.0.1:$PORT/healthz")"
} | tee -a "$RESULTS"
echo stop >&4
exec 4>&-
wait "$CLIENTS"
sleep 1
echo "server RSS after they closed: $(rss) kB" | tee -a "$RESULTS"
echo "results: $RESULTS"
