"""The console's layout and keyboard use on the console review's data: every page at 1280×800
and 390×844 (screenshots, axe-core), a skip link as the first Tab stop, a tab bar that stays
one row and scrolls at 390 px, production marked on every page of it, the environment switch
only where it changes the page, numbers under right-aligned headers, a run-query shortcut, the
login's focus after a failure, and page heights at 390 px within a budget."""

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from console_harness import OPERATOR, Pages
from review_fixture import CloudKitClient

#: Every page of a container, by the name its screenshots get.
CONTAINER_PAGES = {
    "records": "public/records?type=Note",
    "record-detail": "public/records/note-0001",
    "record-edit": "public/records/note-0001/edit",
    "zones-public": "public/zones",
    "zones-private": "private/zones?user=alice",
    "sync": "public/sync",
    "sharing": "sharing",
    "schema": "schema",
    "security": "security",
    "users": "users",
    "tokens": "tokens",
    "keys": "keys",
    "logs": "logs",
    "usage": "usage",
    "deploy": "deploy",
    "reset": "reset",
    "trash": "public/trash",
    "record-history": "public/records/note-0000/history",
    "restore-point": "public/restore-point?type=Note",
}
#: The console's pages outside a container.
SERVER_PAGES = {"containers": "/console/containers", "management-tokens": "/console/management-tokens", "audit": "/console/audit"}
#: Heights at 390 px, at most half of what the review measured (records 19 k, logs 21 k, schema 22 k, sync 65 k).
HEIGHT_BUDGETS = {"records": 9_500, "logs": 10_500, "schema": 11_000, "sync": 32_000}
#: The history's pages, measured at about 3,000 (the trash's ten notes), 1,000 and 1,100 px.
HEIGHT_BUDGETS.update({"trash": 4_000, "record-history": 2_000, "restore-point": 1_600})


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def tab_to_first_stop(driver):
    """Presses Tab once from the top of a freshly loaded page and returns the focused element."""
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    ActionChains(driver).send_keys(Keys.TAB).perform()
    return driver.switch_to.active_element


def page_height_at_phone_width(pages, driver):
    pages.emulate(390, 844, mobile=True)
    try:
        return driver.execute_script("return document.documentElement.scrollHeight")
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def overflowing_cells_at_phone_width(pages, driver):
    """The card cells at 390 px whose content is wider than the cell (cut off inside its card)."""
    pages.emulate(390, 844, mobile=True)
    try:
        return driver.execute_script(
            "return [...document.querySelectorAll('.list td[data-label]')].filter(td => td.scrollWidth > td.clientWidth + 1)"
            ".map(td => td.dataset.label + ': ' + td.textContent.trim().slice(0, 60))")
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_every_page_at_both_sizes_is_clean(pages, review, driver):
    for name, path in SERVER_PAGES.items():
        pages.open(path)
        assert OPERATOR in pages.text(), f"{name}: not signed in"
        pages.check(name)
        assert not overflowing_cells_at_phone_width(pages, driver), (name, overflowing_cells_at_phone_width(pages, driver))
    for name, path in CONTAINER_PAGES.items():
        pages.open(review.console(path))
        assert "Skip to content" in driver.page_source, name
        assert not driver.find_elements(By.CSS_SELECTOR, ".env-banner"), f"{name}: development marked as production"
        pages.check(name)
        assert not overflowing_cells_at_phone_width(pages, driver), (name, overflowing_cells_at_phone_width(pages, driver))


def test_production_is_marked_in_words_on_every_page(pages, review, driver):
    for name, path in CONTAINER_PAGES.items():
        if name in ("record-detail", "record-edit", "zones-private"):
            continue  # production's records are the fixture's own: the list pages stand for them
        pages.open(review.console(path.replace("note-0001", "prod-note-01"), environment="production"))
        banners = driver.find_elements(By.CSS_SELECTOR, ".bar.production .env-banner")
        assert len(banners) == 1 and banners[0].text.startswith("PRODUCTION"), f"{name}: {[b.text for b in banners]}"
        assert banners[0].is_displayed()
    pages.open(review.console("public/records?type=Note", environment="production"))
    pages.check("records-production")


def test_the_skip_link_is_the_first_tab_stop_and_moves_focus_to_the_content(pages, review, driver):
    for path in ("/console/containers", review.console("public/records?type=Note"), review.console("logs"), "/console/audit"):
        pages.open(path)
        first = tab_to_first_stop(driver)
        assert first.text == "Skip to content" and first.get_attribute("href").endswith("#main"), (path, first.get_attribute("outerHTML"))
        assert first.is_displayed(), "the focused skip link is visible"
        first.send_keys(Keys.ENTER)
        WebDriverWait(driver, 5).until(lambda d: d.switch_to.active_element.get_attribute("id") == "main")
        # The next Tab goes into the page's content, not back to the header.
        ActionChains(driver).send_keys(Keys.TAB).perform()
        inside = driver.execute_script("return document.getElementById('main').contains(document.activeElement)")
        assert inside, (path, driver.switch_to.active_element.get_attribute("outerHTML"))
    pages.open("/console/login")
    assert "Skip to content" in driver.page_source


