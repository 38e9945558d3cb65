"""The Sync page as a debugger, on the console review's data shape: the public zone's log of
about 450 changes is shown newest first and paged both ways; the newest change of one record is
found by its name, with who made it and through which API token, and links to the record; a
device's token is decoded and its pending changes marked; the next page is shown as a named
reader who may not read one of the pending records, which is left out; in production a user's
database shows metadata only. Every page is checked with axe-core and photographed at 1280×800
and 390×844."""

import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from cloudkit_client import CloudKitClient  # noqa: E402


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def client_of(review, name):
    user = review.users[name]
    return CloudKitClient(review.server.url, review.container, "development", api_token=review.api_token,
                          web_auth_token=user.web_auth_token)


def log_rows(driver):
    """The change log's rows as (change, what, record, changed by) texts."""
    rows = []
    for row in driver.find_elements(By.CSS_SELECTOR, "table.list[aria-label] tbody tr, div[aria-label='Change log'] tbody tr"):
        cells = row.find_elements(By.CSS_SELECTOR, "td")
        rows.append(tuple(cell.text.strip() for cell in cells))
    return rows


def test_the_log_is_newest_first_and_pages_both_ways(pages, review, driver):
    pages.open(review.console("public/sync"))
    position = pages.find("#sync-position").text
    assert position.startswith("Changes ") and " of " in position, position
    total = int(position.rsplit(" of ", 1)[1].replace(",", ""))
    assert total >= 440, f"the review's public zone has about 450 changes, not {total}"
    rows = log_rows(driver)
    assert len(rows) == 50
    numbers = [int(row[0].replace(",", "")) for row in rows]
    assert numbers == sorted(numbers, reverse=True) and numbers[0] == total, numbers[:3]
    # The newest change is the last write of the seed.
    assert rows[0][3] in ("label-1", "note-after-deploy"), rows[0]
    pages.check("sync-newest")

    driver.find_element(By.LINK_TEXT, "Older changes").click()
    older = [int(row[0].replace(",", "")) for row in log_rows(driver)]
    assert older[0] == numbers[-1] - 1 and len(older) == 50
    driver.find_element(By.LINK_TEXT, "Newer changes").click()
    assert [int(row[0].replace(",", "")) for row in log_rows(driver)] == numbers


def test_the_newest_change_of_a_record_is_found_by_its_name(pages, review, driver):
    pages.open(review.console("public/sync"))
    search = pages.find("#sync-record")
    search.send_keys("note-0003")
    pages.submit("form[aria-label='Change log'] button[type=submit]")
    rows = log_rows(driver)
    # note-0003 was created by alice and edited by her; bob's edit was refused and is not a change.
    assert [(row[2].split()[0], row[3]) for row in rows] == [("updated", "note-0003"), ("created", "note-0003")], rows
    assert rows[0][5].startswith("alice") and "via API token iOS app" in rows[0][5], rows[0]
    assert review.users["alice"].record_name not in pages.text()
    pages.check("sync-search")
    link = driver.find_element(By.CSS_SELECTOR, "div[aria-label='Change log'] tbody tr a[href*='/records/note-0003']")
    link.click()
    assert "/records/note-0003" in driver.current_url
    assert "Note 3 (edited)" in pages.text()


def test_a_devices_pending_changes_as_a_reader_who_may_not_read_one(pages, review, driver):
    alice, bob = client_of(review, "alice"), client_of(review, "bob")
    trips = {"zoneName": review.trips_zone, "ownerRecordName": review.users["alice"].record_name}
    # bob's device has followed the shared zone to its end: the token it holds.
    answer = bob.post("shared", "records/changes", {"zoneID": trips}).json()
    held = answer["syncToken"]
    # Then alice adds a stop under the shared trip and a record of her own outside it.
    saved = alice.post("private", "records/modify", {"zoneID": {"zoneName": review.trips_zone}, "operations": [
        {"operationType": "create", "record": {"recordName": "stop-7", "recordType": "Stop",
                                               "fields": {"city": {"value": "Sapporo"}}, "parent": {"recordName": review.trip_root}}},
        {"operationType": "create", "record": {"recordName": "alice-budget", "recordType": "Stop",
                                               "fields": {"city": {"value": "not shared"}}}}]}).json()
    assert all("serverErrorCode" not in record for record in saved["records"]), saved

    owner = quote(review.users["alice"].record_name)
    pages.open(review.console(f"shared/sync?user=bob&zone={review.trips_zone}&owner={owner}&syncToken={quote(held)}&reader=bob"))
    held_text = pages.find("#held-token").text
    assert f"zone {review.trips_zone}" in held_text and "received up to change" in held_text, held_text
    summary = pages.find("#next-summary").text
    assert summary.startswith("As bob: 1 change"), summary
    next_records = pages.find("#next-records").text
    assert "stop-7" in next_records and "alice-budget" not in next_records, next_records
    # The log, an operator's view of the zone, marks both changes bob's token has not received.
    pending = [row for row in log_rows(driver) if "not yet received" in row[2]]
    assert sorted(row[3] for row in pending) == ["alice-budget", "stop-7"], pending
    assert review.users["bob"].record_name not in pages.text()
    pages.check("sync-next-as-bob")

    assert "(alice)" in held_text, "the zone's owner by name"

    # bob's shared database is read by bob's clients alone: as alice, the page says what she would be told.
    pages.open(review.console(f"shared/sync?user=bob&zone={review.trips_zone}&owner={owner}&syncToken={quote(held)}&reader=alice"))
    assert pages.find("p.alert[role=alert]").text.startswith("ACCESS_DENIED"), pages.text()


def test_in_production_a_users_database_shows_metadata_only(pages, review, driver):
    server = review.server
    api_token = server.cli("tokens", "create", "--container", review.container, "--environment", "production",
                           "--name", "iOS app (production)", "--allowed-origin", "*").strip()
    web_auth_token = server.cli("users", "token", "--container", review.container, "alice", "--environment", "production",
                                input="a long passphrase\n").strip()
    alice = CloudKitClient(server.url, review.container, "production", api_token=api_token, web_auth_token=web_auth_token)
    secret = "diagnosis-2026-11-28"
    saved = alice.post("private", "records/modify", {"operations": [
        {"operationType": "create", "record": {"recordName": secret, "recordType": "Note",
                                               "fields": {"title": {"value": "private"}}}}]}).json()
    assert all("serverErrorCode" not in record for record in saved["records"]), saved

    pages.open(review.console("private/sync?user=alice", environment="production"))
    assert pages.find("#sync-metadata-only").is_displayed()
    rows = log_rows(driver)
    assert len(rows) == 1 and rows[0][3] == "hidden" and rows[0][4] == "Note", rows
    assert rows[0][5].startswith("alice") and "via API token iOS app (production)" in rows[0][5], rows
    assert secret not in pages.text() and secret not in driver.page_source
    assert not driver.find_elements(By.CSS_SELECTOR, "#sync-record"), "no search by name in production"
    pages.check("sync-production-private")
