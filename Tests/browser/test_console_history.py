"""The console's Trash, a record's History and the restore-point dialog, on the console review's
data (ten public notes deleted and twenty updated by alice): the trash is reached from the
Records and Zones tabs and lists who deleted what; selected records, a deleted zone and
everything deleted since a time come back; a record's history shows each change as old → new
(escaped) and reverts, a conflict showing the store's reason; a restore point shows its dry run
on the confirm step and applies once confirmed. Every page is checked with axe-core and
photographed at 1280×800 and 390×844."""

import math
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from review_fixture import CONTAINER, CloudKitClient

HOSTILE = '<img src=x onerror="document.title=1">'


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


@pytest.fixture(scope="module")
def alice(review):
    user = review.users["alice"]
    client = CloudKitClient(review.server.url, CONTAINER, "development", api_token=review.api_token, web_auth_token=user.web_auth_token)
    yield client
    user.web_auth_token = client.web_auth_token


def modify(client, database, operations, zone=None):
    body = {"operations": operations}
    if zone:
        body["zoneID"] = {"zoneName": zone}
    response = client.post(database, "records/modify", body)
    assert response.status_code == 200, response.text
    records = response.json()["records"]
    assert not [record for record in records if "serverErrorCode" in record], records
    return records


def lookup(client, database, names, zone=None):
    body = {"records": [{"recordName": name} for name in names]}
    if zone:
        body["zoneID"] = {"zoneName": zone}
    return {record["recordName"]: record for record in client.post(database, "records/lookup", body).json()["records"]}


def trash_rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "table.trash tbody tr")


def notice(pages):
    return pages.find("p.notice").text


def test_the_trash_lists_deleted_notes_and_restores_a_selection(pages, review, driver, alice):
    pages.open(review.console("public/records?type=Note"))
    pages.submit("a.button[href*='/public/trash']")
    assert pages.find("h1").text == "Trash"
    names = [row.find_element(By.CSS_SELECTOR, "td[data-label='Record']").text for row in trash_rows(driver)]
    assert sorted(names) == sorted(review.deleted_notes)
    first = trash_rows(driver)[0]
    assert "alice" in first.find_element(By.CSS_SELECTOR, "td[data-label='By']").text
    assert first.find_element(By.CSS_SELECTOR, "td[data-label='Zone']").text == "_defaultZone"
    pages.check("trash")

    # Filtered by a type with no deleted records.
    Select(pages.find("#t-type")).select_by_visible_text("Folder")
    pages.submit("form.trash-filter button")
    assert trash_rows(driver) == [] and "No deleted records" in pages.text()
    Select(pages.find("#t-type")).select_by_visible_text("Note")
    pages.submit("form.trash-filter button")
    assert len(trash_rows(driver)) == len(review.deleted_notes)

    chosen = sorted(review.deleted_notes)[:2]
    for name in chosen:
        pages.find(f"input[name='record'][value='_defaultZone/{name}']").click()
    pages.submit("#restore-selected button[type=submit]")
    assert notice(pages) == "Restored 2 records."
    left = [row.find_element(By.CSS_SELECTOR, "td[data-label='Record']").text for row in trash_rows(driver)]
    assert sorted(left) == sorted(set(review.deleted_notes) - set(chosen))
    assert all("recordType" in record for record in lookup(alice, "public", chosen).values())


def test_a_deleted_zone_comes_back_with_its_records(pages, review, driver, alice):
    created = alice.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Scratch"}}}]})
    assert created.status_code == 200, created.text
    modify(alice, "private", [{"operationType": "create", "record": {"recordName": f"scrap-{index}", "recordType": "Entry",
                                                                     "fields": {"text": {"value": f"Scrap {index}"}}}}
                              for index in range(2)], zone="Scratch")
    deleted = alice.post("private", "zones/modify", {"operations": [{"operationType": "delete", "zone": {"zoneID": {"zoneName": "Scratch"}}}]})
    assert deleted.status_code == 200, deleted.text

    pages.open(review.console("private/zones?user=alice"))
    assert driver.find_elements(By.CSS_SELECTOR, "a[href*='restore-point'][href*='zone=Journal']"), "each zone offers a restore point"
    pages.check("zones-with-trash")
    pages.submit("a[href*='/private/trash']")
    zone_rows = driver.find_elements(By.CSS_SELECTOR, "section.card table.list:not(.trash) tbody tr")
    assert [row.find_element(By.CSS_SELECTOR, "td[data-label='Zone']").text for row in zone_rows] == ["Scratch"]
    assert zone_rows[0].find_element(By.CSS_SELECTOR, "td[data-label='Records']").text == "2 records"
    assert {row.find_element(By.CSS_SELECTOR, "td[data-label='Record']").text for row in trash_rows(driver)} == {"scrap-0", "scrap-1"}
    pages.check("trash-private")

    pages.submit("input[name='restoreZone'][value='Scratch'] ~ button")
    assert notice(pages) == "Zone Scratch restored with 2 records."
    assert "No deleted zones." in pages.text()
    assert set(lookup(alice, "private", ["scrap-0", "scrap-1"], zone="Scratch")) == {"scrap-0", "scrap-1"}


