"""The shared database in the console, on the console review's data: bob, who accepted alice's
share of her zone Trips, sees it in his shared database (zone picker, records browsed by name and
counted as far as his share reaches, sync, zones with its owner and a way to leave it); carol,
only invited, does not, nor any count of the zone's records; pages that do not exist answer
404 inside the console; and people are named by name, their record name shortened after it.
Every page visited is checked with axe-core and photographed at 1280×800 and 390×844."""

import re
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def shared(review, page, user, **query):
    """A page of `user`'s shared database in development."""
    extra = "".join(f"&{name}={quote(value)}" for name, value in query.items())
    return review.console(f"shared/{page}?user={user}{extra}")


def status_of(review, driver, path):
    """The HTTP status of `path`, asked outside the browser with the browser's session cookie."""
    cookies = "; ".join(f"{cookie['name']}={cookie['value']}" for cookie in driver.get_cookies())
    request = urllib.request.Request(review.server.url + path, headers={"Cookie": cookies})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def assert_console_404(pages, review, driver, path, name):
    pages.open(path)
    assert driver.find_elements(By.CSS_SELECTOR, "nav.site-nav"), f"{path}: the console's nav"
    assert "Cumulus console" in driver.title, driver.title
    assert status_of(review, driver, path) == 404, path
    # A long path quoted in the message must not widen the page: a phone would zoom out to fit it.
    pages.emulate(390, 844, mobile=True)
    try:
        assert driver.execute_script("return window.innerWidth") == 390, f"{path} is wider than a 390 px phone"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    pages.check(name)


def test_bobs_shared_database_shows_alices_trips(pages, review, driver):
    for record_type, expected in (("Trip", [review.trip_root]), ("Stop", review.stops)):
        pages.open(shared(review, "records", "bob", type=record_type))
        picker = Select(pages.find("#bar-zone"))
        assert picker.first_selected_option.text.strip() == "Trips — alice", [option.text for option in picker.options]
        # The shared database is queried, as a participant's app does: record names need an index,
        # which the page offers to add, as a developer would.
        if driver.find_elements(By.CSS_SELECTOR, ".card.warning form button"):
            pages.check(f"shared-records-{record_type.lower()}-needs-index")
            pages.submit(".card.warning form button")
        assert sorted(listed_records(driver)) == sorted(expected), pages.text()[-1500:]
        assert Select(pages.find("#bar-zone")).first_selected_option.text.strip() == "Trips — alice"
        pages.check(f"shared-records-{record_type.lower()}")


def listed_records(driver):
    """The record names in the records table."""
    return [row.find_element(By.CSS_SELECTOR, "td[data-label=\"Record name\"]").text
            for row in driver.find_elements(By.CSS_SELECTOR, "table.records tbody tr")]


def test_bobs_shared_zone_has_its_sync_page(pages, review, driver):
    path = shared(review, "sync", "bob")
    pages.open(path)
    assert status_of(review, driver, path) == 200
    text = pages.text()
    assert "Trips" in text and "not found" not in text.lower(), text[:2000]
    assert review.trip_root in text or any(stop in text for stop in review.stops), "the zone's change log"
    pages.check("shared-sync")


def test_bobs_zones_list_trips_with_its_owner_and_a_leave_button(pages, review, driver):
    pages.open(shared(review, "zones", "bob"))
    rows = driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")
    trips = [row for row in rows if row.find_element(By.CSS_SELECTOR, "td[data-label=Zone]").text == review.trips_zone]
    assert len(trips) == 1, [row.text for row in rows]
    row = trips[0]
    owner = row.find_element(By.CSS_SELECTOR, "td[data-label=Owner]").text
    assert owner.startswith("alice (" + review.users["alice"].record_name[:5]), owner
    assert int(row.find_element(By.CSS_SELECTOR, "td[data-label=Records]").text.replace(",", "")) > 0
    buttons = [button.text for button in row.find_elements(By.CSS_SELECTOR, "button")]
    assert buttons == ["Leave…"], buttons
    pages.check("shared-zones")

    pages.submit("table.list tbody tr button.danger")
    title = pages.find("h1").text
    assert review.trips_zone in title and "alice" in title, title
    card = pages.find("section.card.danger").text
    assert review.share in card and "bob" in card, card
    pages.check("shared-leave-confirm")


