"""Sign-in as CloudKit Web Services clients use it, in a real (headless) browser."""

import re
import uuid
from urllib.parse import parse_qs, urlsplit, quote

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WEB_AUTH_TOKEN = re.compile(r"[A-Za-z0-9+/=_]{100,}")


def fill_and_submit(driver, name, password, keep_signed_in=False):
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "name"))
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(password)
    if keep_signed_in:
        driver.find_element(By.NAME, "keepSignedIn").click()
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


def sign_in_through_popup(driver, cumulus, app_site):
    """Opens sign-in from the app page, signs in in the popup, returns the message received."""
    sign_in = cumulus.sign_in_url("postMessageToken", origin=app_site.origin)
    # A fresh query each time: a change of the fragment alone would keep the old page and its messages.
    driver.get(f"{app_site.origin}/opener.html?run={uuid.uuid4().hex}#" + quote(sign_in, safe=""))
    opener = driver.current_window_handle
    driver.find_element(By.ID, "open").click()
    WebDriverWait(driver, 15).until(lambda d: len(d.window_handles) == 2)
    popup = next(handle for handle in driver.window_handles if handle != opener)
    driver.switch_to.window(popup)
    assert driver.current_url.startswith(cumulus.url + "/signin?")
    fill_and_submit(driver, cumulus.seed["user"], cumulus.seed["password"], keep_signed_in=True)
    # The sign-in page closes itself after posting the message.
    WebDriverWait(driver, 15).until(lambda d: len(d.window_handles) == 1)
    driver.switch_to.window(opener)
    received = WebDriverWait(driver, 15).until(lambda d: d.execute_script("return window.received.length ? window.received : null"))
    assert len(received) == 1
    return received[0]


def test_popup_sign_in_posts_both_keys_to_the_opener(driver, cumulus, app_site):
    message = sign_in_through_popup(driver, cumulus, app_site)
    assert message["origin"] == cumulus.url
    token = message["data"]["ckWebAuthToken"]
    assert message["data"]["ckSession"] == token
    assert WEB_AUTH_TOKEN.fullmatch(token)
    assert cumulus.accepts(token)

    # A second sign-in is a new session with its own token.
    second = sign_in_through_popup(driver, cumulus, app_site)["data"]["ckWebAuthToken"]
    assert second != token
    assert cumulus.accepts(second)
    assert not cumulus.accepts(token[:-8] + "AAAAAAA=")


def test_callback_receives_the_token_in_its_query(driver, cumulus, app_site):
    driver.get(cumulus.sign_in_url("callbackToken", origin=app_site.origin))
    fill_and_submit(driver, cumulus.seed["user"], cumulus.seed["password"])
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "done"))
    assert driver.current_url.startswith(f"{app_site.origin}/callback?state=xyz&ckWebAuthToken=")
    assert len(app_site.callbacks) == 1
    query = parse_qs(urlsplit(app_site.callbacks[0]).query)
    assert query["state"] == ["xyz"]
    token = query["ckWebAuthToken"][0]
    assert WEB_AUTH_TOKEN.fullmatch(token)
    assert cumulus.accepts(token)


def test_without_an_opener_the_page_shows_the_token(driver, cumulus, app_site):
    driver.get(cumulus.sign_in_url("postMessageToken", origin=app_site.origin))
    fill_and_submit(driver, cumulus.seed["user"], cumulus.seed["password"])
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "webAuthToken"))
    assert driver.find_element(By.TAG_NAME, "h1").text == "Signed in"
    field = driver.find_element(By.ID, "webAuthToken")
    assert field.get_attribute("readonly") is not None
    token = field.get_property("value")
    assert WEB_AUTH_TOKEN.fullmatch(token)
    assert cumulus.accepts(token)


def test_a_wrong_password_keeps_the_form_with_a_generic_message(driver, cumulus, app_site):
    driver.get(cumulus.sign_in_url("postMessageToken", origin=app_site.origin))
    fill_and_submit(driver, cumulus.seed["user"], "not the password")
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".alert"))
    assert driver.find_element(By.CSS_SELECTOR, ".alert").text == "Incorrect name or password"
    assert driver.find_element(By.ID, "name").get_property("value") == cumulus.seed["user"]
    assert driver.find_element(By.ID, "password").get_property("value") == ""


def test_a_disallowed_origin_gets_a_readable_refusal(driver, cumulus):
    driver.get(cumulus.sign_in_url("postMessageToken", origin="http://127.0.0.1:9"))
    assert driver.find_element(By.TAG_NAME, "h1").text == "Forbidden"
    assert "does not allow signing in from http://127.0.0.1:9" in driver.find_element(By.CSS_SELECTOR, ".lead").text
