#!/usr/bin/env bash
# What SQLite itself spends on a create, statement by statement: the statements of a
# `records/modify` create (the record with the benchmark schema's declared indexes, its change
# row, the per-type and per-zone counts, the zone moved in the database's zone log, the commit)
# replayed by bench/sqlite_create.py on a copy of an environment file the release build made,
# under callgrind, counting the instructions inside `sqlite3_step` per create. Each variant
# leaves one part out (or adds savepoints), so the differences are what each part costs; alone
# (one create per transaction) and in groups of 16 (as under load).
#
# Usage: bench/sqlite-create.sh   (COUNT creates per run, 1,600; CUMULUS_BIN another build)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
COUNT="${COUNT:-1600}"
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
# The system's Python, whose sqlite3 module uses the system's libsqlite3, as the server does.
PYTHON=/usr/bin/python3

use_cumulus_binary
bench_workspace sqlite-create
make_bench_container "$DATA" "$BENCH/lib/notes.ckdb"
TEMPLATE="$(find "$DATA" -name development.sqlite | head -1)"
# Files are copied whole only once their write-ahead log is copied into them.
checkpoint() { "$PYTHON" -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$1"; }
checkpoint "$TEMPLATE"
# 2,000 records first, as the profile's seeded file holds.
"$PYTHON" "$BENCH/sqlite_create.py" "$TEMPLATE" "$WORK/seeded.sqlite" as-built 200 2000
checkpoint "$WORK/seeded.sqlite"

per_create() {  # variant group
    local out="$WORK/cg.$1.$2"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$PYTHON" "$BENCH/sqlite_create.py" \
        "$WORK/seeded.sqlite" "$WORK/run.sqlite" "$1" "$2" "$COUNT" >/dev/null 2>&1
    callgrind_annotate --inclusive=yes "$out" 2>/dev/null \
        | awk -v n="$COUNT" '!done && $NF ~ /libsqlite3/ && $0 ~ /:sqlite3_step / { gsub(",", "", $1); printf "%.1f", $1 / n / 1000; done = 1 }'
}

{
    echo "| SQLite instructions per create (k) | alone | in groups of 16 |"
    echo "|---|---|---|"
    for variant in as-built no-zone-log no-counts no-indexes no-zone-log+no-counts+no-indexes savepoints; do
        # A create alone never took a savepoint: its transaction undoes it.
        alone="—"; [ "$variant" = savepoints ] || alone="$(per_create "$variant" 1)"
        echo "| $variant | $alone | $(per_create "$variant" 16) |"
    done
} | tee "$RESULTS/summary.md"
echo "raw results: $RESULTS"
