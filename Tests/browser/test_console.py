"""The console in a real (headless) browser: an operator logs in, creates a container, builds
its schema, creates, queries, edits and deletes records, meets the missing-index error and adds
the index from it, creates and revokes an API token (and the API refuses it), acts as an app
user, and logs out. Every page is checked with axe-core and saved as screenshots."""

import json
import re
import subprocess
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from console_harness import OPERATOR, PASSWORD, ConsoleServer, Pages

CONTAINER = "iCloud.com.example.Console"
BASE = f"/console/containers/{CONTAINER}/development"


@pytest.fixture(scope="module")
def server(binaries):
    data_dir = tempfile.mkdtemp(prefix="cumulus-console-")
    running = ConsoleServer(binaries, data_dir)
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def pages(driver, server):
    return Pages(driver, server)


def api_query(server, token, record_type):
    """A records/query (pages > 500) through the data API with an API token: (status, body)."""
    request = urllib.request.Request(
        f"{server.url}/database/1/{CONTAINER}/development/public/records/query?ckAPIToken={token}",
        data=json.dumps({"query": {"recordType": record_type, "filterBy": [
            {"fieldName": "pages", "comparator": "GREATER_THAN", "fieldValue": {"value": 500}}]}}).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_01_login_from_the_keyboard(pages, driver):
    pages.open("/console/containers")
    assert "/console/login" in driver.current_url, "an anonymous visitor is sent to the login page"
    pages.check("login")
    # Keyboard only: the name field has the focus; Tab to the password, Enter submits.
    active = driver.switch_to.active_element
    assert active.get_attribute("id") == "name"
    active.send_keys(OPERATOR, Keys.TAB)
    old = driver.find_element(By.TAG_NAME, "html")
    driver.switch_to.active_element.send_keys(PASSWORD, Keys.ENTER)
    WebDriverWait(driver, 15).until(lambda d: old != d.find_element(By.TAG_NAME, "html"))
    assert driver.current_url.endswith("/console/containers")
    cookie = driver.get_cookie("cumulus_console")
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert OPERATOR in pages.text()


def test_02_create_a_container(pages, driver):
    pages.check("containers")
    pages.find("#identifier").send_keys(CONTAINER)
    pages.submit("form[action='/console/containers'] button[type=submit]")
    assert driver.current_url.endswith(f"{BASE}/public/records")
    assert f"Container {CONTAINER} created." in pages.text()
    pages.check("records-empty")


def test_03_schema_type_field_and_index(pages, driver):
    pages.open(f"{BASE}/schema")
    pages.find("#type-name").send_keys("Book")
    pages.submit("form[action$='/schema/types'] button[type=submit]")
    assert "Record type Book created." in pages.text()
    for name, field_type, queryable in (("title", "STRING", True), ("pages", "INT64", False), ("published", "TIMESTAMP", False),
                                        ("place", "LOCATION", False), ("tags", "STRING_LIST", False)):
        pages.find("#type-Book-field-name").send_keys(name)
        Select(pages.find("#type-Book-field-type")).select_by_value(field_type)
        if queryable:
            pages.find("#new-Book-QUERYABLE").click()
        pages.submit("form[action$='/types/Book/fields'] button[type=submit]")
        assert f"Field {name} added to Book." in pages.text()
    # An index added to an existing field, saved with the type's one form.
    pages.find("#ix-Book-title-SORTABLE").click()
    pages.submit("button[form='type-Book-indexes']")
    assert "Indexes of Book saved." in pages.text()
    assert pages.find("#ix-Book-title-QUERYABLE").is_selected() and pages.find("#ix-Book-title-SORTABLE").is_selected()
    pages.check("schema-development")
    pages.open(f"/console/containers/{CONTAINER}/production/schema")
    assert "read-only" in pages.text()
    assert not driver.find_elements(By.CSS_SELECTOR, "form[action$='/schema/types']")
    pages.check("schema-production")


def create_book(pages, driver, title, page_count, tags=""):
    pages.open(f"{BASE}/public/records/new?type=Book")
    pages.find("#field-title").send_keys(title)
    pages.find("#field-pages").send_keys(str(page_count))
    pages.find("#field-place").send_keys("48.8584, 2.2945")
    if tags:
        pages.find("#field-tags").send_keys(tags)
    pages.submit("form.record-form button[type=submit]")
    assert "created." in pages.text(), pages.text()


def test_04_create_query_edit_and_delete_records(pages, driver):
    pages.open(f"{BASE}/public/records/new?type=Book")
    pages.check("record-new")
    create_book(pages, driver, "Dune", 412, "classic\nsf")
    pages.check("record-detail")
    assert "48.858400, 2.294500" in pages.text()
    tags = driver.find_elements(By.CSS_SELECTOR, "ol.values li")
    assert [tag.text for tag in tags] == ["classic", "sf"], "a list field takes one element per line"
    create_book(pages, driver, "Emma", 474)
    create_book(pages, driver, "Dracula", 418)
    # Two filters: title begins with "D" and title is not "Dracula".
    pages.open(f"{BASE}/public/records?type=Book")
    Select(pages.find("#f0-field")).select_by_value("title")
    Select(pages.find("#f0-op")).select_by_value("BEGINS_WITH")
    pages.find("#f0-value").send_keys("D")
    pages.submit(".query-form button[type=submit]")
    Select(pages.find("#f1-field")).select_by_value("title")
    Select(pages.find("#f1-op")).select_by_value("NOT_EQUALS")
    pages.find("#f1-value").send_keys("Dracula")
    # Enter in a field submits the query form: the keyboard path.
    old = driver.find_element(By.TAG_NAME, "html")
    pages.find("#f1-value").send_keys(Keys.ENTER)
    WebDriverWait(driver, 15).until(lambda d: old != d.find_element(By.TAG_NAME, "html"))
    rows = driver.find_elements(By.CSS_SELECTOR, "table.records tbody tr")
    assert len(rows) == 1 and "Dune" in rows[0].text
    pages.check("records-query")

    # Edit Dune, with its change tag.
    rows[0].find_element(By.CSS_SELECTOR, "a").click()
    pages.find("a.button[href$='/edit']").click()
    pages.check("record-edit")
    edit_url = driver.current_url
    stale = driver.page_source
    title = pages.find("#field-title")
    title.clear()
    title.send_keys("Dune Messiah")
    pages.submit("form.record-form button[type=submit]")
    assert "saved." in pages.text() and "Dune Messiah" in pages.text()

    # A second edit from the form opened before the first save is refused as a conflict.
    driver.get(edit_url)
    driver.execute_script("document.querySelector('input[name=recordChangeTag]').value = arguments[0]",
                          stale.split('name="recordChangeTag" value="')[1].split('"')[0])
    title = pages.find("#field-title")
    title.clear()
    title.send_keys("Children of Dune")
    pages.submit("form.record-form button[type=submit]")
    assert "Someone else changed this record" in pages.text()
    pages.check("record-conflict")

    # Delete one record, confirming.
    pages.open(f"{BASE}/public/records?type=Book&f0.field=title&f0.op=EQUALS&f0.value=Emma")
    driver.find_element(By.CSS_SELECTOR, "table.records tbody tr a").click()
    pages.submit("form[action$='/delete'] button[type=submit]")
    assert "Delete record" in pages.text()
    pages.check("record-delete-confirm")
    pages.submit("form.actions button.danger")
    assert "deleted." in pages.text()
    pages.open(f"{BASE}/public/records?type=Book&f0.field=title&f0.op=EQUALS&f0.value=Emma")
    assert "No records match." in pages.text()

    # Bulk: select the rest and delete them. (A query without filters needs ___recordID
    # queryable, as in CloudKit, so this one filters on the queryable title.)
    pages.open(f"{BASE}/public/records?type=Book&f0.field=title&f0.op=NOT_EQUALS&f0.value=none")
    boxes = driver.find_elements(By.CSS_SELECTOR, "table.records tbody input[type=checkbox]")
    assert len(boxes) == 2
    for box in boxes:
        box.click()
    pages.submit("button[form=bulk]")
    assert "Delete 2 records?" in pages.text()
    pages.submit("form.actions button.danger")
    assert "2 records deleted." in pages.text()


def test_05_missing_index_offered_and_added(pages, driver):
    create_book(pages, driver, "Ulysses", 730)
    pages.open(f"{BASE}/public/records?type=Book&f0.field=pages&f0.op=GREATER_THAN&f0.value=500")
    assert "This query needs an index" in pages.text()
    assert "pages" in pages.text() and "QUERYABLE" in pages.text()
    pages.check("records-missing-index")
    pages.submit("section.warning button[type=submit]")
    assert "Added a QUERYABLE index on Book.pages" in pages.text()
    rows = driver.find_elements(By.CSS_SELECTOR, "table.records tbody tr")
    assert len(rows) == 1 and "Ulysses" in rows[0].text


def test_06_api_token_created_and_revoked(pages, driver, server):
    pages.open(f"{BASE}/tokens")
    pages.find("#token-name").send_keys("Browser test")
    pages.submit("form.grid-form button[type=submit]")
    notice = pages.find(".notice").text
    token = notice.rsplit(": ", 1)[1].strip()
    assert len(token) == 64
    pages.check("tokens")
    status, body = api_query(server, token, "Book")
    assert status == 200 and len(body["records"]) == 1
    pages.submit("form[action$='/revoke'] button[type=submit]")
    pages.check("token-revoke-confirm")
    pages.submit("form.actions button.danger")
    assert "API token revoked." in pages.text()
    status, body = api_query(server, token, "Book")
    assert status in (401, 403) and body.get("serverErrorCode") in ("AUTHENTICATION_FAILED", "ACCESS_DENIED"), body


def test_07_act_as_user(pages, driver):
    pages.open(f"{BASE}/users")
    pages.find("#user-name").send_keys("reader")
    pages.find("#user-password").send_keys("reader password")
    pages.submit("form.grid-form button[type=submit]")
    assert "User reader added." in pages.text()
    pages.submit("button[aria-label='Let others find reader']")
    assert "Other users can now find reader" in pages.text()
    assert pages.find("button[aria-label='Stop others finding reader']")
    pages.check("users")
    pages.find("a[href*='/private/records']").click()
    assert "/private/records" in driver.current_url and "user=reader" in driver.current_url
    pages.check("records-private")
    pages.find("a.button[href*='/records/new']").click()
    pages.find("#field-title").send_keys("Reader's own book")
    pages.submit("form.record-form button[type=submit]")
    assert "created." in pages.text() and "user=reader" in driver.current_url
    # Listing every record is browsing by record name, which needs no index (unlike a
    # CloudKit query without filters, which needs recordName queryable).
    pages.open(f"{BASE}/private/records?user=reader&type=Book")
    assert "This query needs an index" not in pages.text()
    rows = driver.find_elements(By.CSS_SELECTOR, "table.records tbody tr")
    assert len(rows) == 1 and "Reader's own book" in rows[0].text
    # The public database does not hold it.
    pages.open(f"{BASE}/public/records?type=Book")
    assert "Ulysses" in pages.text() and "Reader's own book" not in pages.text()
    # Production keeps users' private data to themselves.
    pages.open(f"/console/containers/{CONTAINER}/production/private/records?user=reader")
    assert "belongs to them alone" in pages.text()


def test_08_other_pages(pages, driver):
    pages.open(f"{BASE}/public/zones")
    pages.check("zones")
    pages.open(f"{BASE}/private/zones?user=reader")
    pages.find("#zoneName").send_keys("Shelf")
    pages.submit("form.inline-form button[type=submit]")
    assert "Zone Shelf created." in pages.text()
    pages.check("zones-private")
    pages.open(f"{BASE}/keys")
    # A private key pasted by mistake is refused with the diagnostic `keys add` gives.
    private = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"],
                             capture_output=True, text=True, check=True).stdout
    pages.find("#key-name").send_keys("nightly")
    driver.execute_script("document.querySelector('#key-pem').value = arguments[0]", private)
    pages.submit("form[action$='/keys'] button[type=submit]")
    assert "private key" in pages.text().lower()
    public = subprocess.run(["openssl", "ec", "-pubout"], input=private, capture_output=True, text=True, check=True).stdout
    pages.find("#key-name").send_keys("nightly")
    driver.execute_script("document.querySelector('#key-pem').value = arguments[0]", public)
    pages.submit("form[action$='/keys'] button[type=submit]")
    rows = driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")
    assert len(rows) == 1 and "nightly" in rows[0].text and re.search(r"[0-9a-f]{64}|SHA256:", rows[0].text), rows[0].text
    pages.check("keys")
    pages.open("/console/management-tokens")
    pages.find("#mt-name").send_keys("laptop")
    pages.submit("form.inline-form button[type=submit]")
    assert pages.find("#new-token").get_attribute("value").startswith("cumulus_mt_")
    pages.check("management-tokens")
    pages.open(f"{BASE}/schema")
    pages.find("#schema-text").send_keys("DEFINE SCHEMA\n  RECORD TYPE Broken (\n    title STRNG\n  );\n")
    pages.submit("form[enctype='multipart/form-data'] button[type=submit]")
    assert "line 3" in pages.text()
    excerpt = pages.find("pre.excerpt").text.splitlines()
    assert excerpt[0].strip() == "3 |     title STRNG" and excerpt[1].index("^") == excerpt[0].index("STRNG"), excerpt
    pages.check("schema-upload-error")


