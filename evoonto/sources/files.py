"""A folder of CSV/TSV/Parquet files queried with SQL through an in-memory DuckDB.

Each file becomes one table named after its file stem (``flag-1.csv`` → table ``flag-1``; quote it:
``SELECT * FROM "flag-1"``). Only the top level of the folder is read; a single file works too.
CSV files up to :data:`MATERIALIZE_BYTES` are loaded into memory once (read as RFC 4180 with a
header row, falling back to DuckDB's dialect sniffer; column types detected over all rows); larger
CSV files and Parquet files stay views over the file.

Read-only by construction (DESIGN.md §4): the database is in memory (nothing to write back), each
statement passes the guard (which also refuses ``read_csv``/``read_parquet``/``glob`` … so a query
cannot open other files), and after the views are created DuckDB's configuration is locked with
external access disabled except for exactly these files (``allowed_paths``), extension
auto-loading off. Timeouts call ``interrupt()`` on the connection from a watchdog thread (again
every 50 ms until the query stops). Resources are bounded: DuckDB's ``memory_limit`` (default
:data:`DEFAULT_MEMORY_LIMIT`), ``threads`` (default :data:`DEFAULT_THREADS`) and no spilling to a
temporary directory (nothing is ever written to disk), so a statement such as
``SELECT len(list(range(300000000)))`` fails with a one-line "memory limit" error instead of
growing without bound; answers are streamed and bounded in rows and characters.

Bad files never stop the source: a non-UTF-8 CSV is re-read as Latin-1 with a
:class:`~evoonto.sources.base.SourceWarning`; an empty or unreadable file is skipped with a warning.

Example::

    from evoonto.sources import open_source

    with open_source("insightbench/notebooks/csvs") as src:        # kind "files"
        print([t.name for t in src.tables()][:3])
        print(src.run('SELECT category, COUNT(*) FROM "flag-1" GROUP BY 1').rows)
"""

from __future__ import annotations

import csv

import threading
from pathlib import Path

from evoonto.errors import QueryTimeout, SourceError
from evoonto.sources.base import (
    FIRST_ROWS,
    RESERVOIR,
    BaseSource,
    ColumnInfo,
    TableInfo,
    cursor_batches,
    fetch_bounded,
    warn,
)
from evoonto.sources.quoting import quote_literal
from evoonto.sources.registry import SourceKind, register_source_kind

__all__ = ["FilesSource", "reservoir_sample", "MATERIALIZE_BYTES", "TABLE_FILE_SUFFIXES", "DEFAULT_MEMORY_LIMIT",
           "DEFAULT_THREADS"]

#: DuckDB ``memory_limit`` of a files source for queries; the CSV files loaded into memory are added
#: to it (twice their size on disk), so a large folder still loads.
DEFAULT_MEMORY_LIMIT = "1GB"
#: DuckDB worker threads of a files source.
DEFAULT_THREADS = 2
#: Seconds between two ``interrupt()`` calls once a query is past its deadline.
_REINTERRUPT_S = 0.05

#: File suffixes opened as tables.
TABLE_FILE_SUFFIXES = (".csv", ".tsv", ".parquet")

#: CSV files up to this size (bytes) are loaded into memory once (types sniffed over all rows);
#: larger ones and Parquet files stay views over the file (types sniffed on a sample).
MATERIALIZE_BYTES = 100_000_000


def _sql_string(text: str) -> str:
    return quote_literal(text, "duckdb")


