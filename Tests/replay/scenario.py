"""The scenario the corpus is recorded from: a broad walk through the CloudKit Web Services API
and the management API (/admin/v1), taken from the end-to-end tests' flows, with bad input and
refused callers along the way.

It must be deterministic: the same requests in the same order, nothing that depends on how
fast the machine is (no waiting for a time to pass, no two things that could tie on a time
and be ordered by it), and no value made up at random by the client (keys are fixed).
"""

from __future__ import annotations

import re
from typing import Any, Optional
from urllib.parse import urlencode

from e2e_helpers import E2E_SCHEMA, load_private_key, public_key_pem
from exchange import PRIVATE_KEYS, Reply
from recorder import Recorder, query_string

CONTAINER = "iCloud.com.example.Replay"
OTHER_CONTAINER = "iCloud.com.example.ReplayOther"
OPERATOR = "ops"
OPERATOR_PASSWORD = "a long operator passphrase"
PASSWORDS = {"alice": "correct horse battery staple", "bob": "another long passphrase", "carol": "carol's long passphrase"}

#: The end-to-end tests' Item type with a role, a type with an asset field and one to share.
SCHEMA = E2E_SCHEMA.replace("DEFINE SCHEMA\n", "DEFINE SCHEMA\n\n    CREATE ROLE Editor;\n", 1) + """
    RECORD TYPE Photo (
        caption         STRING QUERYABLE,
        image           ASSET,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );

    RECORD TYPE Trip (
        title           STRING,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
"""


class Caller:
    """One way of calling /database/1/<container>/<environment>/…: an API token alone, with a
    web auth token, or a server-to-server key."""

    def __init__(
        self, recorder: Recorder, *, container: str = CONTAINER, environment: str = "development", api_token: Optional[str] = None,
        web_auth_token: Optional[str] = None, key_id: Optional[str] = None, private_key: str = "main",
    ):
        self.recorder = recorder
        self.container = container
        self.environment = environment
        self.api_token = api_token
        self.web_auth_token = web_auth_token
        self.key_id = key_id
        self.private_key = private_key

    def target(self, database: Optional[str], subpath: str, params: Optional[dict[str, str]] = None, prefix: str = "database") -> str:
        parts = ["", prefix, "1", self.container, self.environment] + ([database] if database else []) + [subpath]
        credentials = {"ckAPIToken": self.api_token, "ckWebAuthToken": self.web_auth_token}
        return "/".join(parts) + query_string(**{**credentials, **(params or {})})

    def call(
        self, name: str, database: Optional[str], subpath: str, body: Any = None, *, method: str = "POST",
        params: Optional[dict[str, str]] = None, headers: Optional[dict[str, str]] = None, raw: Optional[str] = None,
        sign: Optional[dict[str, Any]] = None, prefix: str = "database",
    ) -> Reply:
        sent_headers = {"Content-Type": "text/plain"} if method == "POST" else {}
        sent_headers.update(headers or {})
        signing = None
        if self.key_id is not None:
            signing = {"key": self.key_id, "privateKey": self.private_key, **(sign or {})}
        return self.recorder.http(
            name, method, self.target(database, subpath, params, prefix), body, headers=sent_headers, raw=raw, sign=signing)

    def ok(self, name: str, database: Optional[str], subpath: str, body: Any = None, **options: Any) -> Any:
        reply = self.call(name, database, subpath, body, **options)
        assert reply.status == 200, f"{name}: {reply.status} {reply.body[:400]!r}"
        return reply.json()

    def as_(self, **changes: Any) -> "Caller":
        values = dict(container=self.container, environment=self.environment, api_token=self.api_token,
                      web_auth_token=self.web_auth_token, key_id=self.key_id, private_key=self.private_key)
        values.update(changes)
        return Caller(self.recorder, **values)


