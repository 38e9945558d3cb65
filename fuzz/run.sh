#!/usr/bin/env bash
# Builds the libFuzzer target for the HTTP request parser and runs it.
# Usage: fuzz/run.sh [seconds]   (default 60)
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
sources=(
    ../Sources/HTTPServer/Parser/*.swift
    ../Sources/HTTPServer/Messages/HTTPMethod.swift
    ../Sources/HTTPServer/Messages/HTTPVersion.swift
    ../Sources/HTTPServer/Messages/HTTPStatus.swift
    ../Sources/HTTPServer/Messages/HTTPHeaders.swift
)
mkdir -p build corpus crashes
# The linker warns about every ASan symbol it cannot export; keep those out of the output but
# fail on a real compile error.
if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name ParserFuzz \
    ParserFuzzer.swift "${sources[@]}" -o build/parser-fuzzer 2> build/compile.log; then
    grep -v "Cannot export local symbol" build/compile.log >&2
    exit 1
fi
cp -n seeds/* corpus/ 2>/dev/null || true
# -max_len covers several pipelined requests with bodies; -timeout catches hangs.
./build/parser-fuzzer -max_total_time="$seconds" -max_len=4096 -timeout=10 -artifact_prefix=crashes/ \
    -print_final_stats=1 corpus seeds
