"""Records and Schema in a real (headless) browser, on the console review's data shape: a type
made just in time is browsed before it has any index, the type picker starts on a type the
zone holds, record detail shows parent, share and the share's participants, and the schema
page jumps between types, saves each type's indexes at once and deletes a field in
development after counting what goes; the record form uploads a file and picks a reference, a
schema upload is previewed before it is imported, and "act as user" offers the users by name.
Every page is checked with axe-core, saved as screenshots, and the records and schema pages are
held to a height at 390 px."""

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from review_fixture import tiny_png

#: The most a page may be tall at 390 px wide (half of what the review measured, or less).
RECORDS_HEIGHT = 9_500
SCHEMA_HEIGHT = 11_000


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def height_at_phone_width(pages):
    """The page's height laid out 390 px wide."""
    pages.emulate(390, 844, mobile=True)
    try:
        return pages.driver.execute_script("return document.documentElement.scrollHeight")
    finally:
        pages.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_just_in_time_type_is_browsed_before_any_index(review, pages, driver):
    schema = review.server.cli("export-schema", "--container", review.container)
    photo = schema[schema.index("RECORD TYPE Photo"):].split(");", 1)[0]
    assert "QUERYABLE" not in photo, "Photo has no index at all: " + photo
    pages.open(review.console("public/records?type=Photo"))
    assert "This query needs an index" not in pages.text()
    names = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "table.records tbody td[data-label='Record name']")]
    assert names == review.photos
    assert "3 Photo records in zone _defaultZone" in pages.text()
    pages.check("records-just-in-time-type")
    # A filter makes it a query, which still needs its index, and says so by recordName-free names.
    pages.open(review.console("public/records?type=Photo&f0.field=caption&f0.op=EQUALS&f0.value=Photo 1"))
    assert "This query needs an index" in pages.text() and "pending change" in pages.text()
    assert "Browse the Photo records by name" in pages.text()
    pages.check("records-missing-index-for-a-filter")


def test_the_type_picker_starts_on_a_type_the_zone_holds(review, pages, driver):
    pages.open(review.console("private/records?user=alice&zone=Trips"))
    picker = Select(pages.find("#q-type"))
    chosen = picker.first_selected_option.text
    assert chosen in ("Trip (1)", f"Stop ({len(review.stops)})"), chosen
    labels = [option.text for option in picker.options]
    assert "Folder (0)" in labels, labels
    rows = driver.find_elements(By.CSS_SELECTOR, "table.records tbody tr")
    assert rows, "the chosen type's records are listed"
    pages.check("records-type-picker")


def test_the_records_list_counts_sorts_and_selects(review, pages, driver):
    pages.open(review.console("public/records?type=Note"))
    rows = driver.find_elements(By.CSS_SELECTOR, "table.records tbody tr")
    assert len(rows) == 50
    count = pages.find("p.count").text
    assert re.match(r"\d+ Note records in zone _defaultZone · 50 shown, page 1", count), count
    assert int(count.split()[0]) >= len(review.notes), count
    # Select-all ticks every row's box (it is the page's script; without it the box stays hidden).
    pages.find("#select-all").click()
    boxes = driver.find_elements(By.CSS_SELECTOR, "table.records tbody input[type=checkbox]")
    assert boxes and all(box.is_selected() for box in boxes)
    # A header sorts by its column: a link, so it works without script.
    header = pages.find("table.records thead th[aria-sort] a[href*='sort=___modTime']")
    assert "Modified" in header.text
    # Comparators follow the field: an INT64 filter offers no BEGINS_WITH.
    Select(pages.find("#f0-field")).select_by_value("pinned")
    offered = [option.get_attribute("value") for option in Select(pages.find("#f0-op")).options if not option.get_property("hidden")]
    assert "GREATER_THAN" in offered and "BEGINS_WITH" not in offered
    pages.check("records-list")
    height = height_at_phone_width(pages)
    assert height <= RECORDS_HEIGHT, f"records with 50 rows is {height}px tall at 390px"
    # "Delete selected" with nothing ticked keeps the query.
    pages.open(review.console("public/records?type=Photo&limit=2"))
    pages.submit("button[form=bulk]")
    assert "Select the records to delete first." in pages.text()
    assert Select(pages.find("#q-type")).first_selected_option.get_attribute("value") == "Photo"
    assert pages.find("#q-limit").get_attribute("value") == "2"


def test_record_detail_shows_parent_share_and_participants(review, pages, driver):
    pages.open(review.console("private/records/stop-0?user=alice&zone=Trips"))
    parent = pages.find("dl.meta a[href*='/records/trip-japan']")
    assert parent.text == "trip-japan"
    pages.check("record-parent")
    pages.open(review.console("private/records/trip-japan?user=alice&zone=Trips"))
    assert "shared by" in pages.text() and "share-trips" in pages.text()
    referrers = pages.find("ul.plain").text
    assert "stop-0" in referrers and "as its parent" in referrers and "field trip" in referrers
    pages.check("record-shared-root")
    pages.find("dl.meta a[href*='/records/share-trips']").click()
    participants = pages.find("table.list tbody").text
    assert "bob" in participants and "ACCEPTED" in participants
    assert "carol" in participants and "INVITED" in participants
    # The JSON view, with a copy button where script runs.
    pages.find("details.record-json summary").click()
    assert '"recordName" : "share-trips"' in pages.find("#record-json").text
    assert pages.find("#copy-json").is_displayed()
    pages.check("record-share-participants")