def test_everything_deleted_since_a_time_comes_back(pages, review, driver, alice):
    pages.open(review.console("public/trash"))
    remaining = len(trash_rows(driver))
    assert remaining == len(review.deleted_notes) - 2
    driver.execute_script("arguments[0].value = '2020-01-01T00:00:00'", pages.find("#since"))
    pages.submit("input[name='restoreSince'] ~ button")
    assert notice(pages) == f"Restored {remaining} records."
    assert trash_rows(driver) == [] and "No deleted records in every zone." in pages.text()


def test_a_records_history_shows_each_change_and_reverts(pages, review, driver, alice):
    name = review.updated_notes[1]
    modify(alice, "public", [{"operationType": "forceUpdate", "record": {"recordName": name, "recordType": "Note",
                                                                         "fields": {"title": {"value": HOSTILE}}}}])
    pages.open(review.console(f"public/records/{name}"))
    pages.submit("a.button[href*='/history']")
    assert pages.find("h1").text == f"History of {name}"
    versions = driver.find_elements(By.CSS_SELECTOR, "ol.history > li")
    assert len(versions) >= 2
    numbers = [int(version.find_element(By.CSS_SELECTOR, "h2").text.split()[1]) for version in versions]
    assert numbers == sorted(numbers, reverse=True), "newest first"
    newest, older = versions[0], versions[1]
    assert newest.find_element(By.CSS_SELECTOR, "td[data-label='In this version'] del").text == f"Note {int(name[5:])} (edited)"
    assert newest.find_element(By.CSS_SELECTOR, "td[data-label='After the change'] ins").text == HOSTILE
    assert not driver.find_elements(By.CSS_SELECTOR, "table.diff img") and driver.title != "1", "values are text"
    assert "alice" in newest.find_element(By.CSS_SELECTOR, "p").text
    assert older.find_element(By.CSS_SELECTOR, "td[data-label='In this version'] del").text == f"Note {int(name[5:])}"
    pages.check("record-history")

    # Someone saves meanwhile: reverting from the page as opened is refused with the store's reason.
    modify(alice, "public", [{"operationType": "forceUpdate", "record": {"recordName": name, "recordType": "Note",
                                                                         "fields": {"title": {"value": "Saved meanwhile"}}}}])
    pages.submit("ol.history > li:last-child form button")
    alert = pages.find("p.alert").text
    assert alert.startswith("Not reverted: ") and len(alert) > len("Not reverted: ")
    assert lookup(alice, "public", [name])[name]["fields"]["title"]["value"] == "Saved meanwhile"
    pages.check("record-history-conflict")

    pages.submit("ol.history > li:last-child form button")
    assert notice(pages) == f"Record {name} reverted to version {numbers[-1]}."
    assert lookup(alice, "public", [name])[name]["fields"]["title"]["value"] == f"Note {int(name[5:])}"


def test_a_restore_point_shows_its_dry_run_then_applies(pages, review, driver, alice):
    # A point strictly between the seed's writes and the changes below, to the second.
    point = (math.floor(time.time()) + 1) * 1000
    while time.time() * 1000 <= point + 1:
        time.sleep(0.05)
    modify(alice, "private", [
        {"operationType": "forceUpdate", "record": {"recordName": "entry-00", "recordType": "Entry", "fields": {"text": {"value": "Rewritten"}}}},
        {"operationType": "forceDelete", "record": {"recordName": "entry-01"}},
        {"operationType": "create", "record": {"recordName": "entry-new", "recordType": "Entry", "fields": {"text": {"value": "New"}}}},
    ], zone="Journal")

    pages.open(review.console("private/zones?user=alice"))
    pages.submit("a[href*='restore-point'][href*='zone=Journal']")
    assert pages.find("h1").text == "Restore to a point in time"
    assert Select(pages.find("#rp-zone")).first_selected_option.text == "Journal"
    pages.check("restore-point")
    driver.execute_script(
        "const d = new Date(arguments[1]), p = n => String(n).padStart(2, '0');"
        "arguments[0].value = d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':'"
        " + p(d.getMinutes()) + ':' + p(d.getSeconds());", pages.find("#rp-at"), point)
    pages.submit("form.form button[type=submit]")
    message = pages.find("section.card.danger p").text
    for said in ("1 record created since will be deleted", "1 record changed since", "1 record deleted since will be restored"):
        assert said in message, message
    assert {item.text for item in driver.find_elements(By.CSS_SELECTOR, "ul.items code")} == {
        "Journal/entry-00", "Journal/entry-01", "Journal/entry-new"}
    assert "recordType" in lookup(alice, "private", ["entry-new"], zone="Journal")["entry-new"], "the dry run changes nothing"
    pages.check("restore-point-confirm")

    pages.submit("form.actions button.danger")
    assert notice(pages).startswith("Restored zone Journal")
    found = lookup(alice, "private", ["entry-00", "entry-01", "entry-new"], zone="Journal")
    assert found["entry-00"]["fields"]["text"]["value"] == "Day 0"
    assert found["entry-01"]["fields"]["text"]["value"] == "Day 1"
    assert "recordType" not in found["entry-new"]


