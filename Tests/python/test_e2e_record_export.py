"""A record export as CSV reads back, with Python's csv module, as exactly the records saved:
values holding line breaks, quotes or commas followed by combining marks stay in their cell,
and no line of any cell starts a spreadsheet formula (security review N5)."""

from __future__ import annotations

import csv
import io

import requests

from cumulus_deployment import Deployment

#: The review's proof: CRLF inside a value started new rows, whose first cell was a formula.
ROWS_AND_FORMULAS = "harmless\r\n=2+5\r\n@SUM(1+9)*cmd|' /C calc'!A0"
#: A comma carrying a combining mark split the value into an extra column.
EXTRA_COLUMN = "a,\u0301extra column"
#: Quotes with combining marks, a bare LF and a tab-led line.
QUOTES = "\"\u0301quoted\"\u0301\n\t+cmd\n-1+2\r-3"

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def is_formula(line: str) -> bool:
    """Whether a spreadsheet would run `line` as a formula (a plain number such as -3 is not one)."""
    if not line.startswith(FORMULA_STARTS):
        return False
    try:
        float(line)
        return False
    except ValueError:
        return True


def lines_of(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def export_csv(deployment: Deployment, batch: str) -> str:
    deployment.server.cli("operators", "add", "exporter-" + batch, stdin="an exporting operator passphrase\n")
    token = deployment.server.cli("operators", "token", "exporter-" + batch, "--name", "export")
    query = {"query": {"recordType": "Item", "filterBy": [{"fieldName": "batch", "comparator": "EQUALS", "fieldValue": {"value": batch}}]}}
    answer = requests.post(
        f"{deployment.base_url}/admin/v1/containers/{deployment.container}/development/public/records/export?format=csv",
        json=query, headers={"Authorization": "Bearer " + token}, timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Type"].startswith("text/csv")
    return answer.content.decode("utf-8")


def test_a_csv_export_keeps_each_value_in_its_cell_and_defuses_every_line(deployment: Deployment, batch: str) -> None:
    values = {"rows": ROWS_AND_FORMULAS, "column": EXTRA_COLUMN, "quotes": QUOTES}
    operations = [
        {"operationType": "create", "record": {"recordType": "Item", "recordName": f"{name}-{batch}", "fields": {
            "batch": {"value": batch}, "title": {"value": value}, "body": {"value": value}}}}
        for name, value in values.items()
    ]
    saved = deployment.user().post("public", "records/modify", {"operations": operations})
    assert saved.status_code == 200, saved.text
    assert all("serverErrorCode" not in record for record in saved.json()["records"]), saved.text

    rows = list(csv.reader(io.StringIO(export_csv(deployment, batch), newline="")))
    header, records = rows[0], rows[1:]
    assert len(records) == len(values), records
    assert all(len(row) == len(header) for row in records), [len(row) for row in rows]
    by_name = {row[header.index("recordName")]: row for row in records}
    assert set(by_name) == {f"{name}-{batch}" for name in values}

    for name, value in values.items():
        row = by_name[f"{name}-{batch}"]
        for column in ("title", "body"):
            cell = row[header.index(column)]
            # Every line that would start a formula is opened with `'`, and nothing else changed.
            assert lines_of(cell) == ["'" + line if is_formula(line) else line for line in lines_of(value)], (column, cell)
    for row in rows:
        for cell in row:
            assert not [line for line in lines_of(cell) if is_formula(line)], (row, cell)