def test_bob_browses_the_shared_zone_by_name_counted_as_far_as_his_share_reaches(pages, review, driver):
    owner = review.users["alice"].record_name
    pages.open(shared(review, "records", "bob", owner=owner, zone=review.trips_zone, type="Stop"))
    # Browsed from the store by record name, as other zones are: no index is asked for.
    assert not driver.find_elements(By.CSS_SELECTOR, ".card.warning"), pages.text()[:1500]
    count = pages.find("p.count").text
    assert count == f"{len(review.stops)} Stop records in zone Trips · {len(review.stops)} shown, page 1 · by record name", count
    assert sorted(listed_records(driver)) == sorted(review.stops)
    # alice's draft in Trips, outside the shared hierarchy, is neither listed nor counted for bob.
    labels = [option.text for option in Select(pages.find("#q-type")).options]
    assert "Entry (0)" in labels and "Trip (1)" in labels, labels
    pages.check("shared-records-browsed")
    pages.open(shared(review, "records", "bob", owner=owner, zone=review.trips_zone, type="Entry"))
    assert review.trips_private not in pages.text()
    # The Zones page counts what bob may read, alice's own page the whole zone.
    pages.open(shared(review, "zones", "bob"))
    row = [row for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")
           if row.find_element(By.CSS_SELECTOR, "td[data-label=Zone]").text == review.trips_zone][0]
    assert row.find_element(By.CSS_SELECTOR, "td[data-label=Records]").text == str(len(review.stops) + 1)
    pages.open(review.console("private/zones?user=alice"))
    row = [row for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")
           if row.find_element(By.CSS_SELECTOR, "td[data-label=Zone]").text == review.trips_zone][0]
    assert row.find_element(By.CSS_SELECTOR, "td[data-label=Records]").text == str(len(review.stops) + 2)


def test_carol_only_invited_cannot_reach_the_zone(pages, review, driver):
    owner = review.users["alice"].record_name
    for page in ("records", "sync"):
        path = shared(review, page, "carol", owner=owner, zone=review.trips_zone)
        assert_console_404(pages, review, driver, path, f"shared-carol-{page}")
        assert review.trip_root not in pages.text()
        # Where the bar names the zone, it names its owner by name.
        assert not visible_record_names(driver, review)
        if page == "records":
            assert Select(pages.find("#bar-zone")).first_selected_option.text.strip() == "Trips — alice"
            # Nothing of the zone's contents: no type picker counting its records.
            assert not driver.find_elements(By.CSS_SELECTOR, "#q-type"), pages.text()[:1500]
            assert not re.search(r"\b(Trip|Stop|Entry) \(\d+\)", pages.text()), pages.text()[:1500]


def test_an_unknown_console_page_is_a_404_inside_the_console(pages, review, driver):
    assert_console_404(pages, review, driver, review.console("nowhere"), "unknown-container-page")
    assert_console_404(pages, review, driver, "/console/nowhere/at/all", "unknown-page")


def test_a_confirmation_names_the_user_first(pages, review, driver):
    pages.open(review.console("users"))
    row = [row for row in driver.find_elements(By.CSS_SELECTOR, "table tbody tr")
           if row.find_element(By.CSS_SELECTOR, "td[data-label=Name] strong").text == "alice"]
    assert len(row) == 1
    old = driver.find_element(By.TAG_NAME, "html")
    row[0].find_element(By.XPATH, ".//button[normalize-space()='Remove…']").click()
    WebDriverWait(driver, 15).until(lambda d: old != d.find_element(By.TAG_NAME, "html"))
    title = pages.find("h1").text
    assert title.startswith("Remove user alice (" + review.users["alice"].record_name[:5]), title
    pages.check("remove-user-confirm")


def visible_record_names(driver, review):
    """Where the page shows a named user's record name other than as `name (_abcd…)`: in full, or
    shortened without the name before it, in the text a reader sees (a record's JSON, folded
    away, is the API's answer as it is). The Users page's own record-name column is its place."""
    text = driver.execute_script("""
        const cells = [...document.querySelectorAll('td[data-label="User record name"]')];
        cells.forEach(cell => cell.style.display = 'none');
        const text = document.body.innerText;
        cells.forEach(cell => cell.style.display = '');
        return text""")
    found = []
    for name, user in review.users.items():
        if user.record_name in text:
            found.append(f"{name}: {user.record_name} in full")
        for match in re.finditer(re.escape(user.record_name[:5]), text):
            if not text[:match.start()].endswith(f"{name} ("):
                found.append(f"{name}: …{text[max(0, match.start() - 40):match.end() + 10]}…")
    return found


@pytest.mark.parametrize("name, path", [
    ("names-record-detail", "private/records/trip-japan?user=alice&zone=Trips"),
    ("names-sync", "private/sync?user=alice&zone=Trips"),
    ("names-shared-sync", "shared/sync?user=bob"),
    ("names-logs", "logs"),
    ("names-users", "users"),
])
def test_people_are_named_by_name_not_by_record_name(pages, review, driver, name, path):
    pages.open(review.console(path))
    assert status_of(review, driver, review.console(path)) == 200
    found = visible_record_names(driver, review)
    assert not found, found
    pages.check(name)
