"""Facts an agent can stake an answer on (issue 28 must-hold): sampled Evidence, check_sql and drift
on a large table stored in date order, on PostgreSQL, SQLite and DuckDB.

The data is generated here (seeded, nothing from a benchmark): ``rides`` (``--rows`` rows, default
300,000, inserted in ``ride_date`` order over 2023; ``carrier`` has 150 values in blocks along the
dates, so the first rows hold only the first carriers; ``origin`` / ``dest`` reference
``stations``), ``stations`` (10,000 rows, a ``name`` with 10,000 distinct values, ``region``
referencing ``regions``, regions of unequal size) and ``regions`` (8 rows).

What drift cannot see: it compares what the probes recorded (counts, bounds, value sets, value
counts of columns read whole); a change that keeps all of them, such as swapping the foreign keys of
two groups of exactly the same size, or a one-row edit inside a sampled table that removes no
recorded value, is not reported.

For each backend the script builds a workspace (``evoonto build``) and prints:

1. **contradicted claims**: Evidence claims the full table contradicts, counted per Evidence, over
   the column Evidence of the workspace: a whole-table Evidence (``evo:wholeTable true``) must give
   the exact distinct count, minimum and maximum, and, when it lists every value, the exact
   vocabulary; a sampled one may only list values the table holds and a range within the table's.
   (target 0);
2. **Violations** of ``check_sql`` on 22 correct queries written for this schema (target 0);
3. **drift on the unchanged database**: invalidating changes (target 0); on PostgreSQL also after
   ``CLUSTER`` has moved every row of ``rides`` (so ``TABLESAMPLE`` would see other rows);
4. on PostgreSQL (``--changes``, default on): 10 scripted data changes, each applied to a fresh copy
   of the database (``CREATE DATABASE … TEMPLATE``), and whether drift reports it (a finding on the
   changed table).

PostgreSQL: ``--url postgresql://…`` uses a server you run (the script creates and drops databases
``facts_base`` and ``facts_change`` on it); without it a throw-away server is started as the tests do
(Debian's ``/usr/lib/postgresql/*/bin``). Needs ``pip install 'evoonto[postgres]'``.

Usage::

    python benchmarks/facts_bench.py                       # 300,000 rows, all three backends
    python benchmarks/facts_bench.py --rows 20000 --backends sqlite,duckdb
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the PostgreSQL launcher the tests use

REGIONS = [("N", "North"), ("S", "South"), ("E", "East"), ("W", "West"), ("C", "Centre"), ("NE", "North East"),
           ("NW", "North West"), ("SE", "South East")]
STATIONS = 10_000
CARRIERS = 150
STATUSES = ("completed", "completed", "completed", "late", "cancelled", "diverted")

#: Correct queries (PostgreSQL, SQLite and DuckDB alike), each answering a plain question.
QUERIES = [
    "SELECT COUNT(*) FROM rides WHERE dest = 'S00077' AND month = 7",
    "SELECT carrier, COUNT(*) FROM rides WHERE carrier = 'Carrier 149' GROUP BY carrier",
    "SELECT AVG(fare) FROM rides WHERE ride_date BETWEEN '2023-12-01' AND '2023-12-31'",
    "SELECT r.name, COUNT(*) FROM rides AS x JOIN stations AS s ON x.origin = s.code "
    "JOIN regions AS r ON s.region = r.code GROUP BY r.name",
    "SELECT s.code FROM stations AS s WHERE s.name = 'Station 09999'",
    "SELECT COUNT(*) FROM rides WHERE status = 'cancelled'",
    "SELECT month, SUM(fare) FROM rides GROUP BY month ORDER BY month",
    "SELECT COUNT(DISTINCT origin) FROM rides WHERE month = 12",
    "SELECT d.name, COUNT(*) FROM rides AS x JOIN stations AS d ON x.dest = d.code WHERE x.month = 3 "
    "GROUP BY d.name ORDER BY 2 DESC LIMIT 5",
    "SELECT MAX(fare) FROM rides WHERE carrier = 'Carrier 000'",
    "SELECT COUNT(*) FROM stations WHERE region = 'SE'",
    "SELECT code FROM regions WHERE name = 'North West'",
    "SELECT COUNT(*) FROM rides WHERE fare > 450",
    "SELECT COUNT(*) FROM rides WHERE ride_date = '2023-07-04'",
    "SELECT status, COUNT(*) FROM rides GROUP BY status",
    "SELECT x.ride_id FROM rides AS x WHERE x.origin = 'S09000' ORDER BY x.ride_id LIMIT 10",
    "SELECT COUNT(*) FROM rides WHERE month BETWEEN 10 AND 12 AND carrier = 'Carrier 140'",
    "SELECT s.region, AVG(x.fare) FROM rides AS x JOIN stations AS s ON x.dest = s.code GROUP BY s.region",
    "SELECT COUNT(*) FROM rides AS x JOIN stations AS o ON x.origin = o.code WHERE o.region = 'W'",
    "SELECT MIN(ride_date), MAX(ride_date) FROM rides WHERE carrier = 'Carrier 075'",
    "SELECT COUNT(*) FROM rides WHERE dest = 'S00001' AND origin = 'S10000'",
    "SELECT name FROM stations WHERE opened >= '2020-01-01' ORDER BY name LIMIT 3",
]

#: The scripted changes (PostgreSQL): name, changed table, SQL.
CHANGES = [
    ("value renamed (sampled table)", "rides",
     "UPDATE rides SET carrier = 'Carrier Renamed' WHERE carrier = 'Carrier 042'"),
    ("value renamed (small table)", "regions", "UPDATE regions SET name = 'Far North' WHERE code = 'N'"),
    ("one row deleted", "rides", "DELETE FROM rides WHERE ride_id = 123457 % (SELECT COUNT(*) FROM rides) + 1"),
    ("a month of rows deleted", "rides", "DELETE FROM rides WHERE month = 12"),
    ("column added", "rides", "ALTER TABLE rides ADD COLUMN note TEXT"),
    ("column renamed", "rides", "ALTER TABLE rides RENAME COLUMN status TO ride_status"),
    ("column dropped", "stations", "ALTER TABLE stations DROP COLUMN opened"),
    ("one-row edit in a column of 10,000 distinct values", "stations",
     "UPDATE stations SET name = name || ' Annex' WHERE code = 'S00471'"),
    ("foreign keys swapped (regions N and S)", "stations",
     "UPDATE stations SET region = CASE region WHEN 'N' THEN 'S' ELSE 'N' END WHERE region IN ('N', 'S')"),
    ("table renamed", "regions", "ALTER TABLE regions RENAME TO areas"),
]


# ----------------------------------------------------------------------------------------- data


def generate(rows: int, seed: int = 7) -> dict[str, list[tuple]]:
    """The three tables' rows (``rides`` in date order)."""
    rng = random.Random(seed)
    regions = list(REGIONS)
    stations = []
    for i in range(1, STATIONS + 1):
        opened = dt.date(2010, 1, 1) + dt.timedelta(days=rng.randrange(0, 14 * 365))
        region = rng.choices(REGIONS, weights=range(len(REGIONS), 0, -1))[0][0]  # regions of unequal size
        stations.append((f"S{i:05d}", f"Station {i:05d}", region, opened))
    start = dt.date(2023, 1, 1)
    rides = []
    for i in range(rows):
        day = start + dt.timedelta(days=i * 365 // rows)
        carrier = f"Carrier {i * CARRIERS // rows:03d}"
        origin = f"S{rng.randrange(1, STATIONS + 1):05d}"
        dest = f"S{rng.randrange(1, STATIONS + 1):05d}"
        fare = round(rng.uniform(10, 500), 2)
        rides.append((i + 1, day, day.month, origin, dest, carrier, STATUSES[rng.randrange(len(STATUSES))], fare))
    return {"regions": regions, "stations": stations, "rides": rides}


DDL = [
    "CREATE TABLE regions (code TEXT PRIMARY KEY, name TEXT NOT NULL)",
    "CREATE TABLE stations (code TEXT PRIMARY KEY, name TEXT NOT NULL, region TEXT REFERENCES regions(code), "
    "opened DATE)",
    "CREATE TABLE rides (ride_id INTEGER PRIMARY KEY, ride_date DATE NOT NULL, month INTEGER NOT NULL, "
    "origin TEXT REFERENCES stations(code), dest TEXT REFERENCES stations(code), carrier TEXT, status TEXT, "
    "fare NUMERIC(8, 2))",
]


def load_sqlite(path: Path, data: dict[str, list[tuple]]) -> str:
    con = sqlite3.connect(path)
    for statement in DDL:
        con.execute(statement)
    for table, rows in data.items():
        con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})",
                        [tuple(v.isoformat() if isinstance(v, dt.date) else v for v in r) for r in rows])
    con.commit()
    con.close()
    return str(path)


