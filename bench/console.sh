#!/usr/bin/env bash
# The console's pages on a container of 1,000,000 records (release build, access log on): the
# time to render each page, p50 and p99, as one signed-in operator browsing (wrk -t1 -c1, so each
# request waits for the one before), three rounds each, with the server's CPU per page from /proc.
#   containers            the container list with records and storage per environment
#   records               the records page: a record type's first 50 records, sorted by an index
#   records-filtered      the records page with a filter on a queryable field
#   records-next          a later page, through its continuation marker
#   record                one record's detail
#   schema                the schema page with every type, field and index
#   zones                 the zones page with the records of each zone
#   browse                the records page of a type without filter or sort: the store's listing
#                         in record-name order, with the count per type
#   sync                  the sync page: the newest changes of the zone, its subscriptions
#   sync-older            the sync page paged back to the middle of the log
#   sync-search           the sync page searched for a record changed among the first: found by name
#   sync-search-common    the sync page searched for a beginning every record name has
#   logs, usage, security, users, deploy, reset, audit
#                         the other pages of the container, each as it first opens
#
# Usage: bench/console.sh        (RECORDS, ROUNDS, DURATION override the defaults; CASES="records
#                                 schema" runs only those; CUMULUS_BIN another build of cumulus)
set -euo pipefail
cd "$(dirname "$0")"
BENCH="$PWD"
ROOT="$(cd .. && pwd)"
source "$BENCH/lib/measure.sh"
RECORDS="${RECORDS:-1000000}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-10s}"
CASES="${CASES:-containers records records-filtered records-next record schema zones browse sync sync-older sync-search sync-search-common logs usage security users deploy reset audit}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

use_cumulus_binary
bench_workspace console

