"""CSV/TSV/Parquet folders through DuckDB: types, bad files, read-only and file-access limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.sources_support import sha256

from evoonto.errors import QueryTimeout, ReadOnlyViolation, SourceError
from evoonto.sources import SourceWarning, open_source, source_kind_of
from evoonto.sources.files import FilesSource


@pytest.fixture
def csv_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "shop data"
    folder.mkdir()
    (folder / "orders.csv").write_text(
        'id,customer,amount,"Free Meal Count (K-12)",placed\n'
        "1,Ann,10.5,3,2024-01-02\n2,Bob,7.25,,2024-02-03\n3,Ann,1.0,5,2024-03-04\n",
        encoding="utf-8",
    )
    (folder / "customers.tsv").write_text("name\tcity name\nAnn\tParis\nBob\tRome\n", encoding="utf-8")
    (folder / "semicolons.csv").write_text("a;b\n1;x\n2;y\n", encoding="utf-8")
    (folder / "latin.csv").write_bytes("id,city\n1,Bogot\xe1\n2,S\xe3o Paulo\n".encode("latin-1"))
    (folder / "header only.csv").write_text("x,y\n", encoding="utf-8")
    (folder / "empty.csv").write_bytes(b"")
    (folder / "broken.csv").write_text('a,b\n"unterminated,2\n3,4\n', encoding="utf-8")
    (folder / "garbage.csv").write_bytes(bytes(range(256)) * 8)
    (folder / "readme.json").write_text("{}", encoding="utf-8")
    return folder


def open_warned(folder: Path) -> FilesSource:
    """Open the fixture folder, which warns (SourceWarning) about its bad files."""
    with pytest.warns(SourceWarning):
        return open_source(folder)


def test_folder_opens_as_files_source(csv_dir: Path):
    assert source_kind_of(csv_dir) == "files"
    with open_warned(csv_dir) as src:
        assert isinstance(src, FilesSource)
        assert (src.id, src.kind, src.dialect) == ("shop data", "files", "duckdb")


def test_tables_types_and_bad_files(csv_dir: Path):
    with pytest.warns(SourceWarning) as record:
        src = open_source(csv_dir)
    messages = " | ".join(str(w.message) for w in record)
    assert "empty.csv is empty" in messages
    assert "latin.csv is not valid UTF-8" in messages
    assert "cannot read garbage.csv" in messages
    # a stray quote: not standard CSV; read in the dialect DuckDB detects (its header's two columns), and said so
    assert "broken.csv does not read as standard CSV with its header" in messages
    with src:
        tables = {t.name: t for t in src.tables()}
        assert sorted(tables) == ["broken", "customers", "header only", "latin", "orders", "semicolons"]
        assert [c.name for c in tables["broken"].columns] == ["a", "b"]
        orders = tables["orders"]
        assert orders.row_count == 3 and orders.kind == "file"
        types = {c.name: c.declared_type for c in orders.columns}
        assert types["id"] == "BIGINT" and types["amount"] == "DOUBLE" and types["placed"] == "DATE"
        assert [c.name for c in tables["customers"].columns] == ["name", "city name"]
        assert [c.name for c in tables["semicolons"].columns] == ["a", "b"]
        assert tables["header only"].row_count == 0
        assert src.run("SELECT city FROM latin ORDER BY id").rows == [("Bogotá",), ("São Paulo",)]
        result = src.run(f'SELECT SUM({src.quote("Free Meal Count (K-12)")}) AS s FROM orders')
        assert result.scalar() == 8


def test_single_file_source(csv_dir: Path):
    with open_source(csv_dir / "orders.csv") as src:
        assert src.id == "orders"
        assert [t.name for t in src.tables()] == ["orders"]


def test_parquet_files(tmp_path: Path):
    import duckdb

    folder = tmp_path / "pq"
    folder.mkdir()
    con = duckdb.connect()
    con.execute(f"COPY (SELECT range AS id, range % 3 AS grp FROM range(10)) "
                f"TO '{folder / 'nums.parquet'}' (FORMAT parquet)")
    con.close()
    with open_source(folder) as src:
        table = src.table("nums")
        assert table.row_count == 10
        assert src.run("SELECT grp, COUNT(*) FROM nums GROUP BY grp ORDER BY grp").rows == [(0, 4), (1, 3), (2, 3)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM glob('/etc/*')",
        "COPY orders TO '/tmp/evoonto_out.csv'",
        "CREATE TABLE stolen AS SELECT * FROM orders",
        "INSERT INTO orders VALUES (9, 'x', 1, 1, '2024-01-01')",
        "ATTACH '/tmp/evoonto_x.duckdb' AS x",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "SELECT 1; DROP TABLE orders",
        "PRAGMA version",
    ],
)
def test_hostile_statements_refused_and_files_unchanged(csv_dir: Path, sql: str):
    before = {p.name: sha256(p) for p in csv_dir.iterdir()}
    with open_warned(csv_dir) as src:
        with pytest.raises(ReadOnlyViolation):
            src.run(sql)
        assert src.run("SELECT COUNT(*) FROM orders").scalar() == 3
    after = {p.name: sha256(p) for p in csv_dir.iterdir()}
    assert after == before
    assert not Path("/tmp/evoonto_out.csv").exists()


def test_duckdb_itself_cannot_reach_other_files(csv_dir: Path):
    """Behind the guard, DuckDB's own configuration is locked to the source files."""
    with open_warned(csv_dir) as src:
        with pytest.raises(Exception, match="disabled|Permission"):
            src._con.execute("SELECT * FROM read_csv('/etc/passwd')")
        with pytest.raises(Exception, match="locked"):
            src._con.execute("SET enable_external_access = true")


def test_timeout(csv_dir: Path):
    with open_warned(csv_dir) as src:
        with pytest.raises(QueryTimeout):
            src.run("SELECT COUNT(*) FROM range(100000000000) AS a", timeout_ms=100)
        assert src.run("SELECT 1").scalar() == 1


def test_missing_and_unusable_folders(tmp_path: Path):
    with pytest.raises(SourceError, match="not found"):
        open_source(tmp_path / "nothing here")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.json").write_text("{}")
    with pytest.raises(SourceError, match="nothing to open"):
        open_source(tmp_path / "other")


@pytest.mark.slow
def test_insightbench_csvs(shared_data: Path):
    folder = shared_data / "insightbench" / "notebooks" / "csvs"
    with open_source(folder) as src:
        tables = {t.name: t for t in src.tables()}
        assert len(tables) >= 100
        flag = tables["flag-1"]
        assert flag.row_count == 500
        assert flag.column("opened_at").declared_type.startswith("TIMESTAMP")
        top = src.run('SELECT category, COUNT(*) AS n FROM "flag-1" GROUP BY 1 ORDER BY n DESC', limit=1)
        assert top.rows[0][0] == "Hardware" and top.truncated
