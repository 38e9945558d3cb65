#!/usr/bin/env bash
# Schemathesis against a Cumulus server's /openapi.json; exits non-zero on any failure.
#
#   Tests/python/run_schemathesis.sh                                  # builds and starts its own server
#   Tests/python/run_schemathesis.sh BASE_URL API_TOKEN [WEB_AUTH_TOKEN]
#
# Needs the packages of Tests/python/requirements.txt. CUMULUS_CONTAINER names the API token's
# container when a base URL is given (default iCloud.com.example.Notes); SCHEMATHESIS_MAX_EXAMPLES
# bounds the examples per operation (default 25); SCHEMATHESIS_SEED replays a run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$here/schemathesis/run.py" "$@"