def test_a_zone_comes_back_from_a_backup_after_its_preview(pages, review, driver, alice):
    pages.open("/console/backups")
    pages.submit("form[action='/console/backups'] button")
    backup = driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr td[data-label='Name']")[0].text
    before = lookup(alice, "private", ["entry-02", "entry-03"], zone="Journal")
    modify(alice, "private", [
        {"operationType": "forceUpdate", "record": {"recordName": "entry-02", "recordType": "Entry", "fields": {"text": {"value": "Later"}}}},
        {"operationType": "forceDelete", "record": {"recordName": "entry-03"}},
        {"operationType": "create", "record": {"recordName": "entry-later", "recordType": "Entry", "fields": {"text": {"value": "Later"}}}},
    ], zone="Journal")

    pages.open(review.console("private/zones?user=alice"))
    pages.submit("a[href*='restore-point'][href*='zone=Journal']")
    pages.submit("a[href*='restore-from-backup']")
    assert pages.find("h1").text == "Restore from a backup"
    assert Select(pages.find("#rb-zone")).first_selected_option.text == "Journal"
    Select(pages.find("#rb-backup")).select_by_visible_text(backup)
    pages.check("restore-from-backup")
    pages.submit("form.form button[type=submit]")
    message = pages.find("section.card.danger p").text
    for said in ("1 record missing now will be restored", "1 record changed since will get back its version in the backup",
                 "1 record the backup does not hold will be deleted"):
        assert said in message, message
    assert {item.text for item in driver.find_elements(By.CSS_SELECTOR, "ul.items code")} == {
        "Journal/entry-02", "Journal/entry-03", "Journal/entry-later"}
    assert "recordType" in lookup(alice, "private", ["entry-later"], zone="Journal")["entry-later"], "the preview changes nothing"
    pages.check("restore-from-backup-confirm")

    pages.submit("form.actions button.danger")
    assert notice(pages).startswith(f"Restored zone Journal of the development private database of alice from {backup}")
    found = lookup(alice, "private", ["entry-02", "entry-03", "entry-later"], zone="Journal")
    assert found["entry-02"]["fields"] == before["entry-02"]["fields"]
    assert found["entry-03"]["fields"] == before["entry-03"]["fields"]
    assert "recordType" not in found["entry-later"]

    # The backup goes, as the Backups page's own test expects to begin without one.
    pages.open("/console/backups")
    pages.submit("table.list tbody tr form button.danger")
    pages.submit("form.actions button.danger")


def test_the_trash_pages_on_past_its_first_page_without_script(pages, review, driver, alice):
    created = alice.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Bulk"}}}]})
    assert created.status_code == 200, created.text
    names = [f"bulk-{index:03d}" for index in range(215)]
    for start in range(0, len(names), 100):
        batch = names[start:start + 100]
        modify(alice, "private", [{"operationType": "create", "record": {"recordName": name, "recordType": "Entry",
                                                                         "fields": {"text": {"value": name}}}} for name in batch], zone="Bulk")
        modify(alice, "private", [{"operationType": "forceDelete", "record": {"recordName": name}} for name in batch], zone="Bulk")

    def listed():
        return [row.find_element(By.CSS_SELECTOR, "td[data-label='Record']").text for row in trash_rows(driver)]

    pages.open(review.console("private/trash?user=alice&zone=Bulk"))
    first = listed()
    assert len(first) == 200 and first[0] == names[-1], "the most recently deleted first"
    assert "The 200 most recently deleted are shown" in pages.text()
    assert not driver.find_elements(By.LINK_TEXT, "First page")
    pages.check("trash-first-page")

    pages.submit("a[rel='next']")
    assert "after=" in driver.current_url and "zone=Bulk" in driver.current_url and "user=alice" in driver.current_url
    second = listed()
    assert len(second) == 15
    assert sorted(first + second) == names, "every deleted record, each on one page"
    assert not driver.find_elements(By.CSS_SELECTOR, "a[rel='next']"), "the last page links to no next one"
    assert "Deleted zones" not in pages.text(), "the deleted zones are on the first page"
    pages.check("trash-next-page")

    pages.submit("div.actions a.button:not([rel])")
    assert listed() == first