def test_schema_jumps_saves_per_type_and_deletes_a_field(review, pages, driver):
    pages.open(review.console("schema"))
    jump = pages.find("nav.type-jump")
    links = jump.find_elements(By.CSS_SELECTOR, "a")
    assert len(links) >= 8
    assert any(link.text == "Note" for link in links)
    assert re.search(r"Note \d{3}", jump.text), jump.text
    # Only the index kinds a field's type allows: no SEARCHABLE on a TIMESTAMP, nothing on BYTES.
    assert not driver.find_elements(By.ID, "ix-Note-due-SEARCHABLE")
    assert not driver.find_elements(By.CSS_SELECTOR, "[id^='ix-Photo-thumbprint-']")
    pages.check("schema-jump-list")
    height = height_at_phone_width(pages)
    assert height <= SCHEMA_HEIGHT, f"schema is {height}px tall at 390px"

    # One save for the whole type: two fields' indexes at once; the notice is in the type's section.
    pages.find("#ix-Note-rating-SORTABLE").click()
    pages.find("#ix-Note-due-QUERYABLE").click()
    pages.submit("button[form='type-Note-indexes']")
    section = pages.find("#type-Note")
    assert "Indexes of Note saved." in section.text
    assert "#type-Note" in driver.current_url
    assert not driver.find_elements(By.CSS_SELECTOR, "main > .notice, body > .notice")
    assert pages.find("#ix-Note-rating-SORTABLE").is_selected() and pages.find("#ix-Note-due-QUERYABLE").is_selected()
    pages.check("schema-saved-type")

    # Deleting a field: counted first, then gone.
    pages.submit("#type-Note form[action$='/fields/mood/delete'] button")
    assert "Delete field Note.mood?" in pages.text()
    assert "1 value of Note.mood" in pages.text()
    pages.check("schema-delete-field-confirm")
    pages.submit("form.actions button.danger")
    assert "Deleted field Note.mood" in pages.text()
    assert not driver.find_elements(By.CSS_SELECTOR, "#type-Note form[action$='/fields/mood/delete']")
    pages.open(review.console("public/records/note-after-deploy"))
    assert "mood" not in pages.find("dl.fields").text


def test_the_record_form_uploads_a_file_and_picks_a_reference(review, pages, driver, tmp_path):
    # dave writes nothing through the API: his private database holds only what this form makes.
    pages.open(review.console("private/records/new?type=Photo&user=dave"))
    assert pages.find("form.record-form").get_attribute("enctype") == "multipart/form-data"
    image = tmp_path / "sunset.png"
    image.write_bytes(tiny_png(0xE0, 0x80, 0x30))
    pages.find("#recordName").send_keys("dave-photo-1")
    pages.find("#field-caption").send_keys("Sunset")
    pages.find("#field-image").send_keys(str(image))
    pages.check("record-form-file")
    pages.submit("form.record-form button[type=submit]")
    assert "Record dave-photo-1 created." in pages.text()
    preview = pages.find("dl.fields img.preview")
    assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", preview) > 0, "the stored PNG is shown"
    pages.check("record-uploaded-file")

    # A second photo picks the first from the zone's records, offered by name with their type.
    pages.open(review.console("private/records/new?type=Photo&user=dave"))
    reference = pages.find("#field-note")
    assert reference.get_attribute("list") == "record-choices"
    offered = [(option.get_attribute("value"), option.get_attribute("textContent"))
               for option in driver.find_elements(By.CSS_SELECTOR, "#record-choices option")]
    assert offered == [("dave-photo-1", "Photo")], offered
    pages.find("#recordName").send_keys("dave-photo-2")
    reference.send_keys("dave-photo-1")
    pages.check("record-form-reference-picker")
    pages.submit("form.record-form button[type=submit]")
    assert "Record dave-photo-2 created." in pages.text()
    assert pages.find("dl.fields a[href*='/records/dave-photo-1']").text == "dave-photo-1"


def test_a_schema_upload_is_previewed_before_it_is_imported(review, pages, driver, tmp_path):
    schema = review.server.cli("export-schema", "--container", review.container)
    upload = tmp_path / "next.ckdb"
    upload.write_text(schema.rstrip() + "\n    RECORD TYPE Itinerary (\n        title STRING QUERYABLE\n    );\n")
    pages.open(review.console("schema"))
    pages.find("#schema-file").send_keys(str(upload))
    pages.submit("form[enctype='multipart/form-data'] button[type=submit]")
    preview = pages.find(".import-preview")
    assert "add record type Itinerary (1 field)" in preview.text, preview.text
    assert "add index QUERYABLE on Itinerary.title" in preview.text
    assert preview.find_element(By.CSS_SELECTOR, "button[type=submit]").text == "Import into development"
    pages.check("schema-import-preview")
    # Nothing is imported until the preview's button is pressed.
    assert "Itinerary" not in review.server.cli("export-schema", "--container", review.container)


def test_act_as_user_offers_the_users_by_name(review, pages, driver):
    pages.open(review.console("private/records"))
    box = pages.find("#bar-user")
    assert box.get_attribute("list") == "bar-users" and box.get_attribute("type") == "text"
    offered = {option.get_attribute("value"): option.get_attribute("textContent")
               for option in driver.find_elements(By.CSS_SELECTOR, "#bar-users option")}
    for name, user in review.users.items():
        assert offered.get(name) == f"{name} ({user.record_name[:5]}…)", offered
    box.send_keys("alice")
    pages.submit("form.bar-form button[type=submit]")
    assert "user=alice" in driver.current_url
    pages.check("act-as-user-picked")
