"""Replays the statements of `records/modify` creates on a copy of an environment file, with
Python's sqlite3 (the system's libsqlite3, as the server uses), so that callgrind can count what
each statement costs SQLite. Run by bench/sqlite-create.sh; see there.

Usage: sqlite_create.py TEMPLATE WORKFILE VARIANT GROUP COUNT

VARIANT is `as-built`, or names joined by `+` of what to leave out or add:
  no-zone-log   without moving the zone in the database's zone log
  no-counts     without the per-type and per-zone counts
  no-indexes    without the record type's declared indexes (records_t1_*)
  savepoints    each create in a savepoint of its own, as a group's jobs used to run
GROUP creates share each transaction, COUNT creates in all.
"""
import os
import shutil
import sqlite3
import sys

template, path, variant, group, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
options = set(variant.split("+")) - {"as-built"}
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(path + suffix):
        os.remove(path + suffix)
shutil.copy(template, path)
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = NORMAL")
if "no-indexes" in options:
    for (name,) in db.execute("SELECT name FROM sqlite_schema WHERE type = 'index' AND name GLOB 'records_t1_*'").fetchall():
        db.execute(f'DROP INDEX "{name}"')
zone = db.execute("SELECT zone FROM zones WHERE scope = 0 AND name = '_defaultZone'").fetchone()
if zone is None:
    db.execute("INSERT INTO zones(scope, owner, name, created) VALUES (0, '_defaultOwner', '_defaultZone', 0)")
    zone = db.execute("SELECT zone FROM zones WHERE scope = 0 AND name = '_defaultZone'").fetchone()
zone = zone[0]

INSERT_RECORD = (
    "INSERT INTO records(zone, name, type, tag, parent, created, created_by, created_device, modified, modified_by, "
    "modified_device, size, payload, p1, p2) VALUES (?, ?, 1, ?, NULL, ?, ?, '', ?, ?, '', 400, ?, ?, 42)"
)
INSERT_CHANGE = "INSERT INTO changes(zone, seq, name, type, kind, creator, time, tree) VALUES (?, ?, ?, 1, 0, ?, ?, NULL)"
TYPE_COUNT = (
    "INSERT INTO type_stats(type, zone, records) VALUES (1, ?, ?) "
    "ON CONFLICT(type, zone) DO UPDATE SET records = records + excluded.records"
)
ZONE_COUNT = (
    "INSERT INTO zone_stats(zone, records, bytes) VALUES (?, ?, ?) "
    "ON CONFLICT(zone) DO UPDATE SET records = records + excluded.records, bytes = bytes + excluded.bytes"
)
ZONE_LOG = (
    "INSERT INTO zone_log(scope, owner, name, seq, deleted, time) VALUES (?1, ?2, ?3, "
    "max(coalesce((SELECT max(seq) FROM zone_log WHERE scope = ?1 AND owner = ?2), 0), "
    "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'zone_log_horizon:' || ?1 || ':' || ?2), 0)) + 1, ?4, ?5) "
    "ON CONFLICT(scope, owner, name) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, time = excluded.time"
)
VERSIONS = (
    "SELECT CAST(value AS INTEGER), (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'zones_generation') "
    "FROM meta WHERE key = 'schema_version'"
)
user = "_0123456789abcdef0123456789abcdef"
payload = bytes(range(220))
sequence = db.execute("SELECT coalesce(max(seq), 0) FROM changes WHERE zone = ?", (zone,)).fetchone()[0]
# Names after those the file holds, time-ordered as the server makes them.
first = db.execute("SELECT count(*) FROM records").fetchone()[0]
made = 0
while made < count:
    db.execute("BEGIN IMMEDIATE")
    db.execute("PRAGMA data_version").fetchall()
    db.execute(VERSIONS).fetchall()
    for _ in range(group):
        if "savepoints" in options:
            db.execute("SAVEPOINT job")
        name = "019ab3c4-%04x-7a8b-9c0d-%012x" % ((first + made) % 65536, first + made)
        now = 1_790_000_000_000 + made
        sequence += 1
        db.execute(INSERT_RECORD, (zone, name, "t%d" % made, now, user, now, user, payload, "A moderately long note title"))
        db.execute(INSERT_CHANGE, (zone, sequence, name, user, now))
        if "savepoints" in options:
            db.execute("RELEASE job")
        made += 1
    if "no-counts" not in options:
        db.execute(TYPE_COUNT, (zone, group))
        db.execute(ZONE_COUNT, (zone, group, 400 * group))
    if "no-zone-log" not in options:
        db.execute(ZONE_LOG, (0, "_defaultOwner", "_defaultZone", 0, 1_790_000_000_000 + made))
    db.execute("COMMIT")
