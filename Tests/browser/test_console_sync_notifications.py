"""The Sync tab's Notifications view on the console review's data: each subscription's filter in
words, its holder by name, when it last fired (linked to the log around then) and how many it
queued; each push token's user, its device's last poll (linked to the user's requests) and the
notifications waiting for it with the payload the web courier hands out, in the shared database
too; and no hex user record name where the user has a name. Every page visited is checked with
axe-core and photographed at 1280×800 and 390×844."""

import json
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


def ok(response):
    assert response.status_code == 200, f"{response.request.url}: {response.status_code} {response.text[:500]}"
    return response.json()


def row_of(driver, table, text):
    rows = [row for row in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr") if text in row.text]
    assert len(rows) == 1, [row.text for row in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")]
    return rows[0]


def test_notifications_view_shows_filters_firings_polls_and_payloads(pages, review, driver):
    # bob subscribes to his shared database; alice then changes her trip shared with him.
    bob, alice = client(review, "bob"), client(review, "alice")
    ok(bob.post("shared", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": "bob-shared", "subscriptionType": "database"}}]}))
    saved = ok(alice.post("private", "records/modify", {"zoneID": {"zoneName": review.trips_zone}, "operations": [
        {"operationType": "forceUpdate", "record": {"recordName": review.trip_root, "recordType": "Trip",
                                                    "fields": {"title": {"value": "Japan 2027, again"}}}}]}))
    assert "serverErrorCode" not in saved["records"][0], saved
    # alice's device polls the courier once: it takes her oldest notification.
    polled = requests.get(f"{review.server.url}/webcourier/1/aps?tok={quote(review.device_push_token, safe='')}&ttl=43200", timeout=30)
    assert polled.status_code == 200 and polled.json()["ck"]["qry"]["sid"] == "pinned-notes", polled.text

    pages.open(review.console("public/sync"))
    pages.find("nav.subnav a[href$='/sync/notifications']").click()
    assert driver.find_element(By.TAG_NAME, "h1").text == "Notifications"
    assert pages.find("nav.subnav a.current").text == "Notifications"
    text = pages.text()
    # No hex user record name where the user has a name (the record names sit in titles only).
    for user in review.users.values():
        assert user.record_name not in text, user.name

    # The query subscription: its filter in words, alice first, when it last fired and how many it queued.
    pinned = row_of(driver, "subscriptions", "pinned-notes")
    assert "Note where pinned EQUALS 1 in every zone, on create, update, delete" in pinned.text, pinned.text
    assert pinned.find_element(By.CSS_SELECTOR, "td[data-label=User]").text.startswith("alice (_")
    fired = pinned.find_element(By.CSS_SELECTOR, ".last-fired a")
    assert fired.text.startswith("20"), fired.text
    queued = int(pinned.find_element(By.CSS_SELECTOR, "td[data-label=Queued]").text.replace(",", ""))
    assert 0 < queued <= review.queued_notifications["alice"], (queued, review.queued_notifications)
    shared = row_of(driver, "subscriptions", "bob-shared")
    assert "shared of bob" in shared.text and "every zone of the database" in shared.text
    assert shared.find_element(By.CSS_SELECTOR, ".last-fired a").text.startswith("20"), "it fired for alice's change"

    # alice's push token: her name, the poll just made, what waits, linked to her requests.
    token_id = requests.get(f"{review.server.url}/admin/v1/containers/{review.container}/development/push-tokens?user=alice",
                            cookies={c["name"]: c["value"] for c in driver.get_cookies()}, timeout=30).json()["pushTokens"][0]["id"]
    device = row_of(driver, "push-tokens", token_id)
    assert device.find_element(By.CSS_SELECTOR, "td[data-label=User]").text.startswith("alice (_")
    last_poll = device.find_element(By.CSS_SELECTOR, ".last-poll").text
    assert last_poll.startswith("20") and last_poll != "never", last_poll
    waiting = int(device.find_element(By.CSS_SELECTOR, "td[data-label=Waiting]").text.replace(",", ""))
    assert waiting == review.queued_notifications["alice"] - 1 + 2, (waiting, review.queued_notifications)
    requests_link = device.find_element(By.LINK_TEXT, "requests").get_attribute("href")
    assert requests_link.endswith("/development/logs?user=alice"), requests_link

    # Her queue, oldest first: each notification's subscription, reason and the courier's payload.
    queue = pages.find(f"#queue-{token_id}")
    items = queue.find_elements(By.CSS_SELECTOR, "ol.notifications > li")
    assert len(items) == 20 and "the oldest 20 of" in queue.text, queue.text[:300]
    first = items[0]
    assert "pinned-notes" in first.text and "in zone _defaultZone" in first.text, first.text
    payload = json.loads(first.find_element(By.CSS_SELECTOR, "code.payload").get_attribute("textContent"))
    assert payload["ck"]["qry"]["sid"] == "pinned-notes" and payload["aps"]["alert"]["body"] == "A pinned note changed", payload
    assert set(payload["ck"]["qry"]["af"]) == {"title"}, payload
    assert payload["ck"]["nid"] in first.text
    # bob's queue holds his shared database's notification.
    bob_items = [item.text for item in driver.find_elements(By.CSS_SELECTOR, ".queue li") if "bob-shared" in item.text]
    assert bob_items and "zones of the shared database changed" in bob_items[0], bob_items
    pages.check("sync-notifications")

    # A payload opened, as an operator reads one.
    first.find_element(By.TAG_NAME, "summary").click()
    assert '"sid":"pinned-notes"' in first.find_element(By.CSS_SELECTOR, "code.payload").text
    pages.check("sync-notifications-payload")

    # The last firing leads to the log a minute either side: the change that fired it is there.
    pages.open(review.console("public/sync/notifications"))
    row_of(driver, "subscriptions", "bob-shared").find_element(By.CSS_SELECTOR, ".last-fired a").click()
    assert "/logs?from=" in driver.current_url
    assert "records/modify" in pages.text()
    pages.check("sync-notifications-logs-around-firing")
    # And the token's user to their requests.
    driver.get(requests_link)
    assert pages.find("#log-user").get_attribute("value") == "alice"
    pages.check("sync-notifications-user-requests")


def test_change_feed_view_keeps_only_the_feed(pages, review, driver):
    pages.open(review.console("public/sync"))
    headings = [heading.text for heading in driver.find_elements(By.CSS_SELECTOR, "h2")]
    assert not {"Subscriptions", "Push tokens", "Notifications waiting"} & set(headings), headings
    assert pages.find("nav.subnav a.current").text == "Change feed"
    pages.emulate(390, 844, mobile=True)
    try:
        feed = driver.execute_script("return document.documentElement.scrollHeight")
        pages.open(review.console("public/sync/notifications"))
        notifications = driver.execute_script("return document.documentElement.scrollHeight")
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    print(f"height at 390 px: change feed {feed} px, notifications {notifications} px")
    assert feed <= 32_000, feed