def tiny_png():
    """A 24×16 PNG, blue, made here so the test needs no file."""
    import struct
    import zlib
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\x20\x60\xd0" * 24 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 24, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def api_call(server, path, body, api_token, web_auth_token=None, database="public"):
    """A CloudKit Web Services call in the test container: (status, body)."""
    query = f"ckAPIToken={api_token}" + (f"&ckWebAuthToken={quote(web_auth_token, safe='')}" if web_auth_token else "")
    request = urllib.request.Request(
        f"{server.url}/database/1/{CONTAINER}/development/{database}/{path}?{query}",
        data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_08e_sync_inspector_subscriptions_and_queued_notifications(pages, driver, server):
    server.cli("users", "add", "--container", CONTAINER, "syncer", input="a long passphrase\n")
    web_auth_token = server.cli("users", "token", "--container", CONTAINER, "syncer", input="a long passphrase\n").strip()
    api_token = server.cli("tokens", "create", "--container", CONTAINER).strip()
    status, _ = api_call(server, "tokens/create", {"apnsEnvironment": "development"}, api_token, web_auth_token)
    assert status == 200
    status, body = api_call(server, "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": "every-book", "subscriptionType": "query", "query": {"recordType": "Book"}}}]}, api_token, web_auth_token)
    assert status == 200 and "serverErrorCode" not in body["subscriptions"][0], body
    for name in ("sync-a", "sync-b"):
        status, body = api_call(server, "records/modify", {"operations": [{"operationType": "forceReplace", "record": {
            "recordName": name, "recordType": "Book", "fields": {"title": {"value": name}}}}]}, api_token, web_auth_token)
        assert status == 200 and "serverErrorCode" not in body["records"][0], body
    status, _ = api_call(server, "records/modify", {"operations": [{"operationType": "forceDelete", "record": {"recordName": "sync-a"}}]},
                         api_token, web_auth_token)
    assert status == 200

    pages.open(f"{BASE}/public/sync")
    text = pages.text()
    assert "Change feed of _defaultZone" in text
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")]
    assert any("deleted" in row and "sync-a" in row for row in rows), rows
    pages.check("sync")
    # Subscriptions and queues are on the Sync tab's Notifications view.
    pages.open(f"{BASE}/public/sync/notifications")
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")]
    assert any("every-book" in row and "Book in every zone" in row for row in rows), rows
    queued = driver.find_elements(By.XPATH, "//h2[text()='Notifications waiting']/following::table[1]//tbody/tr")
    assert len(queued) == 1 and queued[0].text.endswith("3"), [row.text for row in queued]
    pages.check("sync-notifications")
    pages.open(f"{BASE}/public/sync")

    # What a client holding the current token would get next: nothing; from no token, both names.
    token = pages.find("dl.meta dd code").text
    pages.find("#sync-token").send_keys(token)
    pages.submit("#sync-token ~ button[type=submit]")
    assert "0 changes." in pages.text()
    pages.find("#sync-token").clear()
    pages.submit("#sync-token ~ button[type=submit]")
    answer = pages.text()
    assert "deleted sync-a" in answer and "sync-b Book" in answer, answer
    pages.find("#sync-token").send_keys("forged")
    pages.submit("#sync-token ~ button[type=submit]")
    assert "BAD_REQUEST: The sync token is not valid" in pages.text()
    pages.check("sync-next-page")

    # An asset on a record: its size, type, a download and, for an image, a preview.
    status, body = api_call(server, "assets/upload", {"tokens": [{"recordName": "with-cover", "recordType": "Book", "fieldName": "cover"}]},
                            api_token, web_auth_token)
    assert status == 200, body
    upload = urllib.request.Request(body["tokens"][0]["url"], data=tiny_png(), headers={"Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(upload, timeout=10) as response:
        single_file = json.loads(response.read())["singleFile"]
    status, body = api_call(server, "records/modify", {"operations": [{"operationType": "forceReplace", "record": {
        "recordName": "with-cover", "recordType": "Book", "fields": {"title": {"value": "Covered"}, "cover": {"value": single_file}}}}]},
        api_token, web_auth_token)
    assert status == 200 and "serverErrorCode" not in body["records"][0], body
    pages.open(f"{BASE}/public/records/with-cover")
    assert "image/png" in pages.text()
    preview = pages.find("img.preview")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", preview) == 24)
    pages.check("record-with-asset")

    # Delete the subscription after the confirmation.
    pages.open(f"{BASE}/public/sync/notifications")
    pages.submit("form[action$='/subscriptions/delete'] button[type=submit]")
    assert "Delete subscription every-book?" in pages.text()
    pages.submit("form button.danger")
    assert "Subscription every-book deleted." in pages.text()
    assert "No subscriptions in this environment." in pages.text()

    # The push token syncer holds: listed with when it was made and last used, revoked after the confirmation.
    held = driver.find_elements(By.XPATH, "//h2[text()='Push tokens']/following::table[1]//tbody/tr[contains(., 'syncer')]")
    assert len(held) == 1, [row.text for row in held]
    token_id = held[0].find_element(By.CSS_SELECTOR, "input[name=pushTokenID]").get_attribute("value")
    pages.check("sync-push-tokens")
    held[0].find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    pages.wait_for_text(f"Revoke push token {token_id}?")
    pages.submit("form button.danger")
    assert f"Push token {token_id} revoked." in pages.text()
    assert not driver.find_elements(By.XPATH, "//h2[text()='Push tokens']/following::table[1]//tbody/tr[contains(., 'syncer')]")
    server.cli("users", "sign-out", "--container", CONTAINER, "syncer")


def test_08f_sharing_page_lists_shares_and_removes_a_participant(pages, driver, server):
    api_token = server.cli("tokens", "create", "--container", CONTAINER).strip()
    tokens = {}
    for name in ("sharer", "guest"):
        server.cli("users", "add", "--container", CONTAINER, name, input="a long passphrase\n")
        tokens[name] = server.cli("users", "token", "--container", CONTAINER, name, input="a long passphrase\n").strip()
    status, body = api_call(server, "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Trips"}}}]},
                            api_token, tokens["sharer"], database="private")
    assert status == 200, body
    status, body = api_call(server, "users/caller", {}, api_token, tokens["guest"])
    guest = body["userRecordName"]
    status, body = api_call(server, "records/modify", {"zoneID": {"zoneName": "Trips"}, "operations": [
        {"operationType": "create", "record": {"recordName": "lisbon", "recordType": "Trip", "fields": {"title": {"value": "Lisbon"}}}},
        {"operationType": "create", "record": {"recordName": "lisbon-share", "recordType": "cloudkit.share", "forRecord": {"recordName": "lisbon"},
         "publicPermission": "READ_ONLY", "participants": [{"userIdentity": {"userRecordName": guest}, "permission": "READ_WRITE"}]}}]},
        api_token, tokens["sharer"], database="private")
    assert status == 200 and "serverErrorCode" not in body["records"][1], body
    short_guid = body["records"][1]["shortGUID"]
    owner = body["records"][1]["owner"]["userIdentity"]["userRecordName"]
    status, body = api_call(server, "records/accept", {"shortGUIDs": [{"value": short_guid}]}, api_token, tokens["guest"])
    assert status == 200 and body["results"][0]["participantStatus"] == "ACCEPTED", body
    trips = {"zoneName": "Trips", "ownerRecordName": owner}
    status, body = api_call(server, "records/lookup", {"zoneID": trips, "records": [{"recordName": "lisbon"}]}, api_token, tokens["guest"],
                            database="shared")
    assert body["records"][0]["fields"]["title"]["value"] == "Lisbon", body

    pages.open(f"{BASE}/sharing")
    text = pages.text()
    assert "lisbon-share of sharer, zone Trips" in text, text
    assert "record lisbon and the records under it" in text and short_guid in text
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")]
    assert any(row.startswith("guest") and "read and write" in row and "accepted" in row for row in rows), rows
    pages.check("sharing")

    # Remove the guest after the confirmation: their next request finds nothing.
    pages.submit("form[action$='/participants/remove'] button[type=submit]")
    assert "Remove guest from share lisbon-share?" in pages.text()
    pages.submit("form button.danger")
    assert "guest was removed from share lisbon-share." in pages.text()
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")]
    assert any(row.startswith("guest") and "removed" in row for row in rows), rows
    status, body = api_call(server, "records/lookup", {"zoneID": trips, "records": [{"recordName": "lisbon"}]}, api_token, tokens["guest"],
                            database="shared")
    assert body["records"][0]["serverErrorCode"] == "ZONE_NOT_FOUND", body
    listed = server.cli("shares", "list", "--container", CONTAINER)
    assert "lisbon-share" in listed and "REMOVED" in listed, listed

    # Production shows its shares and offers no change.
    pages.open(f"/console/containers/{CONTAINER}/production/sharing")
    assert "In production shares belong to their users" in pages.text()
    assert not driver.find_elements(By.CSS_SELECTOR, "form[action$='/delete'] button")

    pages.open(f"{BASE}/sharing")
    pages.submit("form[action$='/sharing/delete'] button[type=submit]")
    pages.submit("form button.danger")
    assert "Share lisbon-share was deleted." in pages.text()
    assert "Nothing is shared in this environment." in pages.text()
    for name in tokens:
        server.cli("users", "sign-out", "--container", CONTAINER, name)


