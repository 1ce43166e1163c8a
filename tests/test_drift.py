"""``evoonto drift`` (evoonto.drift): re-run stored probe queries, invalidate what changed (issue 14.4).

The drift test of the issue: copy a database, change values, drop a column, rename a table; drift
reports each change against the Evidence it invalidates; the unchanged parts stay valid.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from rdflib import URIRef
from rdflib.namespace import PROV

from evoonto.cli import main
from evoonto.workspace import Workspace

DB = Path(__file__).resolve().parents[1] / "evoonto" / "data" / "concert_singer" / "concert_singer.sqlite"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A workspace built from a copy of concert_singer (source id ``cs``), and that copy."""
    root = tmp_path_factory.mktemp("drift")
    db = root / "cs.sqlite"
    shutil.copy(DB, db)
    ws = root / "ws"
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    return ws, db


@pytest.fixture()
def ws(built, tmp_path) -> Path:
    copy = tmp_path / "ws"
    shutil.copytree(built[0], copy)
    return copy


@pytest.fixture()
def drifted_db(built, tmp_path) -> Path:
    """The copy with changed values, a dropped column and a renamed table."""
    db = tmp_path / "drifted.sqlite"
    shutil.copy(built[1], db)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE singer SET Country = 'Atlantis' WHERE Country = 'Netherlands'")
        con.execute("ALTER TABLE singer DROP COLUMN Song_release_year")
        con.execute("ALTER TABLE stadium RENAME TO venue")
    return db


