#!/usr/bin/env bash
# Checks the walls between the storage backends and the rest of the house, in Sources:
#   1. PostgreSQL types (Postgres…), libpq (CLibPQ, PQ… calls) only in PostgreSQL's home;
#   2. SQLite types (SQLite…), CSQLite and sqlite3_ calls only in SQLite's home;
#   3. no `as?`/`as!` cast to a backend type outside that backend's home;
#   4. SQL statements only under CloudStore's Persistence/.
# Besides each home, the places that must name a backend are listed below, with why.
# Comment lines are not checked. Exits non-zero, naming each offending line, when a wall is breached.
set -euo pipefail
cd "$(dirname "$0")/.."

persistence=Sources/CloudStore/Persistence
postgres_home=$persistence/PostgreSQL/
sqlite_home=$persistence/SQLite/
# Where both backends must be named: the one place that turns a DatabaseLocation into a backend,
# and the SQLite→PostgreSQL copier of `cumulus migrate-store`, which reads one and writes the other.
both_allowed=("$persistence/Backend/StorageBackends.swift" "$persistence/Migration/")

failed=0

# Lines of Swift sources under Sources matching the extended regex $1, comment lines left out.
code_matching() {
    grep -rnE --include='*.swift' "$1" Sources | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true
}

# Drops lines of files under any of the given paths.
outside() {
    local lines
    lines=$(cat)
    for allowed in "$@"; do
        lines=$(grep -v "^$allowed" <<<"$lines" || true)
    done
    printf '%s' "$lines"
}

breach() {
    local what=$1 lines=$2
    if [ -n "$lines" ]; then
        echo "Wall breached: $what" >&2
        echo "$lines" >&2
        echo >&2
        failed=1
    fi
}

breach "a PostgreSQL type or libpq named outside $postgres_home" \
    "$(code_matching '\bPostgres[A-Z][A-Za-z]*|\bCLibPQ\b|\bPQ[a-z][A-Za-z]*\(' | outside "$postgres_home" "${both_allowed[@]}")"

breach "a SQLite type, CSQLite or sqlite3_ named outside $sqlite_home" \
    "$(code_matching '\bSQLite[A-Z][A-Za-z]*|\bCSQLite(Support)?\b|\bsqlite3_[a-z_]+' | outside "$sqlite_home" "${both_allowed[@]}")"

breach "a cast to a PostgreSQL type outside $postgres_home" \
    "$(code_matching '\bas[?!][[:space:]]*\(?Postgres[A-Z]' | outside "$postgres_home")"

breach "a cast to a SQLite type outside $sqlite_home" \
    "$(code_matching '\bas[?!][[:space:]]*\(?SQLite[A-Z]' | outside "$sqlite_home")"

breach "SQL outside $persistence/" \
    "$(code_matching '\b(SELECT .* FROM|INSERT INTO|DELETE FROM|UPDATE [a-z_."]+ SET|CREATE (UNIQUE )?(TABLE|INDEX)|ALTER TABLE|DROP (TABLE|INDEX|SCHEMA))\b' | outside "$persistence/")"

if [ "$failed" -ne 0 ]; then
    echo "Keep each backend's types in its home under $persistence/ and reach it through StorageBackend." >&2
    exit 1
fi
echo "Walls hold: backends named only in their homes, no casts to them elsewhere, SQL only in persistence."
