"""Logs that say why and usage that tells something, on the console review's data shape: a
records/modify that answered 200 with per-record ACCESS_DENIED failures is flagged and found by
"errors only", and its row and detail name the reason and the API token; a malformed request's
row and detail name its reason;
the operation filter lists every operation of the API; the Usage page shows totals and a
breakdown by operation, and an empty container says so in words. Every page is checked with
axe-core and saved as screenshots at 1280×800 and 390×844; the Logs page with 50 rows stays
within its height budget at 390 px."""

import re
import time

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

#: At most half the height the review measured for 50 rows at 390 px (21,041 px).
LOGS_HEIGHT_BUDGET = 10_500
EMPTY_CONTAINER = "iCloud.com.example.Recipes"


def _rows(pages):
    return pages.driver.find_elements(By.CSS_SELECTOR, "#log-rows tr")


def _query_notes(review, times):
    """Reads notes as the world `times` times, so that the log holds more calls than a page."""
    url = f"{review.server.url}/database/1/{review.container}/development/public/records/query?ckAPIToken={review.api_token}"
    for _ in range(times):
        assert requests.post(url, json={"query": {"recordType": "Folder"}, "resultsLimit": 5}, timeout=10).status_code == 200


def test_a_partly_failed_write_is_found_by_errors_only_and_its_detail_names_the_reason(review, driver):
    _query_notes(review, 30)
    pages = review.log_in(driver)
    pages.open(review.console("logs"))
    options = [option.get_attribute("value") for option in Select(pages.find("#log-operation")).options]
    for operation in ("records/changes", "zones/changes", "changes/zone", "changes/database", "subscriptions/modify",
                      "assets/upload", "records/accept", "records/modify"):
        assert operation in options, operation
    assert len(_rows(pages)) == 50
    # At 390 px, 50 calls as cards stay within the budget.
    pages.emulate(390, 844, mobile=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert height <= LOGS_HEIGHT_BUDGET, f"the log of 50 calls is {height}px tall at 390px"
    # Users by name: bob, not his record name.
    assert review.users["bob"].record_name not in pages.text()
    pages.check("logs-list")

    pages.find("#log-errors").click()
    Select(pages.find("#log-operation")).select_by_value("records/modify")
    pages.submit(".log-filters button[type=submit]")
    flagged = [row for row in _rows(pages) if "ACCESS_DENIED" in row.text and "of 5 records" in row.text]
    assert flagged, pages.text()
    assert "3 of 5 records: ACCESS_DENIED" in flagged[0].text
    assert "bob" in flagged[0].text
    # The row itself says why and with which credential; the malformed calls say why too, so
    # that failures are told apart without opening each one.
    assert "API token iOS app" in flagged[0].text
    refused = [row for row in _rows(pages) if "400 BAD_REQUEST" in row.text]
    assert refused and all(len(row.find_element(By.CSS_SELECTOR, "td[data-label=Status]").text) > len("400 BAD_REQUEST ")
                           for row in refused), [row.text for row in refused]
    pages.check("logs-errors-only")

    link = flagged[0].find_element(By.CSS_SELECTOR, "a[href*='/logs/requests/']")
    old = driver.find_element(By.TAG_NAME, "html")
    link.click()
    WebDriverWait(driver, 15).until(lambda d: old != d.find_element(By.TAG_NAME, "html"))
    reason = pages.find("#log-reason").text
    assert reason.startswith("ACCESS_DENIED: ") and len(reason) > len("ACCESS_DENIED: "), reason
    text = pages.text()
    assert "API token iOS app" in text
    assert "Note" in text and "_defaultZone" in text
    assert "succeeded: 2" in text and "ACCESS_DENIED: 3" in text
    pages.check("log-detail-partial")

    # The malformed request's detail names the reason the client was sent.
    pages.open(review.console("logs?errors=1&status=400&operation=records/modify"))
    rows = _rows(pages)
    assert rows, pages.text()
    pages.open(rows[0].find_element(By.CSS_SELECTOR, "a[href*='/logs/requests/']").get_attribute("href").replace(review.server.url, ""))
    assert pages.find("#log-reason").text not in ("", "—")
    pages.check("log-detail-error")


def test_live_tail_rows_look_and_label_like_the_pages_rows(review, driver):
    pages = review.log_in(driver)
    pages.open(review.console("logs?operation=records/query"))
    before = _rows(pages)
    labels = [cell.get_attribute("data-label") for cell in before[0].find_elements(By.CSS_SELECTOR, "td")]
    pages.find("#tail-toggle").click()
    WebDriverWait(driver, 10).until(lambda d: "Live tail:" in d.find_element(By.ID, "tail-status").text)
    time.sleep(0.5)
    _query_notes(review, 1)
    WebDriverWait(driver, 15).until(lambda d: len(_rows(pages)) > len(before))
    newest = _rows(pages)[0]
    assert [cell.get_attribute("data-label") for cell in newest.find_elements(By.CSS_SELECTOR, "td")] == labels
    cells = {cell.get_attribute("data-label"): cell.text for cell in newest.find_elements(By.CSS_SELECTOR, "td")}
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", cells["Time"]), cells
    assert cells["User"] == "world"
    assert re.search(r"\d bytes / [\d.]+ KB", cells["Time taken"]), cells
    assert "127.0.0.1" in cells["Request"]
    pages.find("#tail-toggle").click()
    pages.check("logs-live-tail")


def test_usage_shows_totals_a_breakdown_by_operation_and_an_empty_state_in_words(review, driver):
    pages = review.log_in(driver)
    pages.open(review.console("usage"))
    totals = pages.find("#usage-totals").text
    assert "Requests" in totals and "Errors" in totals and "Busiest second" in totals
    breakdown = pages.find("#usage-operations").text
    assert "records/modify" in breakdown and "records/query" in breakdown
    assert "Storage is the bytes of the records" in pages.text()
    # The range defaults to one that holds the seed's calls, made within the last hour.
    assert pages.find(".segmented a.current").text == "Last hour"
    pages.check("usage")

    review.server.cli("containers", "create", EMPTY_CONTAINER)
    pages.open(f"/console/containers/{EMPTY_CONTAINER}/development/usage")
    assert "No traffic yet" in pages.find("#usage-empty").text
    assert not driver.find_elements(By.CSS_SELECTOR, "#usage-operations")
    pages.check("usage-empty")


def _checks(table) -> list[tuple[str, str, str]]:
    return [tuple(cell.text for cell in row.find_elements(By.TAG_NAME, "td")) for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]


def test_a_refused_calls_trace_names_the_deciding_rule_and_equals_the_simulators_answer(review, driver):
    """The per-record refusals of bob's write keep the decision the store took, at the time of the
    call: the rule that refused and every grant weighed. Asked of the permission simulator, the same
    question gets the same answer, rule for rule."""
    pages = review.log_in(driver)
    pages.open(review.console("logs?errors=1&operation=records/modify"))
    flagged = [row for row in _rows(pages) if "ACCESS_DENIED" in row.text]
    assert flagged, pages.text()
    pages.open(flagged[0].find_element(By.CSS_SELECTOR, "a[href*='/logs/requests/']").get_attribute("href").replace(review.server.url, ""))
    decision = pages.find("#trace article.decision")
    heading = decision.find_element(By.TAG_NAME, "h3").text
    assert heading.startswith("Denied — no grant gives WRITE on "), heading
    rule = decision.find_element(By.CSS_SELECTOR, ".rule").text
    traced = _checks(decision.find_element(By.CSS_SELECTOR, "table.checks"))
    assert traced and any(check[1] == "no" for check in traced), traced
    assert any('"_creator"' in check[0] and "created the record" in check[2] for check in traced), traced
    assert review.users["bob"].record_name in decision.text
    pages.check("log-detail-trace")

    pages.open(decision.find_element(By.LINK_TEXT, "Ask the permission simulator the same question").get_attribute("href")
               .replace(review.server.url, ""))
    answer = pages.find("#simulator .answer").text
    assert answer == f"Denied — {rule}", answer
    assert _checks(pages.find("#simulator table.checks")) == traced
    pages.check("log-trace-simulator")
