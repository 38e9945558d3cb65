"""Security review N4 in a real browser: an app user puts a quote, an apostrophe or `>` followed
by a combining mark (U+0301) into names and values that console pages write into attributes.
Escaping per grapheme let the quote end the attribute in the browser's tokenizer, which works on
code points, and the rest became attributes (a hidden, pre-checked checkbox in the records
table). Here every sink the review lists is loaded in headless Chromium, and the parsed DOM
must hold each hostile value exactly as an attribute value, with no attribute gained."""

import json
import shutil
import tempfile
import urllib.request
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from console_harness import OPERATOR, PASSWORD, ConsoleServer, Pages

CONTAINER = "iCloud.com.example.Escaping"
SCHEMA = """
DEFINE SCHEMA
    RECORD TYPE Note (
        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
        "___recordID"   REFERENCE QUERYABLE,
        title           STRING QUERYABLE SORTABLE,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
"""
BASE = f"/console/containers/{CONTAINER}/development"
INJECTED = "x-injected"
#: The review's record name, with an attribute of our own so its appearance cannot be missed.
RECORD = f'rec"\u0301/checked/{INJECTED}/'
#: A string field value, shown in the edit form's was.* hidden inputs.
TITLE = f"t'\u0301/{INJECTED}/ >\u0301 \"\u0301/{INJECTED}=1/"
ZONE = f'Zone"\u0301/{INJECTED}/'
SUBSCRIPTION = f"sub'\u0301/{INJECTED}/\"\u0301/{INJECTED}/"
SHARE = f'share"\u0301/{INJECTED}/'
NEXT = f'/console/"\u0301/form=nowhere/{INJECTED}/'
USER = "hostile"
USER_PASSWORD = "a hostile user's passphrase"

#: What the page may say about its DOM: attributes named oddly or injected, checked boxes, and
#: every attribute value.
DOM_REPORT = """
const odd = [];
const values = [];
for (const element of document.querySelectorAll('*')) {
  for (const attribute of element.attributes) {
    if (attribute.name === arguments[0] || !/^[a-z][a-z0-9_:.-]*$/.test(attribute.name)) {
      odd.push(element.tagName + ' ' + JSON.stringify(attribute.name));
    }
    values.push(attribute.value);
  }
}
const checked = Array.from(document.querySelectorAll('input[type=checkbox][name=record]')).filter(box => box.checked || box.hidden).length;
return JSON.stringify({odd: odd, values: values, checked: checked, text: document.documentElement.textContent});
"""


def api(server, api_token, web_auth_token, database, path, body):
    """A CloudKit Web Services call as the hostile app user; the answer's JSON."""
    url = (f"{server.url}/database/1/{CONTAINER}/development/{database}/{path}"
           f"?ckAPIToken={api_token}&ckWebAuthToken={quote(web_auth_token, safe='')}")
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=15) as response:
        answer = json.loads(response.read())
    for key in ("records", "zones", "subscriptions"):
        for entry in answer.get(key, []):
            assert "serverErrorCode" not in entry, answer
    return answer


@pytest.fixture(scope="module")
def server(binaries):
    data_dir = tempfile.mkdtemp(prefix="cumulus-escaping-")
    running = ConsoleServer(binaries, data_dir)
    running.cli("containers", "create", CONTAINER)
    schema = f"{data_dir}/schema.ckdb"
    with open(schema, "w") as file:
        file.write(SCHEMA)
    running.cli("import-schema", "--container", CONTAINER, "--file", schema)
    api_token = running.cli("tokens", "create", "--container", CONTAINER).strip()
    running.cli("users", "add", "--container", CONTAINER, USER, input=USER_PASSWORD + "\n")
    token = running.cli("users", "token", "--container", CONTAINER, USER, input=USER_PASSWORD + "\n").strip()
    api(running, api_token, token, "public", "records/modify", {"operations": [
        {"operationType": "create", "record": {"recordType": "Note", "recordName": RECORD, "fields": {"title": {"value": TITLE}}}}]})
    api(running, api_token, token, "private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": ZONE}}}]})
    api(running, api_token, token, "private", "records/modify", {"zoneID": {"zoneName": ZONE}, "operations": [
        {"operationType": "create", "record": {"recordType": "Note", "recordName": "root", "fields": {"title": {"value": TITLE}}}},
        {"operationType": "create", "record": {"recordType": "cloudkit.share", "recordName": SHARE, "forRecord": {"recordName": "root"},
                                               "publicPermission": "NONE"}},
    ]})
    api(running, api_token, token, "private", "subscriptions/modify", {"operations": [
        {"operationType": "create", "subscription": {"subscriptionID": SUBSCRIPTION, "subscriptionType": "zone", "zoneID": {"zoneName": ZONE}}}]})
    yield running
    running.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def pages(driver, server):
    return Pages(driver, server)


