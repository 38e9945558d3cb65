"""Two `cumulus serve` processes on one PostgreSQL database, both with `--backup-schedule 1m`
(the shortest schedule) into one directory: the schedule yields one backup a period, not one
per server — the processes elect which takes them with a session-level advisory lock, held on
a connection each names `cumulus-backups <pid>` — and once the elected one is killed with
SIGKILL, the other takes the next backup."""

from __future__ import annotations

from pathlib import Path

from backup_writers import wait_for
from cumulus_server import CumulusServer
from postgres_cluster import fresh_database, psql_rows

#: Waits for what a schedule a minute apart brings about: five minutes at least.
SCHEDULE_POLLS = 30000


def election_sessions(url: str) -> set[int]:
    """The processes (by pid) that took part in the election so far: one session each."""
    names = psql_rows(url, "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'cumulus-backups %'")
    return {int(name.split(" ")[1]) for name in names}


def elected(url: str) -> set[int]:
    """The processes (by pid) holding the election's lock."""
    names = psql_rows(
        url,
        """SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'cumulus-backups %'""",
    )
    return {int(name.split(" ")[1]) for name in names}


def backups(directory: Path) -> list[str]:
    """The complete backups in `directory` (a backup being written has a `.partial-` name)."""
    return sorted(entry.name for entry in directory.iterdir() if entry.name.endswith(".dump")) if directory.exists() else []


def test_two_servers_on_one_database_take_one_scheduled_backup_a_period_and_the_survivor_takes_over(
    cumulus_binary: Path, tmp_path: Path
) -> None:
    database = fresh_database()
    shelf = tmp_path / "backups"
    environment = {"CUMULUS_BACKUP_SCHEDULE": "1m", "CUMULUS_BACKUP_TO": str(shelf), "CUMULUS_BACKUP_KEEP": "100"}
    first = CumulusServer(cumulus_binary, tmp_path / "first", database_url=database, environment=environment)
    second = CumulusServer(cumulus_binary, tmp_path / "second", database_url=database, environment=environment)
    first.start()
    try:
        second.start()
        servers = {first.process.pid: first, second.process.pid: second}

        # The first period: both servers' schedules came due (each asked the election), one backed up.
        wait_for(lambda: election_sessions(database) == set(servers), "both servers' schedules came due", polls=SCHEDULE_POLLS)
        wait_for(lambda: len(backups(shelf)) >= 1, "the elected server backed up", polls=SCHEDULE_POLLS)
        holders = elected(database)
        assert len(holders) == 1 and holders <= set(servers), holders
        assert len(backups(shelf)) == 1, backups(shelf)

        # The elected server dies; the other's next scheduled time takes the next backup.
        (holder,) = holders
        survivor = next(pid for pid in servers if pid != holder)
        servers[holder].process.kill()
        servers[holder].process.wait()
        wait_for(lambda: len(backups(shelf)) >= 2, "the surviving server backed up", polls=SCHEDULE_POLLS)
        assert elected(database) == {survivor}
        assert len(backups(shelf)) == 2, backups(shelf)
    finally:
        second.stop()
        first.stop()
