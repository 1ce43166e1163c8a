"""A foreign key the source no longer declares kept judging SQL after ``evoonto drift``.

The catalog recorded each declared key only as its columns' ``evo:references``, which drift never
compared with the source: after ``ALTER TABLE`` dropped a key, the join graph still offered it as a
declared join (rank 0, no Evidence needed) and ``check_sql`` kept judging joins by it. Drift now
compares every declared key of the catalog (``csvw:ForeignKey``) with the keys the source declares,
reports a ``dropped_key`` finding, and marks the key's record stale (``prov:invalidatedAtTime``),
after which the key is no declared join.
"""

from __future__ import annotations

from fixtures.keys_support import flights_db, redeclare_flight

from evoonto.cli import main
from evoonto.drift import run_drift
from evoonto.tools.joinpaths import JoinGraph
from evoonto.workspace import Workspace


def _declared(ws) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    graph = JoinGraph.from_ontology(Workspace.open(ws).ontology)
    return sorted((e.left_columns, e.right_columns) for e in graph.edges if e.origin == "foreign_key")


def test_drift_marks_a_dropped_foreign_key_stale(tmp_path):
    db, ws = flights_db(tmp_path / "flights.sqlite"), tmp_path / "ws"
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    assert _declared(ws) == [(("dest_code", "dest_country"), ("code", "country")),
                             (("origin_code", "origin_country"), ("code", "country"))]
    redeclare_flight(db, origin_key=False)
    report = run_drift(ws)
    dropped = [f for f in report.findings if f.kind == "dropped_key"]
    assert len(dropped) == 1 and dropped[0].invalidates, report.findings
    assert "origin_code, origin_country" in dropped[0].detail and "no longer declared" in dropped[0].detail
    assert report.version is not None  # the marking was committed
    assert _declared(ws) == [(("dest_code", "dest_country"), ("code", "country"))]
    # the next check finds the key already marked and marks nothing new
    again = run_drift(ws)
    assert not [f for f in again.findings if f.kind == "dropped_key"] and not again.stale, again.findings


def test_drift_finds_no_dropped_key_when_keys_are_unchanged(tmp_path):
    db, ws = flights_db(tmp_path / "flights.sqlite"), tmp_path / "ws"
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    report = run_drift(ws, mark=False)
    assert not [f for f in report.findings if f.kind == "dropped_key"], report.findings


def test_stale_key_is_no_key_role_and_a_restored_key_is_reported(tmp_path):
    from evoonto.catalog import read_catalog

    db, ws = flights_db(tmp_path / "flights.sqlite"), tmp_path / "ws"
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    redeclare_flight(db, origin_key=False)
    run_drift(ws)
    flight = read_catalog(Workspace.open(ws).ontology).sources[0].table("flight")
    # the stale key's columns no longer reference the airport (check_sql's key roles read them)
    assert flight.column("origin_code").references == () and flight.column("origin_country").references == ()
    assert flight.column("dest_code").references == (("airport", "code"),)
    redeclare_flight(db, origin_key=True)
    report = run_drift(ws, mark=False)
    restored = [f for f in report.findings if f.kind == "restored_key"]
    assert len(restored) == 1 and not restored[0].invalidates and "declared again" in restored[0].detail


def test_catalog_without_key_records_says_keys_are_not_compared(tmp_path):
    """A workspace whose catalog has no csvw:ForeignKey record (built before keys were recorded)."""
    from evoonto.namespaces import CSVW

    db, ws = flights_db(tmp_path / "flights.sqlite"), tmp_path / "ws"
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    space = Workspace.open(ws)
    onto = space.ontology
    catalog = onto.graph("catalog")
    for fk in list(catalog.subjects(None, CSVW.ForeignKey)):
        catalog.remove((fk, None, None))
        catalog.remove((None, None, fk))
    from evoonto.drift import check_drift
    from evoonto.ontology import Ontology
    from evoonto.sources import open_source

    graphs = {name: onto.graph(name) for name in ("vocab", "shapes", "content", "tools", "history")}
    older = Ontology.from_graphs({**graphs, "catalog": catalog})
    redeclare_flight(db, origin_key=False)
    with open_source(db, source_id="flights") as src:
        report = check_drift(older, {"flights": src})
    assert not [f for f in report.findings if f.kind == "dropped_key"]
    assert any("keys are not compared" in note for note in report.notes), report.notes
