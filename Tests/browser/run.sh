#!/usr/bin/env bash
# Runs the browser tests of sign-in: builds Cumulus, installs what is missing (Debian's
# chromium and chromium-driver, and selenium), then pytest. Everything runs on 127.0.0.1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
fi
python3 -c "import selenium, pytest" 2>/dev/null || python3 -m pip install -q -r "$here/requirements.txt"

cd "$root"
swift build --product cumulus
swift build --product ConsoleFixture
export CUMULUS_BIN_DIR="$(swift build --show-bin-path)"
exec python3 -m pytest -q "$here" "$@"
