"""The console's Operators page, on the console review's data: the owner sees each operator's
role and containers, adds a viewer limited to the review's container and changes their role;
the viewer, signed in, is offered only what a viewer may do (no Operators link, no tabs of
users' data or credentials, no forms that post) and is refused the Operators page by the store,
inside the console. Every page visited is checked with axe-core and photographed at 1280×800
and 390×844."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from console_harness import Pages

VIEWER = "vera"
VIEWER_PASSWORD = "a long viewer passphrase"


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def operator_row(driver, name):
    """The cells of `name`'s row, by their labels."""
    for row in driver.find_elements(By.CSS_SELECTOR, "table.operators tbody tr"):
        cells = {cell.get_attribute("data-label"): cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td[data-label]")}
        if cells.get("Name", "").split(" ")[0] == name:
            return cells
    return None


def test_the_owner_adds_a_viewer_of_one_container_and_changes_their_role(pages, review, driver):
    pages.open("/console/operators")
    assert "Operators" in driver.find_element(By.TAG_NAME, "h1").text
    owner = operator_row(driver, "admin")
    assert owner["Role"] == "Owner" and owner["Containers"] == "Every container", owner
    pages.check("operators")

    pages.find("#op-name").send_keys(VIEWER)
    pages.find("#op-password").send_keys(VIEWER_PASSWORD)
    Select(pages.find("#op-role")).select_by_value("developer")
    pages.find("#op-containers").send_keys(review.container)
    pages.submit("form[action='/console/operators'] button[type=submit]")
    assert f"Operator {VIEWER} added as developer of {review.container}." in pages.text()
    added = operator_row(driver, VIEWER)
    assert added["Role"] == "Developer" and added["Containers"] == review.container, added

    Select(pages.find(f"#role-{VIEWER}")).select_by_value("viewer")
    pages.submit(f"form[action='/console/operators/{VIEWER}/role'] button[type=submit]")
    assert f"{VIEWER} is now viewer of {review.container}." in pages.text()
    assert operator_row(driver, VIEWER)["Role"] == "Viewer"
    pages.check("operators-role-changed")


def test_the_viewer_is_offered_only_what_a_viewer_may_do(pages, review, driver):
    # Sign out the owner, sign in the viewer added above.
    pages.submit("nav.site-nav form button")
    viewer = Pages(driver, review.server)
    viewer.open("/console/login")
    viewer.find("#name").send_keys(VIEWER)
    viewer.find("#password").send_keys(VIEWER_PASSWORD)
    viewer.submit("form button[type=submit]")

    viewer.open("/console/containers")
    listed = viewer.text()
    assert review.container in listed

    viewer.open(review.console("schema"))
    nav = driver.find_element(By.CSS_SELECTOR, "nav.site-nav").text
    assert "Operators" not in nav and "Management tokens" not in nav, nav
    tabs = [tab.text for tab in driver.find_elements(By.CSS_SELECTOR, ".tabs a")]
    assert {"Records", "Zones", "Sync", "Schema", "Logs", "Usage"} <= set(tabs), tabs
    for hidden in ("Users", "API tokens", "Server keys", "Sharing", "Reset"):
        assert hidden not in tabs, tabs
    assert "read-only" in driver.find_element(By.CSS_SELECTOR, "main").get_attribute("class")
    offered = [element for element in driver.find_elements(By.CSS_SELECTOR, "main form[method=post], main button[form], main details")
               if element.is_displayed()
               and (element.tag_name != "details" or element.find_elements(By.CSS_SELECTOR, "form[method=post]"))]
    assert offered == [], "a viewer is offered no form that changes something"
    viewer.check("viewer-schema")

    viewer.open("/console/operators")
    # Limited to one container, the viewer is refused what concerns every container.
    assert f"This operator may act only in {review.container}; this concerns every container" in viewer.text()
    assert driver.find_elements(By.CSS_SELECTOR, "nav.site-nav"), "the refusal stays in the console"
    viewer.check("viewer-operators-refused")
