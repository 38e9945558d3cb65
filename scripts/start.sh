#!/usr/bin/env bash
# Quick start: installs what is missing, builds Cumulus in release mode, and starts the server on
# 127.0.0.1:8080 with its data in ./data. A first start seeds the demo container
# iCloud.com.example.Notes and prints its API token. Extra arguments go to `cumulus serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/install.sh

install_packages libsqlite3-dev libpq-dev zlib1g-dev pkg-config
swift build -c release --product cumulus
exec .build/release/cumulus serve "$@"