def ask_simulator(pages, subject, permission, record_type):
    pages.open(f"{BASE}/security?subject={subject}&permission={permission}&type={record_type}#simulator")
    return pages.find("p.answer").text


def test_08b_security_roles_and_the_simulator(pages, driver):
    answer = ask_simulator(pages, "signedIn", "CREATE", "Book")
    assert answer.startswith("Allowed") and 'GRANT CREATE TO "_icloud"' in answer, answer
    pages.check("security")
    # Take CREATE from _icloud in development: the simulator's answer changes.
    box = pages.find("input[name='g._icloud.CREATE'][form='grants-Book']")
    assert box.is_selected()
    box.click()
    pages.submit("form#grants-Book button[type=submit]")
    assert "Grants of Book saved." in pages.text()
    answer = ask_simulator(pages, "signedIn", "CREATE", "Book")
    assert answer.startswith("Denied") and "no grant gives CREATE on Book" in answer, answer
    # Every grant weighed, with whether it gives CREATE and why: none does.
    weighed = {row.find_element(By.CSS_SELECTOR, "td[data-label='Grant or rule'] code").text:
               (row.find_element(By.CSS_SELECTOR, "td[data-label='Gives it']").text,
                row.find_element(By.CSS_SELECTOR, "td[data-label='Why']").text)
               for row in driver.find_elements(By.CSS_SELECTOR, "#simulator table.checks tbody tr")}
    assert weighed and all(gives == "no" for gives, _ in weighed.values()), weighed
    assert any("not CREATE" in why for _, why in weighed.values()), weighed
    pages.check("security-denied")
    # A custom role, given to a user, and CREATE granted to it.
    pages.find("#role-name").send_keys("Author")
    pages.submit("form[action$='/security/roles'] button[type=submit]")
    assert "Role Author created." in pages.text()
    pages.find("#holder-user").send_keys("reader")
    pages.submit("form[action$='/security/holders'] button[type=submit]")
    assert "reader now holds Author." in pages.text()
    pages.find("input[name='g.Author.CREATE'][form='grants-Book']").click()
    pages.submit("form#grants-Book button[type=submit]")
    pages.open(f"{BASE}/security?subject=user&user=reader&permission=CREATE&type=Book#simulator")
    assert 'GRANT CREATE TO "Author" (the user holds the role)' in pages.find("p.answer").text
    giving = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#simulator table.checks tbody tr")
              if row.find_element(By.CSS_SELECTOR, "td[data-label='Gives it']").text == "yes"]
    assert len(giving) == 1 and 'GRANT CREATE TO "Author"' in giving[0] and "holds the role Author" in giving[0], giving
    assert ask_simulator(pages, "signedIn", "CREATE", "Book").startswith("Denied")
    # Signed-in users create again, as before.
    pages.find("input[name='g._icloud.CREATE'][form='grants-Book']").click()
    pages.submit("form#grants-Book button[type=submit]")
    assert ask_simulator(pages, "signedIn", "CREATE", "Book").startswith("Allowed")
    # Production is read-only.
    pages.open(f"/console/containers/{CONTAINER}/production/security")
    assert not driver.find_elements(By.CSS_SELECTOR, "form[id^='grants-'] button")