class FilesSource(BaseSource):
    """CSV/TSV/Parquet files of a folder (or one file) as read-only DuckDB tables.

    Args:
        path: a folder, or a single ``.csv``/``.tsv``/``.parquet`` file.
        source_id: identifier (default: the folder name or file stem).
        threads: DuckDB worker threads (default :data:`DEFAULT_THREADS`).
        memory_limit: memory for queries, in DuckDB's notation, e.g. ``"512MB"`` (default
            :data:`DEFAULT_MEMORY_LIMIT`); DuckDB's ``memory_limit`` is this plus twice the size of
            the CSV files loaded into memory. A query needing more fails with
            :class:`~evoonto.errors.SourceError`.

    Raises:
        SourceError: the path is missing or holds no CSV/Parquet file.
    """

    kind = "files"
    dialect = "duckdb"

    def __init__(self, path: str | Path, *, source_id: str | None = None, threads: int | None = None,
                 memory_limit: str = DEFAULT_MEMORY_LIMIT):
        import duckdb

        root = Path(path).expanduser()
        if not root.exists():
            raise SourceError(f"data folder not found: {path}")
        files = (
            sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() in TABLE_FILE_SUFFIXES)
            if root.is_dir()
            else [root]
        )
        if not files or files[0].suffix.lower() not in TABLE_FILE_SUFFIXES:
            raise SourceError(f"no CSV/TSV/Parquet files in {path}")
        super().__init__(source_id or (root.resolve().name if root.is_dir() else root.stem), str(root))
        self.path = root
        config: dict[str, str | bool | int | float | list[str]] = {
            "autoinstall_known_extensions": False, "autoload_known_extensions": False,
            "threads": int(threads or DEFAULT_THREADS),
            "memory_limit": _memory_limit(str(memory_limit), files),
            # no spilling: an in-memory database would otherwise write to ./.tmp
            "temp_directory": "", "max_temp_directory_size": "0KB",
        }
        self._duckdb = duckdb
        try:
            self._con = duckdb.connect(":memory:", config=config)
        except duckdb.Error as err:
            raise SourceError(f"cannot open files source {path}: {_first_line(err)}") from None
        self._files: dict[str, Path] = {}
        self._described: dict[str, tuple[list[tuple], int]] = {}
        try:
            for file in files:
                self._register(file)
            allowed = ", ".join(_sql_string(str(p.resolve())) for p in self._files.values())
            self._con.execute(f"SET allowed_paths = [{allowed}]")
            self._con.execute("SET enable_external_access = false")
            self._con.execute("SET lock_configuration = true")
        except duckdb.Error as err:
            self._con.close()
            raise SourceError(f"cannot open files source {path}: {_first_line(err)}") from None

    # -- registration -------------------------------------------------------------------------
    def _register(self, file: Path) -> None:
        name = file.stem
        if name in self._files:
            warn(f"source {self.id!r}: {file.name} and {self._files[name].name} share the table "
                 f"name {name!r}; the second is named {file.name!r}")
            name = file.name
        if file.stat().st_size == 0 or (file.suffix.lower() != ".parquet" and not _has_text(file)):
            self.unreadable[name] = f"{file.name} is empty (no columns)"
            warn(f"source {self.id!r}: {file.name} is empty (no columns); skipped")
            return
        last_error: BaseException | None = None
        small = file.stat().st_size <= MATERIALIZE_BYTES and file.suffix.lower() != ".parquet"
        # RFC 4180 with its header; then the same leaving out the rows that do not fit the header
        # (each reported by line: a ragged row must not cost the whole file); then DuckDB's sniffer
        modes = ("standard", "lenient", "sniffed") if small else ("standard", "sniffed")
        header = _header(file)  # what the reads are checked against (read once)
        for encoding in (None, "latin-1"):
            encoding_failed = False
            for mode in modes:
                try:
                    described, count = self._load(name, file, encoding=encoding, mode=mode)
                    if mode == "sniffed":
                        _check_sniffed(header, described)
                    rejected = self._rejected() if mode == "lenient" else []
                    if any("encoding" in why.lower() for _line, why in rejected):
                        raise _Misread(f"invalid {encoding or 'UTF-8'} encoding on line {rejected[0][0]}")
                    if rejected and not count:
                        raise _Misread(f"no row fits its header (line {rejected[0][0]}: {rejected[0][1].lower()})")
                    if mode == "lenient" and not rejected:
                        # the strict read failed for another reason than rows to leave out (a stray
                        # quote the lenient reader keeps as text): not a reading of the file to trust
                        raise _Misread("the strict reading failed and no row was left out")
                except (self._duckdb.Error, _Misread) as err:
                    last_error = err
                    self._drop(name)
                    if _is_encoding_error(err):
                        encoding_failed = True
                        break
                    continue
                if encoding:
                    warn(f"source {self.id!r}: {file.name} is not valid UTF-8; read as {encoding}")
                if mode == "sniffed" and file.suffix.lower() != ".parquet":
                    warn(f"source {self.id!r}: {file.name} does not read as standard CSV with its header "
                         f"({_first_line(last_error)}); read in the dialect DuckDB detects: check its columns")
                renamed = _renamed_duplicates(header, described)
                if renamed:
                    warn(f"source {self.id!r}: {file.name} names a column twice in its header; read as "
                         + ", ".join(f"{new!r} (column {k + 1}, headed {old!r})" for k, old, new in renamed[:5]))
                if rejected:
                    lines = "; ".join(f"line {line}: {why.lower()}" for line, why in rejected[:5])
                    warn(f"source {self.id!r}: {file.name}: {len(rejected)} row(s) that do not fit its header left "
                         f"out ({lines}{'; …' if len(rejected) > 5 else ''}); {count:,} rows read")
                self._files[name] = file
                self._described[name] = (described, count)
                return
            if not encoding_failed or file.suffix.lower() == ".parquet":
                break
        self.unreadable[name] = f"cannot read {file.name}: {_first_line(last_error)}"
        warn(f"source {self.id!r}: cannot read {file.name} ({_first_line(last_error)}); skipped")

    def _load(self, name: str, file: Path, *, encoding: str | None, mode: str):
        """Create the table (small files, loaded once) or view (large files); (DESCRIBE rows, count)."""
        quoted = self.quote(name)
        small = file.stat().st_size <= MATERIALIZE_BYTES
        kind = "TABLE" if small and file.suffix.lower() != ".parquet" else "VIEW"
        self._con.execute(f"CREATE {kind} {quoted} AS {self._reader(file, encoding, mode)}")
        described = self._con.execute(f"DESCRIBE {quoted}").fetchall()
        row = self._con.execute(f"SELECT COUNT(*) FROM {quoted}").fetchone()
        return described, int(row[0]) if row else 0

    def _drop(self, name: str) -> None:
        """Drop what a failed read of ``name`` left (a table or a view: DuckDB refuses to drop one
        as the other, even with IF EXISTS)."""
        for kind in ("VIEW", "TABLE"):
            try:
                self._con.execute(f"DROP {kind} IF EXISTS {self.quote(name)}")
            except self._duckdb.Error:
                continue

    def _rejected(self) -> list[tuple[int, str]]:
        """``(line, error type)`` of the rows the last lenient read left out (its rejects table,
        dropped here)."""
        try:
            rows = self._con.execute(f"SELECT line, error_type FROM {_REJECTS} ORDER BY line").fetchall()
        finally:
            self._con.execute(f"DROP TABLE IF EXISTS {_REJECTS}")
            self._con.execute(f"DROP TABLE IF EXISTS {_REJECT_SCANS}")
        return [(int(line), str(kind).replace("_", " ")) for line, kind in rows]

    def _reader(self, file: Path, encoding: str | None, mode: str) -> str:
        """``SELECT * FROM read_…(file)``. ``mode`` ``standard`` assumes an RFC 4180 file with a header
        row and the delimiter most frequent in the first line (about 5x faster than DuckDB's dialect
        sniffer); ``lenient`` is the same leaving out the rows that do not fit the header (recorded
        in a rejects table, :meth:`_rejected`); ``sniffed`` lets DuckDB's sniffer find the dialect."""
        standard = mode in ("standard", "lenient")
        path = _sql_string(str(file.resolve()))
        if file.suffix.lower() == ".parquet":
            return f"SELECT * FROM read_parquet({path})"
        options = []
        if mode == "lenient":
            options.append(f"ignore_errors = true, store_rejects = true, rejects_table = '{_REJECTS}', "
                           f"rejects_scan = '{_REJECT_SCANS}'")
        if standard:
            delim = "\\t" if file.suffix.lower() == ".tsv" else _guess_delimiter(file)
            options.append(f"delim = '{delim}', quote = '\"', escape = '\"', header = true")
        elif file.suffix.lower() == ".tsv":
            options.append("delim = '\\t'")
        if file.stat().st_size <= MATERIALIZE_BYTES:
            options.append("sample_size = -1")
        if encoding:
            options.append(f"encoding = {_sql_string(encoding)}")
        extra = "".join(", " + o for o in options)
        return f"SELECT * FROM read_csv({path}{extra})"

    # -- BaseSource -----------------------------------------------------------------------------
    def files(self) -> dict[str, Path]:
        """``{table name: file path}`` of the readable files."""
        return dict(self._files)

    def _load_tables(self) -> list[TableInfo]:
        tables = []
        for name, (described, count) in self._described.items():
            columns = tuple(
                ColumnInfo(name=row[0], declared_type=str(row[1]), nullable=row[2] != "NO", ordinal=i)
                for i, row in enumerate(described)
            )
            tables.append(TableInfo(name=name, columns=columns, row_count=count, kind="file"))
        return tables

    def _execute(self, sql: str, limit: int, timeout_ms: float):
        done, fired = threading.Event(), threading.Event()

        def watchdog() -> None:
            if done.wait(timeout_ms / 1000.0):
                return
            fired.set()
            while not done.is_set():  # an operator may ignore one interrupt; repeat until it stops
                self._con.interrupt()
                done.wait(_REINTERRUPT_S)

        guard = threading.Thread(target=watchdog, name="evoonto-duckdb-timeout", daemon=True)
        guard.start()
        try:
            cursor = self._con.execute(sql)
            columns = [d[0] for d in cursor.description or ()]
            rows, truncated, note = fetch_bounded(cursor_batches(cursor), limit, self._max_chars)
        except self._duckdb.InterruptException:
            raise QueryTimeout(f"query interrupted after {timeout_ms:g} ms") from None
        except self._duckdb.OutOfMemoryException as err:
            raise SourceError(f"DuckDB error: the query needs more than the memory limit "
                              f"({_first_line(err)})") from None
        except self._duckdb.Error as err:
            if fired.is_set():
                raise QueryTimeout(f"query interrupted after {timeout_ms:g} ms") from None
            raise SourceError(f"DuckDB error: {_first_line(err)}") from None
        finally:
            done.set()
            guard.join()
        return columns, rows, truncated, note

    def sampling_methods(self, table: TableInfo) -> tuple[str, ...]:
        """:data:`RESERVOIR` (a seeded sample of the whole file), then the generic :data:`FIRST_ROWS`."""
        return (RESERVOIR, FIRST_ROWS)

    def sample_from(self, table: TableInfo, expressions: str, rows: int, method: str | None = None) -> str:
        """:data:`RESERVOIR`: a seeded reservoir sample of ``rows`` rows (DuckDB ``USING SAMPLE``)."""
        if (method or RESERVOIR) == RESERVOIR:
            return reservoir_sample(self.quote(table.name), expressions, rows)
        return super().sample_from(table, expressions, rows, method)

    def _close(self) -> None:
        self._con.close()