def load_duckdb(folder: Path, data: dict[str, list[tuple]]) -> str:
    """A folder of Parquet files (the files source reads it through DuckDB)."""
    import csv

    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    for statement in DDL:
        con.execute(statement.replace(" REFERENCES regions(code)", "").replace(" REFERENCES stations(code)", ""))
    for table, rows in data.items():
        staged = folder.parent / f"{table}.csv"
        with open(staged, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows(rows)
        con.execute(f"COPY {table} FROM '{staged}' (HEADER false)")
        con.execute(f"COPY {table} TO '{folder / (table + '.parquet')}' (FORMAT PARQUET)")
        staged.unlink()
    con.close()
    return str(folder)


def load_postgres(url: str, data: dict[str, list[tuple]]) -> None:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as con:
        for statement in DDL:
            con.execute(statement)
        for table, rows in data.items():
            with con.cursor().copy(f"COPY {table} FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        con.execute("ANALYZE")


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[str]:
    """An admin URL (database ``postgres``) of the given server, or of a throw-away one."""
    if url:
        yield url
        return
    from fixtures.postgres_support import start_postgres

    server = start_postgres()
    try:
        yield server.url(driver="")
    finally:
        server.stop()


def _database_url(admin: str, name: str) -> str:
    return admin.rsplit("/", 1)[0] + "/" + name


def _admin(admin: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(admin.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as con:
        for statement in statements:
            con.execute(statement)


# ------------------------------------------------------------------------------------- measures


@dataclass
class Result:
    backend: str
    location: str
    build_s: float = 0.0
    column_evidence: int = 0
    sampled_evidence: int = 0
    contradicted: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    queries: int = 0
    drift_changes: list[str] = field(default_factory=list)
    drift_after_move: list[str] | None = None
    changes: list[tuple[str, bool, str]] = field(default_factory=list)
    after_patch: list[tuple[str, list[str]]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def build(location: str, ws: Path) -> float:
    from evoonto.cli import main

    start = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):
        code = main(["build", "--source", location, "-w", str(ws), "--no-progress"])
    if code != 0:
        raise SystemExit(f"build of {location} failed ({code})")
    return time.perf_counter() - start


def contradicted_claims(ws: Path, location: str) -> tuple[int, int, list[str]]:
    """``(column Evidence, sampled ones, contradicted claims)`` of a workspace against its full tables."""
    from evoonto.drift import _referenced
    from evoonto.records import describes_whole_table
    from evoonto.sources import open_source
    from evoonto.sources.profiling import value_sort_key, value_text
    from evoonto.sources.quoting import quote_identifier, quote_literal
    from evoonto.workspace import Workspace

    onto = Workspace.open(ws).ontology
    content = onto.graph("content")
    rows = onto.query("""SELECT ?e ?q ?whole ?distinct ?low ?high WHERE {
        ?e a evo:Evidence ; prov:wasGeneratedBy/evo:query ?q ; evo:wholeTable ?whole .
        OPTIONAL { ?e evo:distinctCount ?distinct }
        OPTIONAL { ?e evo:minValue ?low } OPTIONAL { ?e evo:maxValue ?high } }""")
    values: dict[str, set[str]] = {}
    for r in onto.query("SELECT ?e ?v WHERE { ?e a evo:Evidence ; evo:sampleValue ?v }"):
        values.setdefault(str(r["e"]), set()).add(str(r["v"]))
    out: list[str] = []
    sampled = 0
    with open_source(location) as src:
        tables = {t.name.casefold(): t for t in src.tables()}
        dialect = src.dialect
        for r in rows:
            iri, query = str(r["e"]), str(r["q"])
            names, columns = _referenced(query, dialect)
            [table] = [tables[t] for t in names if t in tables]
            [column] = [c.name for c in table.columns if c.name.casefold() in columns]
            col, name = quote_identifier(column, dialect), quote_identifier(table.name, dialect)
            full = src.run(f"SELECT COUNT(DISTINCT {col}), MIN({col}), MAX({col}) FROM {name}", limit=1,
                           timeout_ms=60_000).rows[0]
            n_distinct, low, high = int(full[0]), value_text(full[1]), value_text(full[2])
            listed = values.get(iri, set())
            where = f"{table.name}.{column}"
            seen_low = str(r["low"]) if r.get("low") is not None else None
            seen_high = str(r["high"]) if r.get("high") is not None else None
            if describes_whole_table(iri, content):
                distinct = int(r["distinct"].toPython()) if r.get("distinct") is not None else None
                if distinct is not None and distinct != n_distinct:
                    out.append(f"{where}: claims {distinct} distinct, the table has {n_distinct}")
                if (seen_low, seen_high) != (low, high):
                    out.append(f"{where}: claims {seen_low}..{seen_high}, the table holds {low}..{high}")
                if listed and distinct is not None and len(listed) >= distinct:  # the whole vocabulary
                    every = {value_text(v[0]) for v in src.run(f"SELECT DISTINCT {col} FROM {name}",
                                                               limit=100_000, timeout_ms=60_000).rows}
                    if listed != every - {None}:
                        out.append(f"{where}: claims the whole vocabulary, the table differs")
                continue
            sampled += 1
            if seen_low is not None and low is not None and (
                    value_sort_key(seen_low) < value_sort_key(low) or value_sort_key(seen_high) > value_sort_key(high)):
                out.append(f"{where}: the sample saw {seen_low}..{seen_high} outside the table's {low}..{high}")
            for value in sorted(listed):
                hit = src.run(f"SELECT 1 FROM {name} WHERE {col} = {quote_literal(value, dialect)} LIMIT 1",
                              limit=1, timeout_ms=60_000).rows
                if not hit:
                    out.append(f"{where}: lists {value!r}, which the table does not hold")
    return len(rows), sampled, out


def violations(ws: Path, queries: list[str] = QUERIES, sources: dict[str, str] | None = None) -> list[str]:
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.workspace import Workspace

    opened = Workspace.open(ws)
    tools = OntologyTools(opened.ontology, sources=sources or opened.settings.get("sources"), data_tools=True)
    out = []
    try:
        for sql in queries:
            for f in tools.check_sql(sql):
                if f.severity == "Violation":
                    out.append(f"{sql}  ->  {f.kind}: {f.message}")
    finally:
        tools.close()
    return out


#: After the drift patch of the first change (a value renamed): the new value is correct, the old one gone.
AFTER_RENAME = ["SELECT COUNT(*) FROM rides WHERE carrier = 'Carrier Renamed'",
                "SELECT COUNT(*) FROM rides WHERE carrier = 'Carrier 042'"]


def drift(ws: Path, source: str | None = None) -> tuple[list[str], list[Any]]:
    """Invalidating drift findings (text) and every finding, as a dry run."""
    from evoonto.drift import run_drift

    report = run_drift(ws, sources=[source] if source else [], mark=False)
    return [f"{f.kind} {f.where}: {f.detail}" for f in report.findings if f.invalidates], report.findings


# ------------------------------------------------------------------------------------------ run


def run_backend(backend: str, data: dict[str, list[tuple]], work: Path, admin: str | None,
                changes: bool) -> Result:
    if backend == "sqlite":
        location = load_sqlite(work / "facts.sqlite", data)
    elif backend == "duckdb":
        location = load_duckdb(work / "facts_files", data)
    else:
        assert admin is not None
        _admin(admin, "DROP DATABASE IF EXISTS facts_change", "DROP DATABASE IF EXISTS facts_base",
               "CREATE DATABASE facts_base")
        location = _database_url(admin, "facts_base")
        load_postgres(location, data)
    result = Result(backend, location)
    ws = work / f"ws_{backend}"
    result.build_s = build(location, ws)
    result.column_evidence, result.sampled_evidence, result.contradicted = contradicted_claims(ws, location)
    result.queries = len(QUERIES)
    result.violations = violations(ws)
    result.drift_changes, _ = drift(ws)
    if backend == "postgres":
        assert admin is not None
        _admin(location, "CREATE INDEX rides_dest ON rides (dest)", "CLUSTER rides USING rides_dest", "ANALYZE")
        result.drift_after_move, _ = drift(ws)
        if changes:
            for name, table, sql in CHANGES:
                _admin(admin, "DROP DATABASE IF EXISTS facts_change",
                       "CREATE DATABASE facts_change TEMPLATE facts_base")
                changed = _database_url(admin, "facts_change")
                _admin(changed, sql)
                _, findings = drift(ws, f"facts_base={changed}")
                about = [f for f in findings if (f.table or "").casefold() == table
                         or (f.kind == "new_table" and table in f.detail)]
                detail = "; ".join(f"{f.kind}: {f.detail}"[:160] for f in about[:3])
                result.changes.append((name, bool(about), detail))
                if sql == CHANGES[0][2]:  # mark it (on a copy of the workspace) and ask check_sql again
                    from evoonto.drift import run_drift

                    marked = work / "ws_marked"
                    shutil.copytree(ws, marked)
                    run_drift(marked, sources=[f"facts_base={changed}"], mark=True)
                    for query in AFTER_RENAME:
                        result.after_patch.append((query, violations(marked, [query], {"facts_base": changed})))
            _admin(admin, "DROP DATABASE IF EXISTS facts_change")
    return result


def report(results: list[Result], rows: int) -> None:
    print(f"facts bench: rides {rows:,} rows in date order, stations {STATIONS:,}, regions {len(REGIONS)}")
    for r in results:
        print(f"\n[{r.backend}] build {r.build_s:.1f} s; {r.column_evidence} column Evidence, "
              f"{r.sampled_evidence} sampled")
        print(f"  contradicted claims: {len(r.contradicted)} (target 0)")
        for line in r.contradicted[:10]:
            print(f"    {line}")
        print(f"  check_sql Violations on {r.queries} correct queries: {len(r.violations)} (target 0)")
        for line in r.violations:
            print(f"    {line[:300]}")
        print(f"  drift on the unchanged database: {len(r.drift_changes)} changes (target 0)")
        for line in r.drift_changes[:10]:
            print(f"    {line[:200]}")
        if r.drift_after_move is not None:
            print(f"  drift after CLUSTER moved every row of rides: {len(r.drift_after_move)} changes (target 0)")
            for line in r.drift_after_move[:10]:
                print(f"    {line[:200]}")
        if r.changes:
            reported = sum(ok for _, ok, _ in r.changes)
            print(f"  scripted changes reported by drift: {reported}/{len(r.changes)}")
            for name, ok, detail in r.changes:
                print(f"    {'yes' if ok else 'NO '} {name}: {detail}")
        if r.after_patch:
            print("  check_sql after the drift patch of the rename (the first query is correct, the second names "
                  "the vanished value):")
            for query, found in r.after_patch:
                print(f"    {len(found)} Violations: {query}" + (f"  ({found[0].split('->')[-1].strip()[:120]})"
                                                              if found else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=300_000, help="rows of the rides table (default 300,000)")
    parser.add_argument("--backends", default="postgres,sqlite,duckdb", help="comma-separated (default all)")
    parser.add_argument("--url", default=None, help="admin URL of a PostgreSQL server to use (database postgres)")
    parser.add_argument("--no-changes", action="store_true", help="skip the 10 scripted changes")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    data = generate(args.rows)
    work = Path(tempfile.mkdtemp(prefix="facts-bench-"))
    results = []
    warnings.simplefilter("ignore")
    try:
        with contextlib.ExitStack() as stack:
            admin = stack.enter_context(postgres(args.url)) if "postgres" in backends else None
            for backend in backends:
                results.append(run_backend(backend, data, work, admin, not args.no_changes))
                report(results[-1:], args.rows)
                sys.stdout.flush()
                if backend == "postgres" and admin is not None:
                    _admin(admin, "DROP DATABASE IF EXISTS facts_base")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps([r.to_json() for r in results], indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
