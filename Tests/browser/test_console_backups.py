"""The console's Backups page, server-wide, on the console review's data: empty at first; a
backup taken from the page is listed with its time, size and a manifest that matches; it
downloads (to the signed-in operator only) as the tar file it is, with its manifest last; it is
deleted after the confirmation step, which changes nothing until confirmed. Every page visited
is checked with axe-core and photographed at 1280×800 and 390×844."""

import io
import tarfile
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By


@pytest.fixture(scope="module")
def pages(review, driver):
    return review.log_in(driver)


def fetch(review, driver, path, signed_in=True):
    """The status, headers and body of `path`, asked outside the browser (with its session cookie
    when `signed_in`), without following redirects."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    cookies = "; ".join(f"{cookie['name']}={cookie['value']}" for cookie in driver.get_cookies()) if signed_in else ""
    request = urllib.request.Request(review.server.url + path, headers={"Cookie": cookies} if cookies else {})
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")


def test_a_backup_is_taken_listed_downloaded_and_deleted(pages, review, driver):
    pages.open("/console/backups")
    assert "Backups" in pages.find("h1").text
    assert "No backups yet." in pages.text()
    assert driver.find_elements(By.CSS_SELECTOR, "nav.site-nav a[href='/console/backups']"), "the console's nav links the page"
    pages.check("backups-empty")

    pages.submit("form[action='/console/backups'] button")
    assert "taken" in pages.find("p.notice").text
    [row] = rows(driver)
    name = row.find_element(By.CSS_SELECTOR, "td[data-label='Name']").text
    assert name.startswith("cumulus-backup-") and name.endswith(".tar")
    assert row.find_element(By.CSS_SELECTOR, "td[data-label='Manifest']").text == "ok"
    assert row.find_element(By.CSS_SELECTOR, "td[data-label='Size']").text.endswith("B")
    pages.check("backups-list")

    link = row.find_element(By.LINK_TEXT, "Download").get_attribute("href")
    path = link[len(review.server.url):]
    status, headers, body = fetch(review, driver, path)
    assert status == 200 and headers["Content-Disposition"] == f'attachment; filename="{name}"'
    with tarfile.open(fileobj=io.BytesIO(body)) as archive:
        members = archive.getnames()
    assert members[-1] == "manifest.json" and "cumulus.sqlite" in members
    # Without the operator's session: sent to sign in, and no byte of the backup.
    status, headers, body = fetch(review, driver, path, signed_in=False)
    assert status in (302, 303) and "/console/login" in headers.get("Location", "") and b"manifest.json" not in body

    pages.submit("table.list tbody tr form button.danger")
    assert "Delete this backup?" in pages.find("h1").text and pages.find("ul.items code").text == name
    pages.check("backups-delete-confirm")
    pages.open("/console/backups")
    assert len(rows(driver)) == 1, "nothing deleted before the confirmation"
    pages.submit("table.list tbody tr form button.danger")
    pages.submit("form.actions button.danger")
    assert "deleted" in pages.find("p.notice").text
    assert rows(driver) == [] and "No backups yet." in pages.text()