def test_08c_request_log_and_live_tail(pages, driver, server):
    pages.open(f"{BASE}/logs")
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.logs tbody tr")]
    assert any("records/query" in row and "200" in row for row in rows), rows[:5]
    assert any("401" in row and "AUTHENTICATION_FAILED" in row for row in rows), "the call with the revoked token"
    pages.check("logs")
    pages.find("#log-errors").click()
    pages.submit("form.log-filters button[type=submit]")
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.logs tbody tr")]
    assert rows and all("401" in row or "400" in row or "421" in row for row in rows), rows
    # The live tail shows a call made after it started, and keeps the errors-only filter.
    pages.open(f"{BASE}/logs?operation=records/lookup")
    before = len(driver.find_elements(By.CSS_SELECTOR, "table.logs tbody tr"))
    pages.find("#tail-toggle").click()
    WebDriverWait(driver, 10).until(lambda d: "Live tail:" in d.find_element(By.ID, "tail-status").text)
    time.sleep(0.5)
    api_lookup(server, server.cli("tokens", "create", "--container", CONTAINER).strip())
    WebDriverWait(driver, 15).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "table.logs tbody tr")) > before)
    newest = driver.find_elements(By.CSS_SELECTOR, "table.logs tbody tr")[0].text
    assert "records/lookup" in newest, newest


