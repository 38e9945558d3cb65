#!/usr/bin/env bash
# Fuzzes the CloudKit Web Services decoders (records/query, records/modify, records/lookup,
# zones, tokens) end to end in process, with libFuzzer and AddressSanitizer: every input is a
# request body answered by the real API over a real store, and must never get a 5xx.
#
#   fuzz/run-decoders.sh [seconds]      (default 300)
#
# Builds the package in fuzz/Decoders (which depends on this one by path; linked with lld, which
# the toolchain ships: gold fails on the fuzzer's instrumented objects), then runs the target
# on fuzz/corpus/decoders (kept between runs, not committed), seeded from fuzz/seeds/decoders.
# Crashing inputs are written to fuzz/crashes/decoders-*.
set -euo pipefail

seconds="${1:-300}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$here/Decoders"
corpus="$here/corpus/decoders"
mkdir -p "$corpus" "$here/crashes"

log="$(mktemp)"
if ! swift build -c release --package-path "$package" --scratch-path "$package/.build" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -g -Xswiftc -use-ld=lld >"$log" 2>&1; then
    grep -v "Cannot export local symbol" "$log" | tail -40 >&2
    exit 1
fi
binary="$(swift build -c release --package-path "$package" --scratch-path "$package/.build" --show-bin-path)/DecoderFuzz"

exec "$binary" \
    -max_total_time="$seconds" \
    -max_len=4096 \
    -timeout=10 \
    -rss_limit_mb=4096 \
    -print_final_stats=1 \
    -dict="$here/decoders.dict" \
    -artifact_prefix="$here/crashes/decoders-" \
    "$corpus" "$here/seeds/decoders"
