#!/usr/bin/env bash
# Starts a throw-away PostgreSQL cluster for tests and prints its URL. With a process id, a
# watcher stops the cluster and removes its files once that process has ended: how the Swift
# tests get a cluster when the test script has not started one for them.
#
#   scripts/test-postgres.sh [PID]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
start_test_postgres
if [ $# -ge 1 ]; then
    watched=$1 directory=$test_postgres_dir
    (
        trap '' HUP
        while kill -0 "$watched" 2>/dev/null; do sleep 1; done
        stop_test_postgres "$directory"
    ) </dev/null >/dev/null 2>&1 &
fi
echo "$test_postgres_url"