def test_08d_usage_limits_and_throttling(pages, driver, server):
    pages.open(f"{BASE}/usage")
    assert "5,000 a second" in pages.text() and "the standard limits" in pages.text()
    assert len(driver.find_elements(By.CSS_SELECTOR, "figure.chart svg path")) >= 7, "two lines each for three charts, one for storage"
    pages.check("usage")
    # A rate of one a second, in bursts of one: the second of two quick calls is throttled.
    pages.find(".limits-editor summary").click()
    rate = pages.find("#limits-rate")
    rate.clear()
    rate.send_keys("1")
    burst = pages.find("#limits-burst")
    burst.clear()
    burst.send_keys("1")
    pages.find("#limits-storage").send_keys("50000000")
    pages.submit("form[action*='/usage/limits'] button[type=submit]")
    assert "The limits of development were saved" in pages.text()
    assert "1 a second, in bursts of up to 1." in pages.text() and "of 50 MB" in pages.text()
    token = server.cli("tokens", "create", "--container", CONTAINER).strip()
    statuses = [api_lookup(server, token) for _ in range(2)]
    assert statuses == [200, 429], statuses
    pages.open(f"{BASE}/usage?range=hour")
    assert pages.find("nav.segmented a.current").text == "Last hour"
    requests = pages.find("#chart-requests svg").get_attribute("aria-label")
    errors = re.search(r"Errors: at most (\d+), last (\d+)", requests)
    assert errors and int(errors.group(2)) >= 1, "the throttled call is this minute's error: " + requests
    pages.check("usage-hour")
    # Back to the standard limits, by preset, for the pages after this one.
    pages.find(".limits-editor summary").click()
    Select(pages.find("#limits-preset")).select_by_value("standard")
    pages.submit("form[action*='/usage/limits'] button[type=submit]")
    assert "5,000 a second" in pages.text()
    assert api_lookup(server, token) == 200


