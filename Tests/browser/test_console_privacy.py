"""Privacy tools in the console, on the console review's data: the owner browses alice's private
Journal, which the audit trail records as reads (who, which records); a viewer operator of every
container sees those reads on the Audit page, filtered to reads, but is refused alice's private
records themselves, none of which reaches the page. Every page visited is checked with axe-core
and photographed at 1280×800 and 390×844."""

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from console_harness import Pages

VIEWER = "vic"
VIEWER_PASSWORD = "a long viewer passphrase"


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def test_the_owners_reads_of_private_records_are_audited(pages, review, driver):
    pages.open(review.console("private/records?user=alice&zone=Journal"))
    assert "entry-00" in pages.text()
    pages.open(review.console("private/records/entry-03?user=alice&zone=Journal"))
    assert "Day 3" in pages.text()
    # The users page offers the export and the erase of each user.
    pages.open(review.console("users"))
    assert driver.find_elements(By.LINK_TEXT, "Export data")
    assert driver.find_elements(By.XPATH, "//button[normalize-space()='Erase…']")
    pages.check("privacy-users-export-erase")


def test_the_erase_dialog_shows_the_dry_runs_counts_then_erases(pages, review, driver):
    pages.open(review.console("users"))
    # carol wrote public notes and takes part in alice's shared zone (invited).
    carol = review.users["carol"].record_name
    pages.submit(f"form[action$='/users/{carol}/erase'] button[type=submit]")
    text = pages.text()
    assert "Erase user carol" in text, text[:800]
    development = re.search(r"development: (\d+) private records.*?, (\d+) public records", text)
    assert development and int(development.group(2)) > 0, text[:1500]
    assert "production:" in text and "open sessions" in text
    pages.check("privacy-erase-dry-run")
    pages.submit("form.actions button.danger")
    assert "User carol" in pages.text() and "erased" in pages.text()
    assert carol not in pages.text()


def test_a_viewer_sees_the_read_audit_but_no_private_records(pages, review, driver):
    review.server.cli("operators", "add", VIEWER, "--role", "viewer", input=VIEWER_PASSWORD + "\n")
    pages.submit("nav.site-nav form button")
    viewer = Pages(driver, review.server)
    viewer.open("/console/login")
    viewer.find("#name").send_keys(VIEWER)
    viewer.find("#password").send_keys(VIEWER_PASSWORD)
    viewer.submit("form button[type=submit]")

    viewer.open("/console/audit")
    Select(viewer.find("#audit-action")).select_by_value("record.read")
    viewer.submit("form[action='/console/audit'] button[type=submit]")
    rows = driver.find_elements(By.CSS_SELECTOR, "table.audit tbody tr")
    actions = {row.find_element(By.CSS_SELECTOR, "td[data-label=Action]").text for row in rows}
    assert actions == {"record.read"}, actions
    targets = [row.find_element(By.CSS_SELECTOR, "td[data-label=What]").text for row in rows]
    assert any(target.startswith("private of alice Journal: entry-00") for target in targets), targets
    assert any(target == "private of alice Journal: entry-03" for target in targets), targets
    whos = {row.find_element(By.CSS_SELECTOR, "td[data-label=Who]").text.split(" ")[0] for row in rows}
    assert whos == {"admin"}, whos
    export = driver.find_element(By.LINK_TEXT, "Export these entries (JSON lines)").get_attribute("href")
    assert export.endswith("/console/audit/export?action=record.read"), export
    viewer.check("privacy-viewer-audit-reads")

    # The records themselves are refused to the viewer, inside the console, and none is shown.
    viewer.open(review.console("private/records?user=alice&zone=Journal"))
    text = viewer.text()
    assert "A viewer does not read the records of private or shared databases" in text, text[:500]
    assert "entry-00" not in text and "Day 3" not in text
    viewer.check("privacy-viewer-private-refused")
    viewer.open(review.console("private/records/entry-03?user=alice&zone=Journal"))
    assert "Day 3" not in viewer.text()
