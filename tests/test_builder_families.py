"""Table families (issue 19): tables of one shape become one family Term with the member list."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evoonto.builder import build, write_workspace
from evoonto.builder.families import find_families
from evoonto.tools.toolkit import OntologyTools


def test_find_families_groups_tables_of_one_shape_by_a_digit_run():
    shapes = {f"GHCN_D_GHCND_{y}": ("id", "date", "value") for y in (1990, 1763, 2024, 2001)}
    shapes.update({"sales_2021": ("a",), "sales_2022": ("a",), "sales_2023": ("a", "b"),  # 2 of one shape
                   "station": ("id", "name"), "q1_2020": ("x",), "q2_2020": ("x",), "q3_2020": ("x",)})
    families = find_families(shapes, shapes.__getitem__)
    assert [(f.pattern, f.members, f.keys) for f in families] == [
        ("GHCN_D_GHCND_{n}", ("GHCN_D_GHCND_1763", "GHCN_D_GHCND_1990", "GHCN_D_GHCND_2001", "GHCN_D_GHCND_2024"),
         ("1763", "1990", "2001", "2024")),
        ("q{n}_2020", ("q1_2020", "q2_2020", "q3_2020"), ("1", "2", "3")),
    ]
    assert families[0].representative == "GHCN_D_GHCND_1763"
    assert "4 tables" in families[0].describe() and "1990" in families[0].describe()
    assert find_families(["a_1", "a_2"], lambda name: ()) == []


def test_two_shapes_of_one_pattern_are_two_families_with_two_terms(tmp_path: Path):
    db = tmp_path / "gsod.sqlite"
    con = sqlite3.connect(db)
    for year in range(2000, 2010):
        extra = ", flag TEXT" if year >= 2006 else ""
        con.execute(f"CREATE TABLE gsod{year} (stn TEXT, temp REAL{extra})")
        con.execute(f"INSERT INTO gsod{year} (stn, temp) VALUES ('A', 1.5)")
    con.commit()
    con.close()
    tools = OntologyTools(write_workspace(build([str(db)]), tmp_path / "ws").ontology)
    labels = sorted(d.label for d in tools.built.index.documents if d.kind == "term" and "table family" in d.label)
    assert labels == ["Gsod (table family 2000–2005)", "Gsod (table family 2006–2009)"], labels


def _make(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE station (station_id TEXT PRIMARY KEY, station_name TEXT)")
    con.executemany("INSERT INTO station VALUES (?, ?)", [("S1", "Harbour"), ("S2", "Hill")])
    for year in range(1985, 1995):
        con.execute(f"CREATE TABLE daily_weather_{year} (station_id TEXT, obs_date TEXT, rainfall REAL)")
        con.executemany(f"INSERT INTO daily_weather_{year} VALUES (?, ?, ?)",
                        [("S1", f"{year}-01-0{d}", d * 1.5) for d in range(1, 5)])
    con.commit()
    con.close()
    return path


def test_build_makes_one_family_term_and_browse_finds_it_by_member(tmp_path: Path):
    db = _make(tmp_path / "weather.sqlite")
    result = build([str(db)], ["What was the rainfall at the Harbour station in 1990?"])
    ws = write_workspace(result, tmp_path / "ws")
    tools = OntologyTools(ws.ontology)
    docs = tools.built.index.documents
    terms = [d for d in docs if d.kind == "term"]
    family = [d for d in terms if "table family" in d.label]
    assert len(family) == 1, [d.label for d in terms]
    assert "daily_weather_1990" in family[0].fields["hiddenLabel"]
    # member tables other than the representative get no Terms of their own
    located = {loc.split(".")[0] for d in terms for loc in d.locations}
    assert "daily_weather_1985" in located and not located & {f"daily_weather_{y}" for y in range(1986, 1995)}
    hits = tools.browse("daily weather 1990", kind="term", n=5, format="verbose")
    assert hits and "table family" in hits[0]["label"], hits
    assert "daily_weather_{n}" in tools.resolve([hits[0]["id"]])["records"][0].get("definition", "") or any(
        "daily_weather_{n}" in str(v) for v in tools.resolve([hits[0]["id"]])["records"][0].values())