@pytest.fixture(scope="module")
def signed_in(pages, driver):
    """The operator, logged in through the form."""
    pages.open("/console/login")
    driver.find_element(By.ID, "name").send_keys(OPERATOR)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, "form[action='/console/login'] button[type=submit]").click()
    WebDriverWait(driver, 15).until(lambda d: old != d.find_element(By.TAG_NAME, "html"))
    assert "/console/login" not in driver.current_url
    return pages


def dom(driver):
    return json.loads(driver.execute_script(DOM_REPORT, INJECTED))


def expect_intact(driver, page, *hostile_values):
    """The page's DOM gained no attribute, checks or hides no record's box, and holds each value
    exactly, as an attribute value or as text."""
    report = dom(driver)
    assert not report["odd"], f"{page}: attributes injected: {report['odd']}"
    assert report["checked"] == 0, f"{page}: a record's checkbox is checked or hidden"
    for value in hostile_values:
        assert value in report["values"] or value in report["text"], f"{page}: {value!r} is not on the page as it was"


def test_01_login_next_is_kept_as_one_value(pages, driver):
    pages.open("/console/login?next=" + quote(NEXT, safe="/"))
    expect_intact(driver, "login", NEXT)
    assert driver.find_element(By.CSS_SELECTOR, "input[name=next]").get_attribute("value") == NEXT
    # The form still posts to the login, not to a form named elsewhere.
    assert driver.find_element(By.CSS_SELECTOR, "input[name=next]").get_attribute("form") in (None, "")


def test_02_records_table_checkbox(signed_in, driver):
    signed_in.open(f"{BASE}/public/records?type=Note")
    expect_intact(driver, "records", RECORD)
    boxes = driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=record]")
    assert RECORD in [box.get_attribute("value") for box in boxes]
    assert all(box.get_attribute("form") == "bulk" for box in boxes)


def test_03_record_detail_and_edit_form(signed_in, driver):
    path = f"{BASE}/public/records/{quote(RECORD, safe='')}"
    signed_in.open(path)
    expect_intact(driver, "record", RECORD)
    signed_in.open(path + "/edit")
    expect_intact(driver, "record-form", TITLE)
    hidden = {box.get_attribute("name"): box.get_attribute("value")
              for box in driver.find_elements(By.CSS_SELECTOR, "input[type=hidden]")}
    assert TITLE in hidden.values(), hidden
    assert driver.find_element(By.ID, "field-title").get_attribute("value") == TITLE


def test_04_zones_page(signed_in, driver):
    signed_in.open(f"{BASE}/private/zones?user={USER}")
    expect_intact(driver, "zones", ZONE)


def test_05_sync_page(signed_in, driver):
    # Subscriptions are on the Sync tab's Notifications view.
    signed_in.open(f"{BASE}/private/sync/notifications?user={USER}")
    expect_intact(driver, "sync", SUBSCRIPTION)
    assert SUBSCRIPTION in dom(driver)["values"], "the delete form's hidden field holds the subscription ID"


def test_06_shares_page(signed_in, driver):
    signed_in.open(f"{BASE}/sharing")
    expect_intact(driver, "shares", ZONE, SHARE)
    values = dom(driver)["values"]
    assert ZONE in values and SHARE in values, "the delete form's hidden fields hold the zone and share names"
