#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, then runs the Swift tests, the
# end-to-end tests that drive the real server (Python clients, a headless browser,
# schemathesis), the replay of the recorded API corpus (Tests/replay) and the deployment
# checks. Fails on any test failure or compiler warning.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/install.sh
source scripts/lib/postgres.sh

install_packages libsqlite3-dev libpq-dev zlib1g-dev pkg-config sqlite3 openssl curl chromium chromium-driver docker-compose \
    postgresql nginx-light
requirements=(Tests/python/requirements.txt)
[ -f Tests/browser/requirements.txt ] && requirements+=(Tests/browser/requirements.txt)
install_python_requirements "${requirements[@]}"

echo "== Walls between the storage backends and the rest"
bash scripts/check-walls.sh

echo "== Layout of the Swift sources (.swift-format)"
bash scripts/lint.sh

echo "== Building"
log=$(mktemp)
swift build --build-tests 2>&1 | tee "$log"
# The allocation-budget test counts a release build's allocations (a debug build makes several
# times as many), so its probe is built for release.
swift build -c release --product AllocationProbe 2>&1 | tee -a "$log"
if grep -q "warning:" "$log"; then
    echo "The build printed warnings:" >&2
    grep "warning:" "$log" | sort -u >&2
    exit 1
fi

# One throw-away PostgreSQL cluster serves every test that needs one; it goes when the run ends.
start_test_postgres
trap 'stop_test_postgres "$test_postgres_dir"' EXIT
export CUMULUS_TEST_POSTGRES_URL=$test_postgres_url

echo "== Swift tests"
swift test --skip-build

echo "== Swift tests of the store and the API on PostgreSQL"
CUMULUS_TEST_BACKEND=postgres swift test --skip-build --filter "CloudStoreTests|WebServicesTests"

echo "== End-to-end tests"
python_suites=(Tests/python Tests/deployment Tests/replay)
[ -d Tests/browser ] && python_suites+=(Tests/browser)
python3 -m pytest -q "${python_suites[@]}"

if [ -x Tests/python/run_schemathesis.sh ]; then
    echo "== Schemathesis"
    bash Tests/python/run_schemathesis.sh
fi
echo "== All tests passed"
