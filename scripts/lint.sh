#!/usr/bin/env bash
# Checks the layout of every Swift file against .swift-format (the toolchain's `swift format`):
# 4-space indentation, lines of at most 140 columns, and the rules the house follows. Fails on
# any finding. `swift format format -i --recursive Sources Tests bench fuzz Package.swift` fixes
# almost all of them; what it cannot fix (such as `.forEach` where a `for` loop reads better)
# is named with its file and line.
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift format lint --strict --recursive --parallel Sources Tests bench fuzz Package.swift