cat > "$WORK/schema.ckdb" <<'SCHEMA'
DEFINE SCHEMA
    RECORD TYPE Note (
        "___recordID" REFERENCE QUERYABLE,
        title STRING QUERYABLE SORTABLE,
        body STRING,
        count INT64 QUERYABLE SORTABLE,
        tags LIST<STRING>,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
SCHEMA
make_bench_container "$DATA" "$WORK/schema.ckdb"
printf '%s\n' 'bench operator password' | "$CUMULUS" operators add bench --data-dir "$DATA" >/dev/null

serve_bench
SERVER="http://127.0.0.1:$PORT"

echo "seeding $RECORDS records…"
python3 - "$SERVER/database/1/$CONTAINER/development/public/records/modify?ckAPIToken=$TOKEN&ckWebAuthToken=$WEB_QUERY" "$RECORDS" <<'PY'
import concurrent.futures, json, sys, time, urllib.request
url, total = sys.argv[1], int(sys.argv[2])
def batch(start):
    operations = [{"operationType": "create", "record": {
        "recordName": "detail-target" if n == 0 else f"note-{n:07d}", "recordType": "Note", "fields": {
            "title": {"value": f"Note {n:07d}: a moderately long title for the console benchmark"},
            "body": {"value": "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 4},
            "count": {"value": n % 1000}, "tags": {"value": ["one", "two", f"t{n % 50}"]}}}}
        for n in range(start, min(start + 200, total))]
    body = json.dumps({"operations": operations, "desiredKeys": []}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == 200
started = time.monotonic()
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    for done, _ in enumerate(pool.map(batch, range(0, total, 200)), 1):
        if done % 500 == 0:
            print(f"  {done * 200:,} records, {done * 200 / (time.monotonic() - started):,.0f}/s", flush=True)
PY

# Log in as a browser does: the login form's token and cookie, then the session cookie.
JAR="$WORK/cookies"
FORM_TOKEN="$(curl -sf -c "$JAR" "$SERVER/console/login" | grep -o 'name="csrfToken" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')"
curl -sf -b "$JAR" -c "$JAR" -o /dev/null "$SERVER/console/login" \
    --data-urlencode "csrfToken=$FORM_TOKEN" --data-urlencode "name=bench" --data-urlencode "password=bench operator password"
SESSION="$(awk '$6 == "cumulus_console" {print $7}' "$JAR")"
[ -n "$SESSION" ] || { echo "the operator could not log in" >&2; exit 1; }
COOKIE="Cookie: cumulus_console=$SESSION"

PAGES="/console/containers/$CONTAINER/development/public"
RECORDS_PAGE="$PAGES/records?type=Note&sort=title&dir=asc&limit=50&show=title&show=count&show=tags"
FILTERED_PAGE="$PAGES/records?type=Note&f0.field=count&f0.op=EQUALS&f0.value=42&limit=50&show=title&show=count"
NEXT_PAGE="$(curl -sf -H "$COOKIE" "$SERVER$RECORDS_PAGE" | grep -o 'href="[^"]*" rel="next"' | sed 's/^href="//; s/" rel="next"$//; s/&amp;/\&/g')"
[ -n "$NEXT_PAGE" ] || { echo "the records page has no next page" >&2; exit 1; }
declare -A URLS=(
    [containers]="/console/containers"
    [records]="$RECORDS_PAGE"
    [records-filtered]="$FILTERED_PAGE"
    [records-next]="$NEXT_PAGE"
    [record]="$PAGES/records/detail-target"
    [schema]="/console/containers/$CONTAINER/development/schema"
    [zones]="$PAGES/zones"
    [browse]="$PAGES/records?type=Note&limit=50"
    [sync]="$PAGES/sync"
    [sync-older]="$PAGES/sync?before=$((RECORDS / 2))"
    [sync-search]="$PAGES/sync?recordName=detail-target"
    [sync-search-common]="$PAGES/sync?recordName=note-"
    [logs]="/console/containers/$CONTAINER/development/logs"
    [usage]="/console/containers/$CONTAINER/development/usage"
    [security]="/console/containers/$CONTAINER/development/security"
    [users]="/console/containers/$CONTAINER/development/users"
    [deploy]="/console/containers/$CONTAINER/development/deploy"
    [reset]="/console/containers/$CONTAINER/development/reset"
    [audit]="/console/audit"
)
# Each page must render what it is for before it is timed: a failing page would still count.
check() {
    local status
    status="$(curl -s -H "$COOKIE" -o "$WORK/page.html" -w "%{http_code} in %{time_total} s" "$SERVER$1")"
    grep -q "$2" "$WORK/page.html" || { echo "$1 did not render $2 ($status):" >&2; head -c 2000 "$WORK/page.html" >&2; exit 1; }
}
check "${URLS[containers]}" "$CONTAINER"
check "${URLS[records]}" "Note 0000000: a moderately long title"
check "${URLS[records-filtered]}" "Note 0000042"
check "${URLS[records-next]}" "Note 0000050"
check "${URLS[record]}" "detail-target"
check "${URLS[schema]}" "SEARCHABLE"
check "${URLS[zones]}" "_defaultZone"
check "${URLS[browse]}" "detail-target"
check "${URLS[sync-search]}" "/records/detail-target"
check "${URLS[sync-search-common]}" "Changes "
check "${URLS[sync-older]}" "Older changes"
for page in sync logs usage security users deploy reset audit; do check "${URLS[$page]}" "<h1"; done
echo "records stored: $(sqlite3 "$DATA/containers/$CONTAINER/development.sqlite" 'SELECT count(*) FROM records')" | tee "$RESULTS/records.txt"

SUMMARY="$RESULTS/summary.tsv"
latency_header "$SUMMARY"
for name in $CASES; do
    latency_rounds "$SUMMARY" "$name" "$SERVER${URLS[$name]}" -H "$COOKIE"
done
echo "server VmRSS after the runs: $(awk '/VmRSS/ {print $2, $3}' /proc/$PID/status)" | tee "$RESULTS/rss.txt"
latency_table "$SUMMARY" "page" "containers=containers (records and storage per environment)" \
    "records=records page, first 50 sorted by title" "records-filtered=records page, filtered on count = 42" \
    "records-next=records page 2 (continuation marker)" "record=record detail" "schema=schema page" \
    "zones=zones page (records per zone)" "browse=records page without filter or sort (the store's listing)" \
    "sync=sync page" "sync-older=sync page, paged back to the middle" "sync-search=sync page, a record changed among the first, by name" \
    "sync-search-common=sync page, a beginning every name has" "logs=logs page" "usage=usage page" "security=security page" "users=users page" \
    "deploy=deploy page" "reset=reset page (counts what would go)" "audit=audit page" | tee "$RESULTS/medians.md"
echo "raw results: $RESULTS"
