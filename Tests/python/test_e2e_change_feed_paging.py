"""A zone's change feed followed page by page over HTTP, as CloudKit JS follows it: 1.2.0 with
`records/changes`, 2.6.1 with `changes/zone` and every option inside the zone's dictionary.
Each record changed after the token comes once across the pages, at its last change, and the
copy the client builds from the pages is the server's."""

from __future__ import annotations

from typing import Any, Optional

import pytest

from cloudkit_client import CloudKitClient
from cumulus_deployment import Deployment


def page(client: CloudKitClient, endpoint: str, zone: dict[str, Any], token: Optional[str], limit: int) -> dict[str, Any]:
    """One page of the zone's feed, as the library asks for it."""
    options: dict[str, Any] = {"resultsLimit": limit, "numbersAsStrings": False, "reverse": False}
    if token is not None:
        options["syncToken"] = token
    if endpoint == "records/changes":
        response = client.post("private", endpoint, {"zoneID": zone, **options})
        assert response.status_code == 200, response.text
        return response.json()
    response = client.post("private", endpoint, {"zones": [{"zoneID": zone, **options}]})
    assert response.status_code == 200, response.text
    (answer,) = response.json()["zones"]
    return answer


def follow(
    client: CloudKitClient, endpoint: str, zone: dict[str, Any], token: Optional[str], limit: int, copy: dict[str, str]
) -> tuple[list[list[str]], str]:
    """Follows the feed from `token` to its end, applying each page to `copy` as it comes."""
    pages: list[list[str]] = []
    while True:
        answer = page(client, endpoint, zone, token, limit)
        entries = []
        for record in answer["records"]:
            if record.get("deleted"):
                entries.append("deleted " + record["recordName"])
                copy.pop(record["recordName"], None)
            else:
                entries.append(record["recordName"])
                copy[record["recordName"]] = record["fields"]["title"]["value"]
        pages.append(entries)
        token = answer["syncToken"]
        if not answer["moreComing"]:
            return pages, token


def write(client: CloudKitClient, zone: dict[str, Any], kind: str, name: str, title: str = "") -> None:
    record: dict[str, Any] = {"recordName": name}
    if kind != "forceDelete":
        record.update(recordType="Item", fields={"title": {"value": title}})
    answer = client.modify("private", [{"operationType": kind, "record": record}], zone_id=zone)
    assert "serverErrorCode" not in answer["records"][0], answer


@pytest.mark.parametrize("endpoint", ["records/changes", "changes/zone"])
def test_a_record_changed_after_others_comes_once_across_the_pages(deployment: Deployment, batch: str, endpoint: str) -> None:
    client = deployment.user()
    zone = {"zoneName": f"Paging-{batch[:12]}"}
    created = client.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": zone}}]})
    assert created.status_code == 200, created.text
    write(client, zone, "create", "kept", "kept 1")
    write(client, zone, "create", "older", "before the token")
    start = page(client, endpoint, zone, None, 200)["syncToken"]
    held = {"kept": "kept 1", "older": "before the token"}
    # After the token: a, b, c, a again, d, b again; a record created and deleted; one deleted.
    write(client, zone, "create", "a", "a 1")
    write(client, zone, "create", "b", "b 1")
    write(client, zone, "create", "c", "c 1")
    write(client, zone, "forceUpdate", "a", "a 2")
    write(client, zone, "create", "d", "d 1")
    write(client, zone, "forceUpdate", "b", "b 2")
    write(client, zone, "create", "brief", "brief")
    write(client, zone, "forceDelete", "brief")
    write(client, zone, "forceDelete", "older")

    server = {
        record["recordName"]: record["fields"]["title"]["value"]
        for record in client.query("private", {"recordType": "Item"}, zone_id=zone, results_limit=200)["records"]
    }
    assert server == {"kept": "kept 1", "a": "a 2", "b": "b 2", "c": "c 1", "d": "d 1"}
    for limit in (1, 2):
        copy = dict(held)
        pages, token = follow(client, endpoint, zone, start, limit, copy)
        entries = [entry for entry in pages for entry in entry]
        assert entries == ["c", "a", "d", "b", "deleted brief", "deleted older"], (limit, pages)
        assert len(pages) == (9 + limit - 1) // limit, "each page covers resultsLimit changes of the log"
        assert copy == server
        assert page(client, endpoint, zone, token, limit)["records"] == []

        copy = {}
        pages, _ = follow(client, endpoint, zone, None, limit, copy)
        entries = [entry for entry in pages for entry in entry]
        assert entries == ["kept", "c", "a", "d", "b", "deleted brief", "deleted older"], (limit, pages)
        assert copy == server