def _run(capsys, *args: str) -> dict:
    assert main(["drift", "--json", "--no-progress", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _query_of(ws: Workspace, evidence: str) -> str:
    rows = ws.ontology.query(f"SELECT ?q WHERE {{ <{evidence}> prov:wasGeneratedBy/evo:query ?q }}")
    return str(rows[0]["q"])


def _evidence_reading(ws: Workspace, table: str, column: str) -> set[str]:
    """Evidence whose recorded probe query reads ``table`` and names ``column``."""
    rows = ws.ontology.query("SELECT ?e ?q WHERE { ?e a evo:Evidence ; prov:wasGeneratedBy/evo:query ?q }")
    return {str(r["e"]) for r in rows if f'"{table}"' in str(r["q"]) and f'"{column}"' in str(r["q"])}


def test_unchanged_database_has_no_drift(ws, built, capsys):
    report = _run(capsys, "-w", str(ws), "--source", f"cs={built[1]}")
    assert report["drifted"] is False and report["stale"] == {} and report["findings"] == []
    assert report["checked"] > 20 and report["unchecked"] == 0
    assert Workspace.open(ws).version == 0  # nothing to mark: no patch


def test_each_change_is_reported_against_the_evidence_it_invalidates(ws, drifted_db, capsys):
    before = Workspace.open(ws)
    base = before.iris.base
    report = _run(capsys, "-w", str(ws), "--source", f"cs={drifted_db}")
    by_kind: dict[str, list[dict]] = {}
    for finding in report["findings"]:
        by_kind.setdefault(finding["kind"], []).append(finding)

    # dropped column: the Evidence whose probe read it, and the column's Mapping
    [dropped] = by_kind["missing_column"]
    assert (dropped["table"], dropped["column"]) == ("singer", "Song_release_year")
    assert set(dropped["evidence"]) == _evidence_reading(before, "singer", "Song_release_year") != set()
    assert f"{base}mapping/cs/singer/Song_release_year" in dropped["affected"]

    # renamed table: the old name is missing (all its column Evidence and Mappings), the new one is
    # reported as a possible rename and invalidates nothing
    [gone] = by_kind["missing_table"]
    assert gone["table"] == "stadium"
    for column in ("Stadium_ID", "Capacity", "Location"):
        assert _evidence_reading(before, "stadium", column) <= set(gone["evidence"])
        assert f"{base}mapping/cs/stadium/{column}" in gone["affected"]
    [new] = by_kind["new_table"]
    assert new["table"] == "venue" and "renamed from stadium" in new["detail"] and new["evidence"] == []

    # changed values: the Country profile Evidence (value set and range), with its Mapping
    country = [f for f in by_kind["changed"] if "values:" in f["detail"]]
    assert len(country) == 1 and country[0]["column"] == "Country"
    assert "+'Atlantis'" in country[0]["detail"] and "-'Netherlands'" in country[0]["detail"]
    assert f"{base}mapping/cs/singer/Country" in country[0]["affected"]

    # the marking: one Content patch, every reported record invalidated with PROV
    after = Workspace.open(ws)
    assert report["version"] == after.version == before.version + 1
    content = after.ontology.graph("content")
    reported = {i for f in report["findings"] for i in f["evidence"] + f["affected"]}
    assert reported == set(report["stale"])
    for iri in reported:
        assert (URIRef(iri), PROV.wasInvalidatedBy, None) in content
        assert (URIRef(iri), PROV.invalidatedAtTime, None) in content

    # the unchanged parts stay valid: Evidence of untouched columns, their Mappings
    untouched = (_evidence_reading(before, "singer", "Age") | _evidence_reading(before, "concert", "Theme"))
    assert untouched and not untouched & reported
    for iri in untouched | {f"{base}mapping/cs/singer/Age", f"{base}mapping/cs/concert/Theme"}:
        assert (URIRef(iri), PROV.wasInvalidatedBy, None) not in content


@pytest.mark.slow
def test_resolve_shows_stale_records_and_rollback_undoes(ws, drifted_db, capsys):
    _run(capsys, "-w", str(ws), "--source", f"cs={drifted_db}")
    assert main(["resolve", "-w", str(ws), "mapping/cs/singer/Country", "mapping/cs/singer/Age"]) == 0
    records = {r["id"]: r for r in json.loads(capsys.readouterr().out)["records"]}
    status = records["mapping/cs/singer/Country"]["status"]
    assert status.startswith("stale since ") and "Atlantis" in status
    assert "status" not in records["mapping/cs/singer/Age"]
    assert "wasInvalidatedBy" not in records["mapping/cs/singer/Country"]

    # a second check marks nothing new (the records are already stale): no new version
    again = _run(capsys, "-w", str(ws), "--source", f"cs={drifted_db}")
    assert again["stale"] == {} and again["already_stale"] > 0 and again["version"] is None
    assert Workspace.open(ws).version == 1

    # the marking is an ordinary patch: rollback removes it
    assert main(["rollback", "-w", str(ws), "0"]) == 0
    content = Workspace.open(ws).ontology.graph("content")
    assert not list(content.subjects(PROV.wasInvalidatedBy, None))


def test_dry_run_and_text_report(ws, drifted_db, capsys):
    assert main(["drift", "-w", str(ws), "--source", f"cs={drifted_db}", "--dry-run", "--no-progress",
                 "--exit-code"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("drift: ") and "STALE missing_column" in out and "evidence evidence/" in out
    assert "mapping/cs/singer/Song_release_year" in out
    assert Workspace.open(ws).version == 0


def test_errors_are_one_line(ws, tmp_path, capsys):
    assert main(["drift", "-w", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.startswith("evoonto: error:")
    assert main(["drift", "-w", str(ws), "--row-tolerance", "-1"]) == 2
    assert "--row-tolerance" in capsys.readouterr().err


def test_row_tolerance(ws, built, tmp_path, capsys):
    grown = tmp_path / "grown.sqlite"
    shutil.copy(built[1], grown)
    with sqlite3.connect(grown) as con:  # 6 -> 7 singers, all other columns' values unchanged
        con.execute("INSERT INTO singer SELECT 99, Name, Country, Song_Name, Song_release_year, Age, Is_male "
                    "FROM singer WHERE Singer_ID = 1")
    strict = _run(capsys, "-w", str(ws), "--source", f"cs={grown}", "--dry-run")
    assert any("rows: 6 -> 7" in f["detail"] for f in strict["findings"])
    tolerant = _run(capsys, "-w", str(ws), "--source", f"cs={grown}", "--dry-run", "--row-tolerance", "0.5")
    assert not any("rows:" in f["detail"] for f in tolerant["findings"])


def test_serve_check_drift_marks_before_serving(ws, drifted_db, capsys, monkeypatch):
    import evoonto.server

    served = []
    monkeypatch.setattr(evoonto.server, "serve", lambda path, **kw: served.append(Workspace.open(path).version))
    # the recorded source is the original copy; point it at the drifted one
    Workspace.open(ws).set_setting("sources", {"cs": str(drifted_db)})
    assert main(["serve", "-w", str(ws), "--check-drift"]) == 0
    captured = capsys.readouterr()
    assert served == [1] and "drift: " in captured.err and captured.out == ""


@pytest.mark.slow
def test_failed_task_that_used_a_stale_record_is_a_signature(ws, drifted_db, capsys):
    from evoonto.evolution.attribute import attribute
    from evoonto.evolution.diagnose import diagnose
    from evoonto.evolution.trajectories import Event, TaskTrajectory
    from evoonto.evolution.view import OntologyView

    _run(capsys, "-w", str(ws), "--source", f"cs={drifted_db}")
    opened = Workspace.open(ws)
    shown = {"records": [{"id": "mapping/cs/singer/Country", "status": "stale since ..."}]}
    failed = TaskTrajectory("q1", "Singers from the Netherlands?", "cs",
                            [Event("resolve", {"ids": ["mapping/cs/singer/Country"]}, result=shown)], passed=False)
    passed = TaskTrajectory("q2", "Singers from the Netherlands?", "cs",
                            [Event("resolve", {"ids": ["mapping/cs/singer/Country"]}, result=shown)], passed=True)
    fresh = TaskTrajectory("q3", "Average age?", "cs",
                           [Event("resolve", {"ids": ["mapping/cs/singer/Age"]},
                                  result={"records": [{"id": "mapping/cs/singer/Age"}]})], passed=False)
    sigs = diagnose([failed, passed, fresh], OntologyView(opened.ontology), kinds=("stale_evidence",))
    assert [(s.kind, s.key, s.tasks) for s in sigs] == [
        ("stale_evidence", f"{opened.iris.base}mapping/cs/singer/Country", ("q1",))]
    assert "Atlantis" in sigs[0].detail("note")
    assert attribute(sigs[0]).level == "content"


def test_serve_check_drift_without_sources_warns_and_serves(ws, tmp_path, capsys, monkeypatch):
    import evoonto.server

    served = []
    monkeypatch.setattr(evoonto.server, "serve", lambda path, **kw: served.append(path))
    Workspace.open(ws).set_setting("sources", {"cs": str(tmp_path / "gone.sqlite")})
    assert main(["serve", "-w", str(ws), "--check-drift"]) == 0
    err = capsys.readouterr().err
    assert served and "drift check not done" in err and "gone.sqlite" in err
