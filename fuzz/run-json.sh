#!/usr/bin/env bash
# Fuzzes the JSON codec with libFuzzer and AddressSanitizer.
#
#   fuzz/run-json.sh [seconds]      (default 300)
#
# Builds fuzz/build/json-fuzz from Sources/CloudKitWire/JSON/*.swift and fuzz/JSONFuzz.swift,
# then runs it on fuzz/corpus/json (kept between runs, not committed), seeded from
# fuzz/seeds/json. Crashing inputs are written to fuzz/build/ as crash-*.
set -euo pipefail

seconds="${1:-300}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$here/build"
corpus="$here/corpus/json"
mkdir -p "$build" "$corpus"

swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -module-name JSONFuzz \
    "$root"/Sources/CloudKitWire/JSON/*.swift "$here/JSONFuzz.swift" \
    -o "$build/json-fuzz"

cd "$build"
exec ./json-fuzz \
    -max_total_time="$seconds" \
    -max_len=4096 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -print_final_stats=1 \
    -dict="$here/json.dict" \
    "$corpus" "$here/seeds/json"