def reservoir_sample(quoted_table: str, expressions: str, rows: int) -> str:
    """DuckDB SQL of a derived table holding a seeded reservoir sample of ``rows`` rows of the whole
    table (``quoted_table`` already quoted)."""
    return f"(SELECT {expressions} FROM {quoted_table} USING SAMPLE reservoir({int(rows)} ROWS) REPEATABLE (7))"


def _memory_limit(for_queries: str, files: list[Path]) -> str:
    """DuckDB ``memory_limit``: ``for_queries`` plus twice the bytes of the CSV files to load in memory."""
    import re

    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?i?B)\s*", for_queries, re.IGNORECASE)
    if match is None:
        raise SourceError(f"memory_limit must look like '512MB' or '1GB', got {for_queries!r}")
    unit = match.group(2).upper().replace("I", "")
    scale = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}[unit]
    loaded = sum(f.stat().st_size for f in files
                 if f.suffix.lower() != ".parquet" and f.stat().st_size <= MATERIALIZE_BYTES)
    total = int(float(match.group(1)) * scale) + 2 * loaded
    return f"{max(total >> 20, 64)}MiB"


def _has_text(file: Path) -> bool:
    with open(file, "rb") as handle:
        return bool(handle.read(4096).strip())


def _first_line(err: BaseException | None) -> str:
    text = str(err or "").strip().splitlines()
    return text[0][:300] if text else type(err).__name__


