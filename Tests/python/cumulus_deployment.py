"""A running `cumulus serve` and the credentials the end-to-end fixtures made for it.

Lives apart from conftest.py so test modules can import it by name: each test directory has
a conftest.py of its own, and importing `conftest` would pick whichever was loaded first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import requests

from cloudkit_client import CloudKitClient
from cumulus_server import CumulusServer
from openapi_validation import OpenAPIDocument

CONTAINER = "iCloud.com.example.EndToEnd"
USER_NAME = "alice"
USER_PASSWORD = "correct horse battery staple"

#: The record type the tests use, with the indexes their queries need.
SCHEMA = """
DEFINE SCHEMA

    RECORD TYPE Item (
        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
        "___recordID"   REFERENCE QUERYABLE,
        title           STRING QUERYABLE SEARCHABLE SORTABLE,
        rank            INT64 QUERYABLE SORTABLE,
        batch           STRING QUERYABLE,
        tags            LIST<STRING> QUERYABLE,
        body            STRING,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
"""


@dataclass
class Deployment:
    """A running server and the credentials the fixture made for it."""

    server: CumulusServer
    container: str
    api_token: str
    key_id: str
    #: Who requests signed with the key act as (the container's developer).
    key_user_record_name: str
    private_key_pem: str
    user_name: str
    password: str
    user_record_name: str
    web_auth_token: str
    openapi: OpenAPIDocument
    environment: str = "development"
    sessions: list[requests.Session] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def session(self) -> requests.Session:
        """A requests session whose every response is checked against the OpenAPI document."""
        session = requests.Session()
        session.hooks["response"].append(self.openapi.hook)
        self.sessions.append(session)
        return session

    def signed(self, private_key_pem: Optional[str] = None, key_id: Optional[str] = None, **options: Any) -> CloudKitClient:
        """A client signing as the server-to-server key (or another key, for failure tests)."""
        return CloudKitClient(
            self.base_url, options.pop("container", self.container), options.pop("environment", self.environment),
            key_id=key_id or self.key_id, private_key_pem=private_key_pem or self.private_key_pem,
            session=self.session(), **options,
        )

    def world(self, **options: Any) -> CloudKitClient:
        """A client with the API token alone."""
        return CloudKitClient(
            self.base_url, options.pop("container", self.container), options.pop("environment", self.environment),
            api_token=options.pop("api_token", self.api_token), session=self.session(), **options,
        )

    def user(self, web_auth_token: Optional[str] = None, **options: Any) -> CloudKitClient:
        """A client with the API token and the user's web auth token (rotated as responses hand out new ones)."""
        return self.world(web_auth_token=web_auth_token or self.web_auth_token, **options)

    def new_web_auth_token(self) -> str:
        """Signs the user in again with `cumulus users token`."""
        return self.server.cli("users", "token", "--container", self.container, self.user_name, stdin=self.password + "\n")