def test_the_tab_bar_is_one_row_that_scrolls_at_390_px(pages, review, driver):
    pages.emulate(390, 844, mobile=True)
    try:
        pages.open(review.console("usage"))
        tops = driver.execute_script("return [...document.querySelectorAll('.tabs a')].map(a => a.getBoundingClientRect().top)")
        assert len(tops) >= 13 and len(set(round(top) for top in tops)) == 1, f"tabs on {len(set(tops))} rows: {tops}"
        sizes = driver.execute_script("const t = document.querySelector('.tabs');"
                                      "return [t.scrollWidth, t.clientWidth, getComputedStyle(t).overflowX]")
        assert sizes[0] > sizes[1] and sizes[2] == "auto", sizes
        # The current tab, far to the right, is scrolled into view.
        current = driver.execute_script("const a = document.querySelector('.tabs a.current').getBoundingClientRect();"
                                        "return [a.left, a.right, window.innerWidth]")
        assert current[0] >= 0 and current[1] <= current[2], current
        assert driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth") <= 1
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_cards_at_390_px_put_each_label_beside_its_value(pages, review, driver):
    pages.open(review.console("public/records?type=Note"))
    pages.emulate(390, 844, mobile=True)
    try:
        cells = driver.execute_script("""
            return [...document.querySelectorAll('table.records tbody tr:first-child td[data-label]')].map(td => {
                const box = td.getBoundingClientRect();
                return [td.dataset.label, box.height, getComputedStyle(td, '::before').display];
            })""")
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert cells, "the records table has labelled cells"
    # Beside: a one-line value makes a one-line cell (label above value would be two lines, > 40 px).
    # The label is drawn in the value's line (a table cell beside it, or inline before it on the
    # records page, whose cells wrap side by side), never as a block above it.
    assert all(display in ("table-cell", "inline") for _, _, display in cells), cells
    one_line = [height for label, height, _ in cells if label in ("Type", "Modified", "pinned")]
    assert one_line and all(height < 36 for height in one_line), cells


def test_the_environment_switch_only_where_it_changes_the_page(pages, review, driver):
    pages.open(review.console("users"))
    assert not driver.find_elements(By.CSS_SELECTOR, "nav.switch[aria-label=Environment]")
    assert "The same in both environments" in pages.find(".bar").text
    pages.open(review.console("public/records?type=Note"))
    assert driver.find_elements(By.CSS_SELECTOR, "nav.switch[aria-label=Environment]")


def test_no_location_form_without_a_field(pages, review, driver):
    pages.open(review.console("public/zones"))
    assert not driver.find_elements(By.CSS_SELECTOR, ".bar form"), "a lone Show button on the public Zones page"
    pages.open(review.console("private/zones?user=alice"))
    assert driver.find_elements(By.CSS_SELECTOR, ".bar form #bar-user")
    pages.open(review.console("public/records?type=Note"))
    assert driver.find_elements(By.CSS_SELECTOR, ".bar form #bar-zone")


def test_number_headers_are_right_aligned_above_their_numbers(pages, review, driver):
    for path in ("/console/containers", review.console("public/zones"), review.console("private/zones?user=alice")):
        pages.open(path)
        columns = driver.execute_script("""
            const table = document.querySelector('table.list');
            const headers = [...table.querySelectorAll('thead th')];
            return headers.map((th, index) => {
                const cell = table.querySelector(`tbody tr td:nth-child(${index + 1})`);
                return [th.textContent, th.classList.contains('num'), getComputedStyle(th).textAlign,
                        th.getBoundingClientRect().right, cell ? cell.getBoundingClientRect().right : null,
                        cell ? getComputedStyle(cell).textAlign : null];
            })""")
        numeric = [column for column in columns if column[1]]
        assert numeric, (path, columns)
        for label, _, header_align, header_right, cell_right, cell_align in numeric:
            assert header_align == "right" and cell_align == "right", (path, label, header_align, cell_align)
            assert abs(header_right - cell_right) <= 1, (path, label, header_right, cell_right)