class Scenario:
    """The walk, area by area; later areas use what earlier ones made."""

    def __init__(self, recorder: Recorder):
        self.r = recorder
        self.token = ""  # the management token
        self.api_token = ""
        self.callback_token = ""
        self.key_id = ""
        self.users: dict[str, str] = {}  # name → user record name
        self.web_auth: dict[str, str] = {}  # name → web auth token
        self.passwords = dict(PASSWORDS)  # name → password, as changed along the way

    def run(self) -> None:
        self.setup()
        self.containers()
        self.schema()
        self.credentials()
        self.users_and_sign_in()
        self.world_and_user()
        self.server_to_server()
        self.zones()
        self.records()
        self.queries()
        self.changes()
        self.assets()
        self.subscriptions_and_push()
        self.sharing()
        self.bad_input()
        self.management_reads()
        self.security_and_limits()
        self.lifecycle()
        self.revocation()

    def area(self, name: str) -> None:
        self.r.area = name

    def admin(self, name: str, method: str, path: str, body: Any = None, **options: Any) -> Reply:
        options.setdefault("token", self.token)
        return self.r.admin(name, method, path, body, **options)

    def admin_ok(self, name: str, method: str, path: str, body: Any = None, **options: Any) -> Any:
        reply = self.admin(name, method, path, body, **options)
        assert 200 <= reply.status < 300, f"{name}: {reply.status} {reply.body[:400]!r}"
        return reply.json() if reply.header("content-type").startswith("application/json") else reply.body.decode()

    # MARK: - Areas

    def setup(self) -> None:
        self.area("setup")
        self.r.http("health", "GET", "/healthz")
        self.r.http("readiness", "GET", "/readyz")
        self.r.cli("operator added", "operators", "add", OPERATOR, stdin=OPERATOR_PASSWORD + "\n")
        self.token = self.r.cli("management token made", "operators", "token", OPERATOR, "--name", "replay")
        assert self.token.startswith("cumulus_mt_"), self.token

    def containers(self) -> None:
        self.area("containers")
        self.admin("no containers yet", "GET", "/containers")
        self.admin("no credential", "GET", "/containers", token=None)
        self.admin("unknown management token", "GET", "/containers", token="cumulus_mt_0000000000000000_" + "0" * 64)
        self.admin("not a bearer token", "GET", "/containers", token=None, headers={"Authorization": "Basic b3BzOnNlY3JldA=="})
        self.admin("create", "POST", "/containers", {"identifier": CONTAINER})
        self.admin("create another", "POST", "/containers", {"identifier": OTHER_CONTAINER})
        self.admin("create again", "POST", "/containers", {"identifier": CONTAINER})
        self.admin("create without prefix", "POST", "/containers", {"identifier": "not-a-container"})
        self.admin("create without identifier", "POST", "/containers", {})
        self.admin("create with malformed JSON", "POST", "/containers", raw='{"identifier":')
        self.admin("list", "GET", "/containers")
        self.admin("one", "GET", f"/containers/{CONTAINER}")
        self.admin("unknown", "GET", "/containers/iCloud.com.example.Missing")
        self.admin("unknown route", "GET", f"/containers/{CONTAINER}/teleport")
        self.admin("wrong method", "DELETE", "/containers")

    def schema(self) -> None:
        self.area("schema")
        base = f"/containers/{CONTAINER}/development"
        self.admin("validate a good schema", "POST", base + "/schema/validate", raw=SCHEMA, content_type="text/plain")
        self.admin("validate a broken schema", "POST", base + "/schema/validate", raw="DEFINE SCHEMA\n RECORD TYPE (\n",
                   content_type="text/plain")
        self.admin("import", "PUT", base + "/schema", raw=SCHEMA, content_type="text/plain")
        self.admin("import into an unknown environment", "PUT", f"/containers/{CONTAINER}/staging/schema", raw=SCHEMA,
                   content_type="text/plain")
        self.admin("read as JSON", "GET", base + "/schema")
        self.admin("read as text", "GET", base + "/schema?format=ckdb")
        self.admin("add a record type", "POST", base + "/record-types", {"name": "Note"})
        self.admin("add it again", "POST", base + "/record-types", {"name": "Note"})
        self.admin("add a field", "POST", base + "/record-types/Note/fields", {"name": "text", "type": "STRING", "indexes": ["QUERYABLE"]})
        self.admin("add a field of an unknown type", "POST", base + "/record-types/Note/fields",
                   {"name": "odd", "type": "COLOR", "indexes": []})
        self.admin("set indexes", "PUT", base + "/record-types/Note/fields/text/indexes", {"indexes": ["QUERYABLE", "SEARCHABLE"]})
        self.admin("set indexes of an unknown field", "PUT", base + "/record-types/Note/fields/nope/indexes", {"indexes": []})
        self.admin("read after the edits", "GET", base + "/schema?format=ckdb")
        self.admin("difference to production", "GET", f"/containers/{CONTAINER}/deployment")
        self.admin("deploy", "POST", f"/containers/{CONTAINER}/deployment")
        self.admin("deploy again: nothing to do", "POST", f"/containers/{CONTAINER}/deployment")
        self.admin("deployments", "GET", f"/containers/{CONTAINER}/deployments")
        self.admin("production schema", "GET", f"/containers/{CONTAINER}/production/schema?format=ckdb")
        self.admin("the other container's empty schema", "GET", f"/containers/{OTHER_CONTAINER}/development/schema")

    def credentials(self) -> None:
        self.area("credentials")
        base = f"/containers/{CONTAINER}"
        self.api_token = self.admin_ok("API token for every origin", "POST", base + "/tokens",
                                       {"name": "web", "allowedOrigins": ["*"]})["token"]
        self.callback_token = self.admin_ok(
            "API token with a sign-in callback", "POST", base + "/tokens",
            {"name": "app", "allowedOrigins": ["https://app.example.com"], "signInCallback": "https://app.example.com/signed-in"})["token"]
        self.admin("API token with a bad origin", "POST", base + "/tokens", {"name": "bad", "allowedOrigins": ["not a url"]})
        self.admin("API token for production", "POST", base + "/tokens", {"name": "prod", "environment": "production", "allowedOrigins": ["*"]})
        self.admin("API token for an unknown environment", "POST", base + "/tokens", {"environment": "staging"})
        self.admin("API tokens", "GET", base + "/tokens")
        public = public_key_pem(load_private_key(PRIVATE_KEYS["main"]))
        self.key_id = self.admin_ok("server key", "POST", base + "/keys", {"publicKey": public, "name": "backend"})["keyID"]
        self.admin("server key that is not a key", "POST", base + "/keys", {"publicKey": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"})
        self.admin("server key added twice", "POST", base + "/keys", {"publicKey": public})
        self.admin("server keys", "GET", base + "/keys")
        self.admin("API tokens of an unknown container", "GET", "/containers/iCloud.com.example.Missing/tokens")

    def sign_in(self, name: str, password: str, api_token: str, *, origin: Optional[str] = None, label: str = "") -> Reply:
        """The web sign-in flow: the form, then the post with its CSRF token and cookie."""
        form = self.r.http(f"sign-in form{label}", "GET", "/signin" + query_string(ckAPIToken=api_token, origin=origin),
                           headers={"Accept": "text/html"})
        assert form.status == 200, form.body[:300]
        csrf = re.search(r'name="csrfToken" value="([0-9a-f]{64})"', form.body.decode()).group(1)
        cookie = form.header("set-cookie").split(";")[0]
        fields = {"ckAPIToken": api_token, "csrfToken": csrf, "name": name, "password": password}
        if origin is not None:
            fields["origin"] = origin
        return self.r.http(f"sign in as {name}{label}", "POST", "/signin", raw=urlencode(fields),
                           headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie, "Accept": "text/html"})

    def users_and_sign_in(self) -> None:
        self.area("users")
        base = f"/containers/{CONTAINER}/users"
        details = {"alice": ("alice@example.com", "Alice", "Liddell", True), "bob": ("bob@example.com", "Bob", "Builder", False),
                   "carol": ("carol@example.com", "Carol", "Danvers", False)}
        for name, (email, first, last, discoverable) in details.items():
            added = self.admin_ok(f"add {name}", "POST", base, {
                "name": name, "password": self.passwords[name], "emailAddress": email, "firstName": first, "lastName": last,
                "discoverable": discoverable})
            self.users[name] = added["userRecordName"]
        self.admin("add alice again", "POST", base, {"name": "alice", "password": "whatever long enough"})
        self.admin("add with a short password", "POST", base, {"name": "dave", "password": "short"})
        self.admin("users", "GET", base)
        self.admin("users matching a search", "GET", base + "?search=bob")
        self.admin("make bob discoverable", "POST", base + "/bob/discoverable", {"discoverable": True})
        self.admin("discoverable of nobody", "POST", base + "/nobody/discoverable", {"discoverable": True})
        self.passwords["carol"] += " again"
        self.admin("new password for carol", "POST", base + "/carol/password", {"password": self.passwords["carol"]})

        self.area("sign-in")
        completed = self.sign_in("alice", self.passwords["alice"], self.api_token)
        assert completed.status == 200, completed.body[:300]
        self.web_auth["alice"] = self._token_in_page(completed.body.decode())
        self.web_auth["bob"] = self._token_in_page(self.sign_in("bob", self.passwords["bob"], self.api_token).body.decode())
        self.web_auth["carol"] = self._token_in_page(self.sign_in("carol", self.passwords["carol"], self.api_token).body.decode())
        redirected = self.sign_in("alice", self.passwords["alice"], self.callback_token, label=" through the callback")
        assert redirected.status == 303, redirected.status
        self.sign_in("alice", "not her password", self.api_token, label=" with a wrong password")
        self.sign_in("nobody", "no password at all", self.api_token, label=" as nobody")
        self.r.http("sign-in form for an unknown API token", "GET", "/signin?ckAPIToken=" + "f" * 64, headers={"Accept": "text/html"})
        self.r.http("sign-in post without its cookie", "POST", "/signin",
                    raw=urlencode({"ckAPIToken": self.api_token, "csrfToken": "0" * 64, "name": "alice", "password": "x"}),
                    headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"})
        self.r.http("sign-in form for a disallowed origin", "GET",
                    "/signin" + query_string(ckAPIToken=self.callback_token, origin="https://evil.example.com"),
                    headers={"Accept": "text/html"})

    @staticmethod
    def _token_in_page(page: str) -> str:
        """The web auth token the sign-in page's script hands to the opener."""
        found = re.search(r'ckWebAuthToken["\']?\s*[:=]\s*"([A-Za-z0-9+/=_.-]{40,})"', page) or re.search(
            r'"([A-Za-z0-9+/=_-]{100,})"', page)
        assert found, page[:2000]
        return found.group(1)

    def world_and_user(self) -> None:
        self.area("world-and-user")
        world = Caller(self.r, api_token=self.api_token)
        alice = world.as_(web_auth_token=self.web_auth["alice"])
        world.call("world writes: asked to sign in", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordName": "world-note", "recordType": "Item", "fields": {"title": {"value": "x"}}}}]})
        world.call("world writes from an origin", "public", "records/modify", {"operations": []},
                   headers={"Origin": "https://app.example.com"})
        world.call("world writes from a forged origin", "public", "records/modify", {"operations": []},
                   headers={"Origin": "https://app.example.com&ckAPIToken=forged#x y"})
        world.call("world asks users/caller", "public", "users/caller", method="GET")
        world.call("world asks users/current", "public", "users/current")
        world.call("world lists private zones", "private", "zones/list", method="GET")
        world.call("world queries the private database", "private", "records/query", {"query": {"recordType": "Item"}})
        world.as_(api_token="f" * 64).call("unknown API token", "public", "records/query", {"query": {"recordType": "Item"}})
        world.as_(api_token=None).call("no credentials at all", "public", "records/query", {"query": {"recordType": "Item"}})
        world.call("world lists public zones", "public", "zones/list", method="GET")
        world.call("CORS preflight", "public", "records/query", method="OPTIONS",
                   headers={"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST",
                            "Access-Control-Request-Headers": "content-type"})
        world.call("query from an origin", "public", "records/query", {"query": {"recordType": "Item"}},
                   headers={"Origin": "https://app.example.com"})
        alice.call("users/caller GET", "public", "users/caller", method="GET")
        alice.call("users/caller POST", "public", "users/caller", {})
        alice.call("users/current", "public", "users/current", method="GET")
        world.call("web auth token in the header", "public", "users/current", method="GET",
                   headers={"X-Apple-CloudKit-Web-Auth-Token": self.web_auth["alice"]})
        # A token of the right shape whose seal does not open (a constant, the same every run).
        forged = "1__32__" + "A" * 96 + "=="
        world.as_(web_auth_token=forged).call("forged web auth token", "public", "users/caller", method="GET")
        alice.call("discover every discoverable user", "public", "users/discover", method="GET")
        alice.call("discover by email", "public", "users/discover", {"lookupInfos": [
            {"emailAddress": "bob@example.com"}, {"emailAddress": "carol@example.com"}, {"emailAddress": "nobody@example.com"}]})
        alice.call("look up by email", "public", "users/lookup/email", {"users": [{"emailAddress": "bob@example.com"}]})
        alice.call("look up by id", "public", "users/lookup/id", {"users": [{"userRecordName": self.users["bob"]}]})
        alice.call("look up contacts", "public", "users/lookup/contacts", method="GET")

    def server_to_server(self) -> None:
        self.area("server-to-server")
        key = Caller(self.r, key_id=self.key_id)
        ckjs = {"ckjsBuildVersion": "2310ProjectDev27", "ckjsVersion": "2.6.4"}
        key.ok("save five items", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordName": f"s2s-{rank}", "recordType": "Item", "fields": {
                "title": {"value": f"item {rank}"}, "rank": {"value": rank, "type": "INT64"}, "batch": {"value": "s2s"},
                "tags": {"value": ["e2e", f"rank-{rank}"]}}}} for rank in range(5)]}, params=ckjs)
        key.call("save signed on the bare path", "public", "records/lookup", {"records": [{"recordName": "s2s-1"}]}, params=ckjs,
                 sign={"signQuery": False})
        key.call("GET without a body", "public", "zones/list", method="GET", params=ckjs)
        key.call("GET without a query string", "public", "zones/list", method="GET")
        key.as_(private_key="other").call("signed with the wrong key", "public", "records/query", {"query": {"recordType": "Item"}, "resultsLimit": 1})
        key.as_(key_id="0" * 64).call("unknown key id", "public", "records/query", {"query": {"recordType": "Item"}, "resultsLimit": 1})
        key.call("stale date", "public", "records/query", {"query": {"recordType": "Item"}, "resultsLimit": 1}, sign={"dateOffsetMinutes": -11})
        key.call("future date", "public", "records/query", {"query": {"recordType": "Item"}, "resultsLimit": 1}, sign={"dateOffsetMinutes": 11})
        key.call("date eight minutes old", "public", "records/lookup", {"records": [{"recordName": "s2s-0"}]}, sign={"dateOffsetMinutes": -8})
        key.as_(environment="production").call("key in the other environment", "public", "records/query", {"query": {"recordType": "Item"}})
        key.as_(container=OTHER_CONTAINER).call("key in the other container", "public", "records/query", {"query": {"recordType": "Item"}})
        key.call("key in the private database", "private", "zones/list", method="GET")
        key.call("signature and API token mixed", "public", "records/query", {"query": {"recordType": "Item"}},
                 params={"ckAPIToken": self.api_token})
        self.r.http("signature header missing", "POST", Caller(self.r).target("public", "records/query"),
                    {"query": {"recordType": "Item"}}, headers={"Content-Type": "text/plain", "X-Apple-CloudKit-Request-KeyID": self.key_id,
                                                                 "X-Apple-CloudKit-Request-ISO8601Date": "2026-01-01T00:00:00Z"})

    def zones(self) -> None:
        self.area("zones")
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        alice.call("private zones: the default one", "private", "zones/list", method="GET")
        alice.call("create Work and Home", "private", "zones/modify", {"operations": [
            {"operationType": "create", "zone": {"zoneID": {"zoneName": "Work"}}},
            {"operationType": "create", "zone": {"zoneID": {"zoneName": "Home"}}}]})
        alice.call("create Work again", "private", "zones/modify", {"operations": [
            {"operationType": "create", "zone": {"zoneID": {"zoneName": "Work"}}}]})
        alice.call("zones listed", "private", "zones/list", {})
        alice.call("zones looked up", "private", "zones/lookup", {"zones": [{"zoneName": "Work"}, {"zoneName": "Nowhere"}]})
        alice.call("a zone in the public database", "public", "zones/modify", {"operations": [
            {"operationType": "create", "zone": {"zoneID": {"zoneName": "Shared"}}}]})
        alice.call("delete Home", "private", "zones/modify", {"operations": [{"operationType": "delete", "zone": {"zoneID": {"zoneName": "Home"}}}]})
        base = f"/containers/{CONTAINER}/development/private/zones"
        self.admin("zones of alice, managed", "GET", base + "?user=alice")
        self.admin("create a zone for bob, managed", "POST", base, {"zoneName": "Garage", "user": "bob"})
        self.admin("zones of bob, managed", "GET", base + "?user=bob")
        self.admin("delete bob's zone, managed", "DELETE", base + "/Garage?user=bob")
        self.admin("delete a zone that is not there", "DELETE", base + "/Garage?user=bob")
        self.admin("public zones, managed", "GET", f"/containers/{CONTAINER}/development/public/zones")

    def records(self) -> None:
        self.area("records")
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        bob = alice.as_(web_auth_token=self.web_auth["bob"])
        created = alice.ok("alice creates three", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordName": f"note-{rank}", "recordType": "Item", "fields": {
                "title": {"value": f"Note {rank}"}, "rank": {"value": rank}, "batch": {"value": "notes"},
                "tags": {"value": ["a", f"n{rank}"]}, "body": {"value": "x" * rank}}}} for rank in range(3)]})
        tag = created["records"][0]["recordChangeTag"]
        alice.call("create one that exists", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordName": "note-0", "recordType": "Item"}}]})
        alice.call("create one with a server-made name", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordType": "Item", "fields": {"title": {"value": "nameless"}, "batch": {"value": "nameless"}}}}]})
        updated = alice.ok("update with the change tag", "public", "records/modify", {"operations": [
            {"operationType": "update", "record": {"recordName": "note-0", "recordChangeTag": tag, "fields": {"title": {"value": "Note zero"}}}}]})
        alice.call("update with a stale change tag", "public", "records/modify", {"operations": [
            {"operationType": "update", "record": {"recordName": "note-0", "recordChangeTag": tag, "fields": {"title": {"value": "lost"}}}}]})
        alice.call("forceUpdate", "public", "records/modify", {"operations": [
            {"operationType": "forceUpdate", "record": {"recordName": "note-1", "fields": {"rank": {"value": 11}}}}]})
        alice.call("replace", "public", "records/modify", {"operations": [
            {"operationType": "replace", "record": {"recordName": "note-2", "recordType": "Item",
                                                    "recordChangeTag": created["records"][2]["recordChangeTag"],
                                                    "fields": {"title": {"value": "Note two"}, "rank": {"value": 2}, "batch": {"value": "notes"}}}}]})
        bob.call("bob changes alice's note", "public", "records/modify", {"operations": [
            {"operationType": "forceUpdate", "record": {"recordName": "note-0", "fields": {"title": {"value": "bob's now"}}}}]})
        alice.call("look up two and a missing one", "public", "records/lookup", {"records": [
            {"recordName": "note-0"}, {"recordName": "missing"}, {"recordName": "note-1"}]})
        alice.call("look up with desired keys", "public", "records/lookup", {"records": [{"recordName": "note-2"}], "desiredKeys": ["title"]})
        alice.call("numbers as strings", "public", "records/modify", {"numbersAsStrings": True, "operations": [
            {"operationType": "create", "record": {"recordName": "big", "recordType": "Item",
                                                   "fields": {"rank": {"value": "9007199254740993", "type": "INT64"}}}}]})
        alice.call("the big number read back", "public", "records/lookup", {"records": [{"recordName": "big"}]})
        alice.call("a value of the wrong type", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordName": "typed", "recordType": "Item", "fields": {"rank": {"value": "seven"}}}}]})
        # (A record over 1 MB is left to the end-to-end tests: its megabyte would weigh down the corpus.)
        alice.call("a record of a type added by the management API", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordName": "ref", "recordType": "Note", "fields": {"text": {"value": "hello"}}}}]})
        # The private database: atomic zones.
        alice.call("private records in Work", "private", "records/modify", {"zoneID": {"zoneName": "Work"}, "operations": [
            {"operationType": "create", "record": {"recordName": f"task-{rank}", "recordType": "Item",
                                                   "fields": {"title": {"value": f"task {rank}"}, "rank": {"value": rank}}}} for rank in range(4)]})
        alice.call("atomic batch with one failure", "private", "records/modify", {"zoneID": {"zoneName": "Work"}, "atomic": True, "operations": [
            {"operationType": "create", "record": {"recordName": "task-9", "recordType": "Item"}},
            {"operationType": "create", "record": {"recordName": "task-0", "recordType": "Item"}}]})
        alice.call("private lookup", "private", "records/lookup", {"zoneID": {"zoneName": "Work"},
                                                                  "records": [{"recordName": "task-0"}, {"recordName": "task-9"}]})
        Caller(self.r, key_id=self.key_id).call("the key reads the private database", "private", "records/lookup",
                                                 {"zoneID": {"zoneName": "Work"}, "records": [{"recordName": "task-0"}]})
        alice.call("in a zone that is not there", "private", "records/modify", {"zoneID": {"zoneName": "Nowhere"}, "operations": [
            {"operationType": "create", "record": {"recordName": "x", "recordType": "Item"}}]})
        deleted = alice.ok("delete with the tag and forceDelete", "public", "records/modify", {"operations": [
            {"operationType": "delete", "record": {"recordName": "note-0",
                                                   "recordChangeTag": updated["records"][0]["recordChangeTag"]}},
            {"operationType": "forceDelete", "record": {"recordName": "big"}}]})
        assert all(entry.get("deleted") for entry in deleted["records"]), deleted
        alice.call("read the deleted", "public", "records/lookup", {"records": [{"recordName": "note-0"}]})
        # Managed access to records.
        base = f"/containers/{CONTAINER}/development"
        self.admin("query records, managed", "POST", base + "/public/records/query",
                   {"query": {"recordType": "Item", "filterBy": [{"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": "notes"}}],
                              "sortBy": [{"fieldName": "rank"}]}})
        self.admin("look up records, managed", "POST", base + "/public/records/lookup", {"records": [{"recordName": "note-1"}]})
        self.admin("modify records, managed", "POST", base + "/private/records/modify?user=alice", {"zoneID": {"zoneName": "Work"}, "operations": [
            {"operationType": "forceUpdate", "record": {"recordName": "task-3", "fields": {"title": {"value": "task three"}}}}]})
        self.admin("query without the index, managed", "POST", base + "/public/records/query",
                   {"query": {"recordType": "Item", "filterBy": [{"comparator": "EQUALS", "fieldName": "body", "fieldValue": {"value": "x"}}]}})
        self.admin("export as JSON", "POST", base + "/public/records/export?format=json",
                   {"query": {"recordType": "Item", "sortBy": [{"fieldName": "rank"}],
                              "filterBy": [{"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": "notes"}}]}})
        self.admin("export as CSV", "POST", base + "/public/records/export?format=csv",
                   {"query": {"recordType": "Item", "sortBy": [{"fieldName": "rank"}],
                              "filterBy": [{"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": "notes"}}]}})
        self.admin("export in an unknown format", "POST", base + "/public/records/export?format=xml", {"query": {"recordType": "Item"}})

    def queries(self) -> None:
        self.area("queries")
        key = Caller(self.r, key_id=self.key_id)
        world = Caller(self.r, api_token=self.api_token)
        query = {"recordType": "Item", "filterBy": [
            {"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": "s2s", "type": "STRING"}},
            {"comparator": "GREATER_THAN_OR_EQUALS", "fieldName": "rank", "fieldValue": {"value": 1, "type": "INT64"}}],
            "sortBy": [{"fieldName": "rank", "ascending": False}]}
        first = key.ok("first page of two", "public", "records/query", {"query": query, "resultsLimit": 2, "desiredKeys": ["rank"]})
        second = key.ok("second page", "public", "records/query", {"query": query, "resultsLimit": 2, "desiredKeys": ["rank"],
                                                                    "continuationMarker": first["continuationMarker"]})
        assert "continuationMarker" not in second, second
        key.call("a continuation marker that is not one", "public", "records/query", {"query": query, "continuationMarker": "garbage"})
        for comparator, field, value in [
            ("LESS_THAN", "rank", {"value": 3}), ("NOT_EQUALS", "rank", {"value": 2}), ("IN", "rank", {"value": [1, 3]}),
            ("BEGINS_WITH", "title", {"value": "item"}), ("CONTAINS_ANY_TOKENS", "title", {"value": "item"}),
            ("LIST_CONTAINS", "tags", {"value": "rank-2"}), ("NOT_IN", "rank", {"value": [0, 1]}),
        ]:
            world.call(f"query {comparator}", "public", "records/query", {"query": {"recordType": "Item", "filterBy": [
                {"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": "s2s"}},
                {"comparator": comparator, "fieldName": field, "fieldValue": value}], "sortBy": [{"fieldName": "rank"}]}})
        world.call("sorted by title descending", "public", "records/query", {"query": {"recordType": "Item", "filterBy": [
            {"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": "notes"}}], "sortBy": [{"fieldName": "title", "ascending": False}]}})
        world.call("nulls read as absent, unknown keys ignored", "public", "records/query", {
            "query": {"recordType": "Item", "filterBy": None, "sortBy": [{"fieldName": "rank", "ascending": None}]},
            "zoneID": None, "resultsLimit": 3, "continuationMarker": None, "desiredKeys": ["rank"], "zoneWide": None,
            "someFutureKey": {"nested": [1, 2]}}, params={"ckjsVersion": "2.6.4"})
        for content_type in ("application/json", "application/json; charset=utf-8", "application/x-www-form-urlencoded"):
            world.call(f"content type {content_type}", "public", "records/query",
                       {"query": {"recordType": "Item", "sortBy": [{"fieldName": "rank"}]}, "resultsLimit": 1},
                       headers={"Content-Type": content_type})
        alice = world.as_(web_auth_token=self.web_auth["alice"])
        alice.call("private query in Work", "private", "records/query", {"zoneID": {"zoneName": "Work"},
                                                                        "query": {"recordType": "Item", "sortBy": [{"fieldName": "rank"}]}})
        alice.call("zone-wide private query", "private", "records/query", {"zoneWide": True,
                                                                          "query": {"recordType": "Item", "sortBy": [{"fieldName": "rank"}]}})

    def changes(self) -> None:
        self.area("changes")
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        work = {"zoneName": "Work"}
        everything = alice.ok("records/changes from the start", "private", "records/changes", {"zoneID": work})
        alice.ok("records/changes two at a time", "private", "records/changes", {"zoneID": work, "resultsLimit": 2})
        alice.call("change one task", "private", "records/modify", {"zoneID": work, "operations": [
            {"operationType": "forceUpdate", "record": {"recordName": "task-1", "fields": {"rank": {"value": 21}}}},
            {"operationType": "forceDelete", "record": {"recordName": "task-2"}}]})
        alice.call("records/changes since the token", "private", "records/changes", {"zoneID": work, "syncToken": everything["syncToken"]})
        alice.call("records/changes with a bad token", "private", "records/changes", {"zoneID": work, "syncToken": "garbage"})
        zone = alice.ok("changes/zone", "private", "changes/zone", {"zones": [{"zoneID": work}]})
        alice.call("changes/zone since its token", "private", "changes/zone",
                   {"zones": [{"zoneID": work, "syncToken": zone["zones"][0]["syncToken"]}]})
        database = alice.ok("changes/database", "private", "changes/database", {})
        alice.call("zones/changes", "private", "zones/changes", {})
        alice.call("create Errands", "private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Errands"}}}]})
        alice.call("changes/database since its token", "private", "changes/database", {"syncToken": database["syncToken"]})
        Caller(self.r, key_id=self.key_id).call("public records/changes", "public", "records/changes", {"zoneID": {"zoneName": "_defaultZone"}})
        base = f"/containers/{CONTAINER}/development/private/zones/Work/changes"
        log = self.admin_ok("change log, managed", "GET", base + "?user=alice")
        self.admin("change log after a sequence, managed", "GET", base + "?user=alice&after=2")
        self.admin("next changes, managed", "GET", base + "/next?user=alice")
        self.admin("change log of a zone that is not there", "GET",
                   f"/containers/{CONTAINER}/development/private/zones/Nowhere/changes?user=alice")
        assert log is not None

    def assets(self) -> None:
        self.area("assets")
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        upload = alice.ok("upload URL", "public", "assets/upload", {"tokens": [{"recordName": "photo-1", "recordType": "Photo", "fieldName": "image"}],
                                                                   "zoneID": {"zoneName": "_defaultZone"}})
        url = upload["tokens"][0]["url"]
        path = url[len(self.r.server.base_url):]
        content = "A small text file standing in for a photo.\n" * 20
        self.r.http("upload preflight", "OPTIONS", path, headers={"Origin": "https://app.example.com",
                                                                  "Access-Control-Request-Method": "POST"})
        uploaded = self.r.http("upload the file", "POST", path, raw=content, headers={"Content-Type": "text/plain"})
        assert uploaded.status == 200, uploaded.body
        single = uploaded.json()["singleFile"]
        self.r.http("upload to the same URL again", "POST", path, raw=content, headers={"Content-Type": "text/plain"})
        self.r.http("upload to a ticket that is not one", "POST", "/assets/1/upload/" + "A" * 32, raw="x", headers={"Content-Type": "text/plain"})
        saved = alice.ok("save the record with the asset", "public", "records/modify", {"operations": [
            {"operationType": "create", "record": {"recordName": "photo-1", "recordType": "Photo", "fields": {
                "caption": {"value": "a photo"}, "image": {"value": single}}}}]})
        download = saved["records"][0]["fields"]["image"]["value"]["downloadURL"]
        looked = alice.ok("look the record up", "public", "records/lookup", {"records": [{"recordName": "photo-1"}]})
        download = looked["records"][0]["fields"]["image"]["value"]["downloadURL"] or download
        download_path = download[len(self.r.server.base_url):].replace("${f}", "photo.txt")
        self.r.http("download", "GET", download_path)
        self.r.http("download a range", "GET", download_path, headers={"Range": "bytes=0-9"})
        self.r.http("download HEAD", "HEAD", download_path)
        self.r.http("download a ticket that is not one", "GET", "/assets/1/download/" + "B" * 32 + "/photo.txt")
        alice.call("rereference", "public", "assets/rereference", {"assets": [{"recordName": "photo-1", "fieldName": "image"}],
                                                                   "zoneID": {"zoneName": "_defaultZone"}})
        alice.call("upload URL for an unknown field", "public", "assets/upload", {"tokens": [
            {"recordName": "photo-2", "recordType": "Photo", "fieldName": "nope"}], "zoneID": {"zoneName": "_defaultZone"}})

    def subscriptions_and_push(self) -> None:
        self.area("subscriptions")
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        world = Caller(self.r, api_token=self.api_token)
        alice.call("query subscription", "public", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
            "subscriptionID": "urgent", "subscriptionType": "query", "firesOn": ["create", "update", "delete"],
            "query": {"recordType": "Item", "filterBy": [{"comparator": "GREATER_THAN", "fieldName": "rank", "fieldValue": {"value": 5}}]},
            "notificationInfo": {"alertBody": "Urgent item", "additionalFields": ["title"]}}}]})
        alice.call("zone and database subscriptions", "private", "subscriptions/modify", {"operations": [
            {"operationType": "create", "subscription": {"subscriptionID": "work", "subscriptionType": "zone", "zoneID": {"zoneName": "Work"}}},
            {"operationType": "create", "subscription": {"subscriptionID": "everything", "subscriptionType": "database"}}]})
        alice.call("subscription without a type", "public", "subscriptions/modify", {"operations": [
            {"operationType": "create", "subscription": {"subscriptionID": "odd"}}]})
        alice.call("subscriptions listed", "private", "subscriptions/list", method="GET")
        alice.call("subscriptions looked up", "public", "subscriptions/lookup", {"subscriptions": [{"subscriptionID": "urgent"}, {"subscriptionID": "none"}]})
        created = world.ok("tokens/create on /device/1", None, "tokens/create",
                           {"apnsEnvironment": "development", "clientId": "replay-client-1"}, prefix="device")
        apns = created["apnsToken"]
        alice.call("tokens/register", None, "tokens/register", {"apnsEnvironment": "development", "apnsToken": apns})
        # Alice holds one push token while they are listed: listings order tokens by when they
        # were bound and then by the random token, so two bound in one millisecond could swap.
        alice.call("a change the subscription matches", "public", "records/modify", {"operations": [
            {"operationType": "forceReplace", "record": {"recordName": "high", "recordType": "Item",
                                                         "fields": {"title": {"value": "high"}, "rank": {"value": 9}}}}]})
        # The courier answers at once while notifications wait (it would hold a poll otherwise).
        courier = created["webcourierURL"][len(self.r.server.base_url):]
        self.r.http("the courier hands out the first notification", "GET", courier)
        self.r.http("and the second", "GET", courier)
        base = f"/containers/{CONTAINER}/development"
        self.admin("subscriptions, managed", "GET", base + "/subscriptions")
        self.admin("push tokens, managed", "GET", base + "/push-tokens")
        listed = self.admin_ok("push tokens of alice, managed", "GET", base + "/push-tokens?user=alice")
        self.admin("notification queues, managed", "GET", base + "/notifications")
        self.admin("delete a subscription, managed", "DELETE", base + f"/public/subscriptions/{self.users['alice']}/urgent")
        self.admin("delete it again, managed", "DELETE", base + f"/public/subscriptions/{self.users['alice']}/urgent")
        alice.call("delete a subscription", "private", "subscriptions/modify", {"operations": [
            {"operationType": "delete", "subscription": {"subscriptionID": "work"}}]})
        world.call("tokens/create in a database path", "public", "tokens/create", {"apnsEnvironment": "development"})
        bob = alice.as_(web_auth_token=self.web_auth["bob"])
        bob.call("tokens/register a token nobody created", None, "tokens/register", {"apnsEnvironment": "development", "apnsToken": "nope"})
        tokens = listed.get("tokens") or listed.get("pushTokens") or []
        if tokens:
            self.admin("revoke a push token, managed", "DELETE", base + f"/push-tokens/{tokens[0]['id']}")
        self.admin("revoke a push token that is not there", "DELETE", base + "/push-tokens/nope")

    def sharing(self) -> None:
        self.area("sharing")
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        bob = alice.as_(web_auth_token=self.web_auth["bob"])
        carol = alice.as_(web_auth_token=self.web_auth["carol"])
        alice.call("create Trips", "private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Trips"}}}]})
        saved = alice.ok("a trip and its share", "private", "records/modify", {"zoneID": {"zoneName": "Trips"}, "operations": [
            {"operationType": "create", "record": {"recordName": "trip", "recordType": "Trip", "fields": {"title": {"value": "Lisbon"}}}},
            {"operationType": "create", "record": {"recordName": "day1", "recordType": "Trip", "fields": {"title": {"value": "Day one"}},
                                                   "parent": {"recordName": "trip"}}},
            {"operationType": "create", "record": {"recordName": "share-trip", "recordType": "cloudkit.share", "createShortGUID": True,
                                                   "forRecord": {"recordName": "trip"}, "publicPermission": "NONE",
                                                   "fields": {"cloudkit.title": {"value": "Lisbon trip", "type": "STRING"}},
                                                   "participants": [{"userIdentity": {"lookupInfo": {"emailAddress": "bob@example.com"}},
                                                                     "permission": "READ_WRITE", "type": "USER"}]}}]})
        guid = saved["records"][2]["shortGUID"]
        body = {"shortGUIDs": [{"value": guid, "shouldFetchRootRecord": True}]}
        bob.call("bob resolves", "public", "records/resolve", body)
        carol.call("carol resolves: not invited", "public", "records/resolve", body)
        bob.call("bob accepts", "public", "records/accept", body)
        trips = {"zoneName": "Trips", "ownerRecordName": self.users["alice"]}
        bob.call("bob's shared zones", "shared", "zones/list", {})
        bob.call("bob's shared database changes", "shared", "changes/database", {})
        bob.call("bob looks up shared records", "shared", "records/lookup", {"zoneID": trips, "records": [
            {"recordName": "trip"}, {"recordName": "day1"}, {"recordName": "secret"}]})
        bob.call("bob adds a day", "shared", "records/modify", {"zoneID": trips, "operations": [
            {"operationType": "create", "record": {"recordName": "day2", "recordType": "Trip", "parent": {"recordName": "trip"},
                                                   "fields": {"title": {"value": "Day two"}}}}]})
        carol.call("carol reads the shared zone", "shared", "records/lookup", {"zoneID": trips, "records": [{"recordName": "trip"}]})
        alice.call("alice reads her share", "private", "records/lookup", {"zoneID": {"zoneName": "Trips"}, "records": [{"recordName": "share-trip"}]})
        base = f"/containers/{CONTAINER}/development/shares"
        self.admin("shares, managed", "GET", base)
        self.admin("remove bob from the share, managed", "DELETE",
                   base + f"/{self.users['alice']}/Trips/share-trip/participants/{self.users['bob']}")
        bob.call("bob no longer reads", "shared", "records/lookup", {"zoneID": trips, "records": [{"recordName": "trip"}]})
        self.admin("delete the share, managed", "DELETE", base + f"/{self.users['alice']}/Trips/share-trip")
        self.admin("delete a share that is not there, managed", "DELETE", base + f"/{self.users['alice']}/Trips/share-trip")

    def bad_input(self) -> None:
        self.area("bad-input")
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        world = Caller(self.r, api_token=self.api_token)
        for index, raw in enumerate(["not json", "{", '{"query":', '{"a":1}}', "[1,2]", '"text"', "null", ""]):
            alice.call(f"body that is not a JSON object #{index}", "public", "records/query", raw=raw)
        wrong = {
            "operations not an array": ("records/modify", {"operations": "create"}),
            "operation not an object": ("records/modify", {"operations": [5]}),
            "operationType not a string": ("records/modify", {"operations": [{"operationType": 1, "record": {}}]}),
            "unknown operationType": ("records/modify", {"operations": [{"operationType": "upsert", "record": {"recordName": "a"}}]}),
            "record missing": ("records/modify", {"operations": [{"operationType": "create"}]}),
            "fields not an object": ("records/modify", {"operations": [{"operationType": "create", "record": {"recordType": "Item", "fields": []}}]}),
            "field value not a dictionary": ("records/modify", {"operations": [{"operationType": "create", "record": {
                "recordType": "Item", "fields": {"title": "bare"}}}]}),
            "atomic not a boolean": ("records/modify", {"operations": [], "atomic": "sometimes"}),
            "desiredKeys not strings": ("records/query", {"query": {"recordType": "Item"}, "desiredKeys": [1]}),
            "query missing": ("records/query", {}),
            "recordType not a string": ("records/query", {"query": {"recordType": 5}}),
            "resultsLimit not a number": ("records/query", {"query": {"recordType": "Item"}, "resultsLimit": "many"}),
            "resultsLimit zero": ("records/query", {"query": {"recordType": "Item"}, "resultsLimit": 0}),
            "filterBy not an array": ("records/query", {"query": {"recordType": "Item", "filterBy": {"fieldName": "title"}}}),
            "filter without value": ("records/query", {"query": {"recordType": "Item", "filterBy": [{"comparator": "EQUALS", "fieldName": "title"}]}}),
            "filter without field": ("records/query", {"query": {"recordType": "Item", "filterBy": [{"comparator": "EQUALS", "fieldValue": {"value": "a"}}]}}),
            "sort on an unknown field": ("records/query", {"query": {"recordType": "Item", "sortBy": [{"fieldName": "nope"}]}}),
            "unknown record type": ("records/query", {"query": {"recordType": "Nope"}}),
            "unknown comparator": ("records/query", {"query": {"recordType": "Item", "filterBy": [
                {"comparator": "SOUNDS_LIKE", "fieldName": "title", "fieldValue": {"value": "x"}}]}}),
            "comparator the field is not indexed for": ("records/query", {"query": {"recordType": "Item", "filterBy": [
                {"comparator": "EQUALS", "fieldName": "body", "fieldValue": {"value": "x"}}]}}),
            "zoneID not an object": ("records/lookup", {"records": [{"recordName": "a"}], "zoneID": "_defaultZone"}),
            "records not an array": ("records/lookup", {"records": {"recordName": "a"}}),
            "lookup without recordName": ("records/lookup", {"records": [{"desiredKeys": []}]}),
            "zones missing": ("zones/lookup", {}),
            "201 lookups": ("records/lookup", {"records": [{"recordName": f"r{i}"} for i in range(201)]}),
            "201 operations": ("records/modify", {"operations": [
                {"operationType": "create", "record": {"recordName": f"many-{i}", "recordType": "Item"}} for i in range(201)]}),
        }
        for name, (subpath, body) in wrong.items():
            alice.call(name, "public", subpath, body)
        container = CONTAINER
        paths = {
            "unknown container": "/database/1/iCloud.com.example.Unknown/development/public/records/query",
            "malformed container": "/database/1/com.example.NoPrefix/development/public/records/query",
            "unknown environment": f"/database/1/{container}/staging/public/records/query",
            "other environment": f"/database/1/{container}/production/public/records/query",
            "unknown database": f"/database/1/{container}/development/everyone/records/query",
            "unknown endpoint": f"/database/1/{container}/development/public/records/teleport",
            "unknown version": f"/database/2/{container}/development/public/records/query",
        }
        for name, path in paths.items():
            self.r.http(name, "POST", f"{path}?ckAPIToken={self.api_token}", raw='{"query":{"recordType":"Item"}}')
        world.call("wrong method", "public", "records/query", method="GET")
        world.call("PUT is no API method", "public", "records/query", method="PUT", raw="{}")
        self.r.http("a path nothing serves, as JSON", "GET", "/nothing/here")
        self.r.http("a path nothing serves, as a page", "GET", "/nothing/here", headers={"Accept": "text/html"})

    def management_reads(self) -> None:
        self.area("management-reads")
        self.admin("management tokens", "GET", "/management-tokens")
        self.admin("a management token cannot mint another", "POST", "/management-tokens", {"name": "persistence"})
        self.admin("revoke a management token that is not there", "DELETE", "/management-tokens/0000000000000000")
        self.admin("audit trail", "GET", "/audit?limit=500")
        self.admin("audit trail of the container", "GET", f"/audit?container={CONTAINER}&limit=20")
        self.admin("audit trail of one action", "GET", "/audit?action=user.add&limit=20")
        self.admin("audit trail of another operator", "GET", "/audit?operator=nobody")
        self.admin("sign-in attacks", "GET", "/sign-in-attacks")
        logs = f"/containers/{CONTAINER}/logs"
        self.admin("request log: refused calls", "GET", logs + "?status=401&limit=20")
        self.admin("request log: one operation", "GET", logs + "?operation=records/query&limit=10")
        self.admin("request log: a bad filter", "GET", logs + "?status=banana")
        self.admin("request log as JSON lines", "GET", logs + "/export?format=jsonl&operation=records/lookup&status=403")
        self.admin("request log as CSV", "GET", logs + "/export?format=csv&operation=records/lookup&status=200")
        self.admin("request log in an unknown format", "GET", logs + "/export?format=xml")

    def security_and_limits(self) -> None:
        self.area("security-and-limits")
        base = f"/containers/{CONTAINER}/development"
        self.admin("security", "GET", base + "/security")
        self.admin("add a role", "POST", base + "/security/roles", {"name": "Reviewer"})
        self.admin("add it again", "POST", base + "/security/roles", {"name": "Reviewer"})
        self.admin("grants of Note", "PUT", base + "/security/record-types/Note/grants",
                   {"grants": [{"role": "_world", "permissions": ["read"]}, {"role": "Reviewer", "permissions": ["read", "write"]}]})
        self.admin("grants of an unknown type", "PUT", base + "/security/record-types/Nope/grants", {"grants": []})
        self.admin("give bob roles", "PUT", base + f"/users/bob/roles", {"roles": ["Editor", "Reviewer"]})
        self.admin("give bob a role nobody declared", "PUT", base + f"/users/bob/roles", {"roles": ["Ghost"]})
        self.admin("simulate bob writing a Note", "POST", base + "/security/simulate",
                   {"subject": "bob", "permission": "write", "recordType": "Note"})
        self.admin("simulate bob writing alice's Note", "POST", base + "/security/simulate",
                   {"subject": "bob", "permission": "write", "recordType": "Note", "recordName": "ref"})
        self.admin("simulate the world creating an Item", "POST", base + "/security/simulate",
                   {"subject": "_world", "permission": "create", "recordType": "Item"})
        self.admin("delete the role", "DELETE", base + "/security/roles/Reviewer")
        self.admin("security after", "GET", base + "/security")
        self.admin("limits", "GET", base + "/limits")
        self.admin("set limits", "PUT", base + "/limits", {"requestsPerSecond": 50, "burst": 100, "storageBytes": 1_000_000_000})
        self.admin("set a limit that is not a number", "PUT", base + "/limits", {"requestsPerSecond": "many"})
        self.admin("choose a preset", "PUT", base + "/limits", {"preset": "cloudkit"})
        self.admin("limits after", "GET", base + "/limits")
        # Back to the standard limits: the rest of the walk must never be throttled, however fast it runs.
        self.admin("back to the standard preset", "PUT", base + "/limits", {"preset": "standard", "storageBytes": None})
        self.admin("limits of production", "GET", f"/containers/{CONTAINER}/production/limits")

    def lifecycle(self) -> None:
        self.area("lifecycle")
        self.admin("sign carol out", "POST", f"/containers/{CONTAINER}/users/carol/sign-out")
        Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["carol"]).call(
            "carol's token after sign-out", "private", "zones/list", {})
        self.admin("remove carol", "DELETE", f"/containers/{CONTAINER}/users/carol")
        self.admin("remove carol again", "DELETE", f"/containers/{CONTAINER}/users/carol")
        self.admin("what a reset would remove", "GET", f"/containers/{OTHER_CONTAINER}/reset")
        self.admin("reset without confirming", "POST", f"/containers/{OTHER_CONTAINER}/reset", {"confirm": "no"})
        self.admin("reset", "POST", f"/containers/{OTHER_CONTAINER}/reset", {"confirm": OTHER_CONTAINER})

    def revocation(self) -> None:
        self.area("revocation")
        base = f"/containers/{CONTAINER}"
        doomed = self.admin_ok("an API token to revoke", "POST", base + "/tokens", {"name": "to revoke"})["token"]
        world = Caller(self.r, api_token=doomed)
        world.call("it works", "public", "records/lookup", {"records": [{"recordName": "nothing-here"}]})
        self.admin("revoke it", "DELETE", base + f"/tokens/{doomed}")
        world.call("refused after revocation", "public", "records/lookup", {"records": [{"recordName": "nothing-here"}]})
        self.admin("revoke it again", "DELETE", f"/tokens/{doomed}")
        key = Caller(self.r, key_id=self.key_id)
        self.admin("revoke the server key", "DELETE", f"/keys/{self.key_id}")
        key.call("the key refused after revocation", "public", "records/lookup", {"records": [{"recordName": "s2s-1"}]})
        alice = Caller(self.r, api_token=self.api_token, web_auth_token=self.web_auth["alice"])
        self.admin("new password for alice", "POST", base + "/users/alice/password", {"password": "a brand new password"})
        alice.call("alice's old session after a new password", "private", "zones/list", {})
        self.admin("API tokens at the end", "GET", base + "/tokens")
        self.admin("server keys at the end", "GET", base + "/keys")
        self.admin("users at the end", "GET", base + "/users")
        self.admin("audit trail at the end", "GET", f"/audit?container={CONTAINER}&limit=30")