def api_lookup(server, token, web_auth_token=None, answer=False):
    """A records/lookup in the test container with an API token of it (and a signed-in user's
    web auth token): its status, or (status, body) with `answer`."""
    query = f"ckAPIToken={token}"
    if web_auth_token:
        query += "&ckWebAuthToken=" + quote(web_auth_token, safe="")
    request = urllib.request.Request(
        f"{server.url}/database/1/{CONTAINER}/development/private/records/lookup?{query}" if web_auth_token
        else f"{server.url}/database/1/{CONTAINER}/development/public/records/lookup?{query}",
        data=json.dumps({"records": [{"recordName": "nothing"}]}).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    return (status, json.loads(body or b"{}")) if answer else status


def upload_schema(pages, text):
    pages.open(f"{BASE}/schema")
    pages.find("#schema-text").send_keys(text)
    pages.submit("form[enctype='multipart/form-data'] button[type=submit]")
    # The upload shows what the import would change first; its own button imports.
    pages.submit(".import-preview form button[type=submit]")


def test_09_deploy_the_schema_then_refuse_a_removal(pages, driver):
    upload_schema(pages, "DEFINE SCHEMA\n  CREATE ROLE Editor;\n  RECORD TYPE Book (\n    title STRING QUERYABLE SORTABLE\n  );\n")
    assert "Schema imported into development." in pages.text()
    pages.open(f"{BASE}/deploy")
    changes = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")]
    assert any("add record type Book" in change for change in changes), changes
    assert any("add role Editor" in change for change in changes), changes
    pages.check("deploy")
    pages.submit("form[action$='/deploy'] button[type=submit]")
    assert "Deployed" in pages.text() and "changes to production." in pages.text()
    assert "by admin" in pages.find("ol.history").text
    assert "Production's schema is already development's" in pages.text()
    pages.check("deploy-history")
    # Production's schema page now has Book, read-only.
    pages.open(f"/console/containers/{CONTAINER}/production/schema")
    assert "Book" in pages.text() and "title" in pages.text()

    # A schema without the role would take it from production: refused, with its reason.
    upload_schema(pages, "DEFINE SCHEMA\n  RECORD TYPE Book (\n    title STRING QUERYABLE SORTABLE\n  );\n")
    pages.open(f"{BASE}/deploy")
    assert "Role Editor is in production but not in development: deployed roles cannot be removed" in pages.find(".alert").text
    assert not driver.find_elements(By.CSS_SELECTOR, "form[action$='/deploy'] button[type=submit]")
    pages.check("deploy-refused")


def test_10_reset_development(pages, driver, server):
    # A user signed in to development, whose session the reset ends.
    server.cli("users", "add", "--container", CONTAINER, "resetter", input="a long passphrase\n")
    web_auth_token = server.cli("users", "token", "--container", CONTAINER, "resetter", input="a long passphrase\n").strip()
    api_token = server.cli("tokens", "create", "--container", CONTAINER).strip()
    assert api_lookup(server, api_token, web_auth_token) == 200
    pages.open(f"{BASE}/reset")
    counts = pages.find("ul.counts").text
    assert "records" in counts and "zone" in counts and "1 signed-in session of development" in counts, counts
    pages.check("reset")
    pages.find("#confirm").send_keys("iCloud.com.example.Wrong")
    pages.submit("form[action$='/reset'] button.danger")
    assert "type the container identifier" in pages.text()
    pages.find("#confirm").send_keys(CONTAINER)
    pages.submit("form[action$='/reset'] button.danger")
    assert "Development was reset:" in pages.text() and "/public/records" in driver.current_url
    status, body = api_lookup(server, api_token, web_auth_token, answer=True)
    assert status == 421 and body["reason"] == "The session ended when its environment was reset; sign in again", body
    # Development holds nothing and has production's schema again, role included.
    pages.open(f"{BASE}/public/records?type=Book&f0.field=title&f0.op=NOT_EQUALS&f0.value=none")
    assert "No records match." in pages.text()
    pages.open(f"{BASE}/schema")
    assert "Editor" in pages.text()
    # Production is never reset.
    pages.open(f"/console/containers/{CONTAINER}/production/reset")
    assert "Production is never reset" in pages.text()


def test_10b_the_audit_trail_shows_who_did_what(pages, driver):
    pages.open("/console/audit")
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.audit tbody tr")]
    assert "environment.reset" in rows[0] and "admin" in rows[0], rows[:3]
    # Each action says where it came from: the browser's address, as the server saw it.
    assert "from 127.0.0.1" in rows[0], rows[:3]
    assert any("schema.deploy" in row for row in rows)
    assert any("record.delete" in row for row in rows) and any("token.revoke" in row for row in rows)
    pages.check("audit")
    Select(pages.find("#audit-action")).select_by_visible_text("Schema and deployments")
    pages.submit("form[action='/console/audit'] button[type=submit]")
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.audit tbody tr")]
    assert rows and all("schema." in row for row in rows), rows


def test_11_log_out(pages, driver):
    pages.open("/console/containers")
    pages.submit("form[action='/console/logout'] button")
    assert "/console/login" in driver.current_url and "You are logged out." in pages.text()
    pages.open(f"{BASE}/public/records")
    assert "/console/login" in driver.current_url
