"""The production schema guard, on the console review's data shape: after the deploy, development
moved on (a field `mood` of Note, a type Label) and production's app writes them anyway. Every page
of the container then says how many production calls were refused and for want of what, with the
latest request ids; one click opens Deploy pre-filled with exactly what those refusals need, and
after that deploy the same write succeeds. Pages are checked with axe-core and saved at
1280×800 and 390×844."""

import subprocess
import sys
from pathlib import Path

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
from cloudkit_client import CloudKitClient  # noqa: E402


def _production_client(review, tmp_path) -> CloudKitClient:
    private_pem = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"],
                                 capture_output=True, text=True, check=True).stdout
    public_pem = subprocess.run(["openssl", "ec", "-pubout"], input=private_pem, capture_output=True, text=True, check=True).stdout
    (tmp_path / "guard.pub.pem").write_text(public_pem)
    key_id = review.server.cli("keys", "add", "--container", review.container, "--environment", "production", "--public-key",
                               str(tmp_path / "guard.pub.pem"), "--name", "guard").strip().split()[-1]
    return CloudKitClient(review.server.url, review.container, "production", key_id=key_id, private_key_pem=private_pem)


def _write_mood(client: CloudKitClient, name: str):
    return client.post("public", "records/modify", {"operations": [{"operationType": "create", "record": {
        "recordName": name, "recordType": "Note", "fields": {"title": {"value": "from the app"}, "mood": {"value": "calm"}}}}]})


def test_a_production_write_on_an_undeployed_field_shows_the_guard_and_the_prefilled_deploy_lets_it_through(review, driver, tmp_path):
    production = _production_client(review, tmp_path)
    refused = []
    for index in range(2):
        response = _write_mood(production, f"guarded-{index}")
        assert response.status_code == 200 and response.json()["records"][0]["serverErrorCode"] == "BAD_REQUEST", response.text
        refused.append(response.headers["X-Apple-Request-UUID"])
    label = production.post("public", "records/modify", {"operations": [{"operationType": "create", "record": {
        "recordName": "label-prod", "recordType": "Label", "fields": {"text": {"value": "x"}}}}]})
    assert label.json()["records"][0]["serverErrorCode"] == "BAD_REQUEST", label.text

    pages = review.log_in(driver)
    pages.open(review.console("public/records"))
    banner = pages.find(".bar .schema-guard")
    assert "3 production calls refused: field mood of type Note not deployed, and 1 more" in banner.text, banner.text
    for request_id in refused:
        assert request_id in banner.text, banner.text
    pages.check("schema-guard-banner")

    pages.open(banner.find_element(By.LINK_TEXT, "Deploy exactly what they need").get_attribute("href").replace(review.server.url, ""))
    guard = pages.find("#schema-guard").text
    assert "field mood of type Note not deployed" in guard and "record type Label not deployed" in guard, guard
    assert "field:Note:mood" in pages.find("#filling").text
    changes = [row.find_element(By.CSS_SELECTOR, "td[data-label=Change]").text
               for row in driver.find_elements(By.CSS_SELECTOR, "table.list tbody tr")]
    assert changes[0] == "add field Note.mood STRING", changes
    assert any(change.startswith("add record type Label") for change in changes), changes
    # Exactly those: nothing else development has that production lacks.
    assert all("Note.mood" in change or "Label" in change for change in changes), changes
    pages.check("schema-guard-deploy")

    pages.submit("form.actions button[type=submit]")
    assert "Deployed" in pages.text()
    after = _write_mood(production, "guarded-after")
    assert after.status_code == 200 and "serverErrorCode" not in after.json()["records"][0], after.text
    pages.open(review.console("public/records"))
    assert not driver.find_elements(By.CSS_SELECTOR, ".bar .schema-guard"), "the gaps are filled: no warning"
