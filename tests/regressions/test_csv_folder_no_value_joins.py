"""Issue 17 item 6: a CSV folder got no value-based joins (InsightBench ``flag-14.assigned_to`` lies in
``flag-14-sysuser.name`` at 100%, yet no join was found: only name-suggested pairs were probed, and
``name`` is too generic a name).

Sources that declare no key now also get value-suggested candidates: a text column that repeats
its values, whose distinct values lie in a unique text column of another table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evoonto.iris import IriFactory
from evoonto.sources import discover_joins, open_source

IRIS = IriFactory("https://example.org/evoonto/test/")


def _write(folder: Path, name: str, lines: list[str]) -> None:
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    data = tmp_path / "csvs"
    data.mkdir()
    people = ["Ada Byron", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"]
    _write(data, "tickets.csv", ["ticket,owner,opened_by,status"] + [
        f"T{i},{people[i % 4]},{people[(i + 1) % 3]},{'open' if i % 2 else 'closed'}" for i in range(40)])
    _write(data, "staff.csv", ["login,full_name,team"] + [
        f"u{i},{p},{'ops' if i % 2 else 'dev'}" for i, p in enumerate(people)])
    # a copy of the staff table (same columns) must not be joined to it
    _write(data, "staff-backup.csv", ["login,full_name,team"] + [
        f"u{i},{p},{'ops' if i % 2 else 'dev'}" for i, p in enumerate(people)])
    return data


def test_value_join_is_found_on_a_csv_folder(folder: Path):
    with open_source(folder) as src:
        joins = discover_joins(src, IRIS)
    found = {(j.child, *j.child_columns, j.parent, *j.parent_columns): j for j in joins}
    owner = found.get(("tickets", "owner", "staff", "full_name")) or found.get(
        ("tickets", "owner", "staff-backup", "full_name"))
    assert owner is not None, sorted(found)
    assert owner.inclusion == 1.0 and owner.parent_unique and owner.evidence is not None
    assert any(k[:2] == ("tickets", "opened_by") for k in found)
    # status values are not a subset of any unique column; the copies are not joined to each other
    assert not any(k[:2] == ("tickets", "status") for k in found)
    assert not any({k[0], k[2]} == {"staff", "staff-backup"} for k in found)


def test_insightbench_flag_14_assigned_to_joins_its_sysuser_table(tmp_path: Path, shared_data: Path):
    csvs = shared_data / "insightbench" / "notebooks" / "csvs"
    if not (csvs / "flag-14.csv").is_file():
        pytest.skip("InsightBench CSV files not present")
    data = tmp_path / "flag14"
    data.mkdir()
    for name in ("flag-14.csv", "flag-14-sysuser.csv", "flag-15-sysuser.csv"):
        (data / name).write_bytes((csvs / name).read_bytes())
    with open_source(data) as src:
        joins = discover_joins(src, IRIS)
    paths = {j.condition(): j for j in joins}
    join = paths.get("flag-14.assigned_to = flag-14-sysuser.name")
    assert join is not None, sorted(paths)
    assert join.inclusion == 1.0