def test_ctrl_enter_runs_the_query(pages, review, driver):
    pages.open(review.console("public/records?type=Note"))
    assert "Enter" in pages.find("#run-shortcut").text
    Select(pages.find("#f0-field")).select_by_value("title")
    Select(pages.find("#f0-op")).select_by_value("EQUALS")
    value = pages.find("#f0-value")
    value.send_keys("Note 7")
    old = driver.find_element(By.TAG_NAME, "html")
    ActionChains(driver).key_down(Keys.CONTROL).send_keys_to_element(value, Keys.ENTER).key_up(Keys.CONTROL).perform()
    WebDriverWait(driver, 15).until(lambda d: old != d.find_element(By.TAG_NAME, "html"))
    assert "f0.value=Note+7" in driver.current_url or "f0.value=Note%207" in driver.current_url, driver.current_url
    rows = driver.find_elements(By.CSS_SELECTOR, "table.records tbody tr")
    assert len(rows) == 1 and "note-0007" in rows[0].text, [row.text for row in rows]


@pytest.mark.parametrize("name", [
    "records",
    "logs",
    "schema",
    "sync",
    "trash",
    "record-history",
    "restore-point",
])
def test_page_height_at_390_px_within_budget(pages, review, driver, name):
    pages.open(review.console(CONTAINER_PAGES[name]))
    height = page_height_at_phone_width(pages, driver)
    assert height <= HEIGHT_BUDGETS[name], f"{name} is {height} px tall at 390 px (budget {HEIGHT_BUDGETS[name]})"


def test_a_refused_record_marks_every_field_it_refused(pages, review, driver):
    pages.open(review.console("public/records/new?type=Note"))
    pages.find("#field-title").send_keys("Checked")
    pages.find("#field-place").send_keys("nowhere")
    # As a browser that does not check number inputs would send it.
    driver.execute_script("document.getElementById('field-rating').type = 'text'")
    pages.find("#field-rating").send_keys("many")
    pages.submit("form.record-form button[type=submit]")
    errors = {element.get_attribute("id"): element.text for element in driver.find_elements(By.CSS_SELECTOR, ".field-error")}
    assert set(errors) == {"field-place-error", "field-rating-error"}, errors
    assert "'nowhere' is not a location" in errors["field-place-error"] and "'many' is not a number" in errors["field-rating-error"]
    for field in ("place", "rating"):
        element = pages.find(f"#field-{field}")
        assert element.get_attribute("aria-invalid") == "true"
        assert f"field-{field}-error" in element.get_attribute("aria-describedby").split()
    assert pages.find("#field-title").get_attribute("value") == "Checked", "what was typed is kept"
    assert pages.find("#field-title").get_attribute("aria-invalid") is None
    pages.check("record-new-refused")


def test_a_conflict_shows_their_values_and_can_be_saved_over(pages, review, driver):
    pages.open(review.console("public/records/note-0004/edit"))
    # bob, who wrote note-0004, changes its title while the form is open.
    bob = CloudKitClient(review.server.url, review.container, "development", api_token=review.api_token,
                         web_auth_token=review.users["bob"].web_auth_token)
    changed = bob.post("public", "records/modify", {"operations": [{"operationType": "forceUpdate", "record": {
        "recordName": "note-0004", "recordType": "Note", "fields": {"title": {"value": "Bob's title"}}}}]})
    assert changed.status_code == 200 and "serverErrorCode" not in changed.json()["records"][0], changed.text
    body = pages.find("#field-body")
    body.clear()
    body.send_keys("The operator's body")
    pages.submit("form.record-form button[type=submit]")
    assert "Someone else changed this record" in pages.find(".alert").text
    theirs = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".theirs")]
    assert theirs == ["Saved by someone else since you opened it: Bob's title"], theirs
    assert pages.find("#field-body").get_attribute("value") == "The operator's body"
    pages.check("record-edit-conflict")
    pages.submit("form.record-form button[name=overwrite]")
    assert "Record note-0004 saved." in pages.text()
    record = bob.lookup("public", ["note-0004"])["records"][0]["fields"]
    assert record["title"]["value"] == "Bob's title" and record["body"]["value"] == "The operator's body", record


def test_management_tokens_made_on_the_command_line_are_audited(pages, review, driver):
    pages.open("/console/management-tokens")
    listed = pages.text()
    assert all(name in listed for name in ("laptop", "ci", "backup script")), listed
    pages.open("/console/audit")
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.audit tbody tr")]
    made = [row for row in rows if "management-token.create" in row]
    assert len(made) == 3 and all("command line" in row for row in made), made
    assert any("backup script" in row for row in made), made


# Last: it signs the browser out.
def test_after_a_failed_login_the_cleared_password_has_the_focus(review, driver):
    driver.delete_all_cookies()
    pages = Pages(driver, review.server)
    pages.open("/console/login")
    pages.find("#name").send_keys(OPERATOR)
    pages.find("#password").send_keys("wrong password")
    pages.submit("form button[type=submit]")
    assert pages.find(".alert").is_displayed()
    active = driver.switch_to.active_element
    assert active.get_attribute("id") == "password" and active.get_attribute("value") == "", active.get_attribute("outerHTML")
    assert pages.find("#name").get_attribute("value") == OPERATOR
    pages.check("login-failed")
