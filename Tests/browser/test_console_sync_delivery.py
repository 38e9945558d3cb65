"""The Sync tab's Delivery trace view on the console review's data: from a record of the change
feed, a change whose subscriber was not notified says why (alice's subscription to pinned notes
left an unpinned note out by its filter; bob's watches another record type), and a pinned note's
notification shows the push token that fetched it, by long poll. Every page visited is checked
with axe-core and photographed at 1280×800 and 390×844."""

import sys
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from cloudkit_client import CloudKitClient  # noqa: E402


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def client(review, name):
    return CloudKitClient(review.server.url, review.container, "development", api_token=review.api_token,
                          web_auth_token=review.users[name].web_auth_token)


def create_note(review, name, pinned):
    saved = client(review, "bob").post("public", "records/modify", {"operations": [{"operationType": "create", "record": {
        "recordName": name, "recordType": "Note", "fields": {"title": {"value": name}, "pinned": {"value": pinned}}}}]})
    assert saved.status_code == 200 and "serverErrorCode" not in saved.json()["records"][0], saved.text


def traced(driver, subscription):
    items = [item for item in driver.find_elements(By.CSS_SELECTOR, "li.traced") if subscription in item.find_element(By.TAG_NAME, "h3").text]
    assert len(items) == 1, [item.text for item in driver.find_elements(By.CSS_SELECTOR, "li.traced")]
    return items[0]


def test_a_change_whose_subscriber_was_not_notified_shows_why(pages, review, driver):
    create_note(review, "trace-unpinned", 0)
    # From the change feed, the record's row opens its trace.
    pages.open(review.console("public/sync?recordName=trace-unpinned"))
    pages.find("a.trace[href*='record=trace-unpinned']").click()
    assert driver.find_element(By.TAG_NAME, "h1").text == "Delivery trace"
    assert pages.find("nav.subnav a.current").text == "Delivery trace"
    assert "The create of trace-unpinned" in pages.find("#trace h2").text

    pinned = traced(driver, "pinned-notes")
    assert pinned.find_element(By.CSS_SELECTOR, ".badge.fate").text == "not matched"
    assert pinned.find_element(By.CSS_SELECTOR, ".why").text == "Not notified: the record does not pass its query's filters"
    assert "alice" in pinned.find_element(By.TAG_NAME, "h3").text
    folders = traced(driver, "new-folders")
    assert folders.find_element(By.CSS_SELECTOR, ".why").text == "Not notified: it watches records of type Folder"
    # No hex user record name where the user has a name.
    text = pages.text()
    for user in review.users.values():
        assert user.record_name not in text, user.name
    pages.check("sync-delivery-not-notified")


def test_a_matched_subscription_shows_the_token_that_fetched_its_notification(pages, review, driver):
    create_note(review, "trace-pinned", 1)
    pages.open(review.console("public/sync/delivery?record=trace-pinned&subscription=pinned-notes"))
    pinned = traced(driver, "pinned-notes")
    assert pinned.find_element(By.CSS_SELECTOR, ".badge.fate").text == "queued", pinned.text
    assert "waiting" in pinned.text

    # alice's device takes every notification waiting, oldest first, by long poll, until this one.
    for _ in range(500):
        polled = requests.get(f"{review.server.url}/webcourier/1/aps?tok={quote(review.device_push_token, safe='')}&ttl=43200",
                              timeout=60)
        assert polled.status_code == 200 and polled.content, polled.status_code
        if polled.json()["ck"].get("qry", {}).get("rid") == "trace-pinned":
            break
    else:
        pytest.fail("trace-pinned's notification never reached alice's device")

    # Opened from the subscription on the Notifications view.
    pages.open(review.console("public/sync/notifications"))
    rows = [row for row in driver.find_elements(By.CSS_SELECTOR, "#subscriptions tbody tr") if "pinned-notes" in row.text]
    rows[0].find_element(By.CSS_SELECTOR, "a.trace").click()
    assert pages.find("#trace-subscription").get_attribute("value") == "pinned-notes"
    pages.find("#trace-record").send_keys("trace-pinned")
    pages.submit("form.inline-form button[type=submit]")
    pinned = traced(driver, "pinned-notes")
    assert pinned.find_element(By.CSS_SELECTOR, ".badge.fate").text == "delivered", pinned.text
    assert "long poll" in pinned.find_element(By.CSS_SELECTOR, ".why").text
    row = pinned.find_element(By.CSS_SELECTOR, "tbody tr")
    assert row.find_element(By.CSS_SELECTOR, "td[data-label=Fate]").text == "fetched"
    assert row.find_element(By.CSS_SELECTOR, "td[data-label=How]").text == "long poll"
    pages.check("sync-delivery-delivered")
