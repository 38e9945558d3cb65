"""The end-to-end tests' helpers (Tests/python), imported rather than copied: the server
runner, Apple's request signing, the record type they use and fresh PostgreSQL databases."""

from __future__ import annotations

import sys
from pathlib import Path

_E2E = str(Path(__file__).resolve().parents[1] / "python")
if _E2E not in sys.path:
    sys.path.insert(0, _E2E)

from cloudkit_signing import SigningVariant, load_private_key, public_key_pem, sign_request  # noqa: E402
from cumulus_deployment import SCHEMA as E2E_SCHEMA  # noqa: E402
from cumulus_server import CumulusServer, build_cumulus  # noqa: E402
from postgres_cluster import fresh_database  # noqa: E402

__all__ = [
    "CumulusServer", "E2E_SCHEMA", "SigningVariant", "build_cumulus", "fresh_database", "load_private_key", "public_key_pem", "sign_request",
]
