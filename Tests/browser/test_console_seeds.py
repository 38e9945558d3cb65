"""Seeds and masked copies in a real (headless) browser, on the console review's data shape: the
schema page marks fields personal; the Reset page saves a seed, copies production's notes to
development with the personal fields masked (checked value by value: no personal value of
production is in development), and resets development to the seed. Every page is checked with
axe-core and saved as screenshots at both sizes."""

import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

PERSONAL = ("title", "body", "place")

#: Production notes with personal data written for this test; two share an email address.
PEOPLE = [
    ("prod-person-0", "Ada Lovelace", "Write to ada.lovelace@analytical.org about the engine.", 51.5074, -0.1278),
    ("prod-person-1", "Grace Hopper", "Call +1 (202) 555-0143 or grace@navy.mil on Monday.", 38.9072, -77.0369),
    ("prod-person-2", "Alan Turing", "Write to ada.lovelace@analytical.org about the engine.", 52.0406, -0.7594),
]


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def records(review, environment, record_type):
    """Every record of a type in the public database's default zone, by name, as the command line browses them."""
    found, after = {}, None
    while True:
        arguments = ["records", "browse", "--container", review.container, "--environment", environment, "--record-type", record_type,
                     "--limit", "200"] + (["--after", after] if after else [])
        page = json.loads(review.server.cli(*arguments))
        for record in page.get("records", []):
            found[record["recordName"]] = record
        after = page.get("continuationMarker")
        if not after:
            return found


def value(record, field):
    entry = record.get("fields", {}).get(field)
    return None if entry is None else json.dumps(entry["value"], sort_keys=True)


def test_fields_are_marked_personal_on_the_schema_page(review, pages, driver):
    pages.open(review.console("schema") + "#type-Note")
    for field in PERSONAL:
        pages.submit(f"form.personal-toggle[action$='/types/Note/fields/{field}/personal'] button")
        pages.wait_for_text(f"Note.{field} is personal")
    marked = json.loads(review.server.cli("personal-fields", "list", "--container", review.container))["personalFields"]
    assert marked == [f"Note.{field}" for field in sorted(PERSONAL)]
    rows = driver.find_elements(By.CSS_SELECTOR, "#type-Note table.schema-fields tbody tr:not(.system)")
    badges = {row.find_element(By.CSS_SELECTOR, "td[data-label='Field']").text: row.find_element(By.CSS_SELECTOR, "td[data-label='Personal']").text
              for row in rows}
    assert all("personal" in badges[field] for field in PERSONAL), badges
    assert "cannot be masked" in badges["folder"], "a reference cannot be personal"
    pages.check("schema-personal-fields")


def test_a_masked_copy_leaves_no_personal_production_value_in_development(review, pages, driver):
    operations = [{"operationType": "create", "record": {"recordName": name, "recordType": "Note", "fields": {
        "title": {"value": title}, "body": {"value": body}, "place": {"value": {"latitude": lat, "longitude": lon}},
        "pinned": {"value": 1}}}} for name, title, body, lat, lon in PEOPLE]
    review.server.cli("records", "modify", "--container", review.container, "--environment", "production", "--file", "-",
                      input=json.dumps({"operations": operations}))
    production = records(review, "production", "Note")
    assert len(production) == review.production_records + len(PEOPLE)

    pages.open(review.console("reset") + "#copy")
    label = " ".join(pages.find("label[for='copy-type-Note']").text.split())
    assert label.startswith("Note (personal: ") and all(field in label for field in PERSONAL), label
    pages.find("#copy-type-Note").click()
    pages.submit("#copy form button[type=submit]")
    pages.wait_for_text(f"Copied {len(production)} records from production")
    notice = pages.find("p.notice").text
    masked = sum(1 for record in production.values() for field in PERSONAL if field in record.get("fields", {}))
    assert f"{masked} personal values masked in Note.body, Note.place, Note.title" in notice, notice
    pages.check("reset-after-masked-copy")

    development = records(review, "development", "Note")
    personal_in_production = {value(record, field) for record in production.values() for field in PERSONAL} - {None}
    for name, original in production.items():
        copy = development[name]
        for field in PERSONAL:
            if value(original, field) is None:
                assert value(copy, field) is None, (name, field)
                continue
            assert value(copy, field) is not None, (name, field)
            assert value(copy, field) != value(original, field), (name, field)
            assert value(copy, field) not in personal_in_production, (name, field, value(copy, field))
        assert value(copy, "pinned") == value(original, "pinned"), name
    # The same production value gives the same fake: the two notes that shared a body still do.
    assert value(development["prod-person-0"], "body") == value(development["prod-person-2"], "body")
    assert value(development["prod-person-0"], "title") != value(development["prod-person-2"], "title")


def test_development_is_reset_to_a_seed(review, pages, driver):
    folders = records(review, "development", "Folder")
    assert set(review.folders) <= set(folders)
    pages.open(review.console("reset") + "#seeds")
    pages.find("#seed-type-Folder").click()
    pages.find("#seed-name").send_keys("folders")
    pages.submit("#seeds form.form button[type=submit]")
    pages.wait_for_text(f"Seed folders saved: {len(folders)} records of Folder")
    assert "types Folder" in pages.find("table.seeds").text
    pages.check("reset-with-a-seed")

    Select(pages.find("#reset-seed")).select_by_value("folders")
    pages.find("#confirm").send_keys(review.container)
    pages.submit("section.danger form button[type=submit]")
    pages.wait_for_text(f"seed folders restored: {len(folders)} records")
    pages.check("records-after-reset-to-seed")
    restored = records(review, "development", "Folder")
    assert sorted(restored) == sorted(folders)
    assert all(value(restored[name], "name") == value(folders[name], "name") for name in folders)
    assert records(review, "development", "Note") == {}, "the copied and the review's notes went with the reset"