#: Tables of a lenient read's left-out rows (DuckDB ``store_rejects``), read and dropped at once.
_REJECTS, _REJECT_SCANS = "evoonto_rejects", "evoonto_reject_scans"


class _Misread(Exception):
    """DuckDB's sniffer read a file as something else than its header says."""


def _header(file: Path) -> list[str]:
    """The fields of a CSV/TSV file's first line, split at its most frequent delimiter ([] for Parquet)."""
    if file.suffix.lower() == ".parquet":
        return []
    delim = "\t" if file.suffix.lower() == ".tsv" else _guess_delimiter(file)
    with open(file, "rb") as handle:
        first = handle.readline(65536).decode("utf-8", "replace").strip("\r\n\ufeff")
    return next(csv.reader([first], delimiter="\t" if delim == "\\t" else delim), [])


def _renamed_duplicates(header: list[str], described: list[tuple]) -> list[tuple[int, str, str]]:
    """``(position, header name, column name)`` of each column whose ``header`` name (:func:`_header`)
    repeats an earlier one and that the reader named otherwise (DuckDB reads a second ``name`` as
    ``name_1``)."""
    if len(header) != len(described):
        return []
    seen: set[str] = set()
    out = []
    for k, (name, row) in enumerate(zip(header, described, strict=True)):
        if name.strip().casefold() in seen and str(row[0]) != name.strip():
            out.append((k, name.strip(), str(row[0])))
        seen.add(name.strip().casefold())
    return out


def _check_sniffed(fields: list[str], described: list[tuple]) -> None:
    """Raise :class:`_Misread` when the sniffer's columns are not the header's: a first line of N >= 2
    fields (split at its most frequent delimiter) read as another number of columns (one column
    holding whole lines, or a last line's shape), which would be a table the file does not hold."""
    if len(fields) >= 2 and len(fields) != len(described):
        raise _Misread(f"its header has {len(fields)} fields, but the rows do not parse as {len(fields)} columns")


def _is_encoding_error(err: BaseException) -> bool:
    """The error says the bytes are not in the encoding: its first line (DuckDB's "Possible fixes" of a
    dialect it could not sniff mention the encoding too, for a file that is valid UTF-8)."""
    text = _first_line(err).lower()
    return "unicode" in text or "utf-8" in text or "encoding" in text


def _guess_delimiter(file: Path) -> str:
    """The most frequent of ``,`` ``;`` ``|`` and tab in the first line (outside quotes); ``,``."""
    with open(file, "rb") as handle:
        line = handle.readline(65536)
    counts = {b",": 0, b";": 0, b"|": 0, b"\t": 0}
    quoted = False
    for byte in line:
        char = bytes([byte])
        if char == b'"':
            quoted = not quoted
        elif not quoted and char in counts:
            counts[char] += 1
    best = max(counts, key=lambda c: counts[c])
    if counts[best] == 0 or best == b",":
        return ","
    return "\\t" if best == b"\t" else best.decode()


def _holds_tables(location: str) -> bool:
    """A CSV/TSV/Parquet file, or a folder holding at least one."""
    if "://" in location:
        return False
    path = Path(location).expanduser()
    if path.is_dir():
        return any(p.is_file() and p.suffix.lower() in TABLE_FILE_SUFFIXES for p in path.iterdir())
    return path.is_file() and path.suffix.lower() in TABLE_FILE_SUFFIXES


register_source_kind(SourceKind("files", FilesSource, _holds_tables, priority=20))
