"""Data dictionaries and schema documentation: readers that turn them into column statements.

A team's documentation of its tables comes in a few widespread shapes; each reader here turns one
of them into :class:`ColumnDoc` statements (one per documented table or column, each naming the
file and line it came from) that :mod:`evoonto.builder.documentation` turns into Content:

- BIRD-style data dictionaries: ``database_description/<table>.csv`` with the columns
  ``original_column_name, column_name, column_description, data_format, value_description``
  (:func:`read_bird_dictionary`). Files in the wild have byte-order marks, Windows code pages,
  trailing blanks and table/column names in another case; all are accepted.
- Comments in DDL: SQLite ``CREATE TABLE`` text with ``-- …`` / ``/* … */`` after a column, and
  the table/column comments SQLAlchemy reflects for any URL (PostgreSQL ``COMMENT ON``); the
  connectors put them on :attr:`TableInfo.comment` / :attr:`ColumnInfo.comment`
  (:func:`comment_docs`).
- dbt ``schema.yml`` / ``_models.yml`` files: model and column descriptions and the generic tests
  ``not_null``, ``unique``, ``accepted_values`` and ``relationships`` (:func:`read_dbt`; needs
  PyYAML, the ``dbt`` extra).
- Spider-style ``tables.json``: readable table and column names, and descriptions where a variant
  carries them (:func:`read_tables_json`).

Value descriptions are parsed into code lists by :func:`parse_value_description` with general
patterns only (``'POS' = point of sale``, ``"F": female``, ``A stands for …``, ``1 -> yes``, one
per line or ``;``-separated, and plain enumerations of quoted values).

Every problem with one statement (a malformed row, a table or column the source does not have)
is one :class:`~evoonto.sources.base.SourceWarning` naming the file and line; the statement is
skipped and the rest is read.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from evoonto.sources.base import TableInfo, warn

__all__ = ["ColumnDoc", "DocLocation", "ValueMeaning", "parse_value_description", "read_text",
           "read_bird_dictionary", "comment_docs", "read_dbt", "read_tables_json", "find_documentation",
           "read_documentation", "DICTIONARY_DIR", "BIRD_COLUMNS"]

#: The folder of BIRD-style data dictionaries beside a database file.
DICTIONARY_DIR = "database_description"
#: The header of a BIRD-style dictionary file (case and surrounding blanks are ignored).
BIRD_COLUMNS = ("original_column_name", "column_name", "column_description", "data_format", "value_description")
#: dbt property files (any ``*.yml`` / ``*.yaml`` holding ``models:`` is read).
_DBT_SUFFIXES = (".yml", ".yaml")


@dataclass(frozen=True)
class DocLocation:
    """Where a statement was read: ``path`` (file, or the source location for comments), ``line``
    (1-based line of the row or entry; ``None`` when the format has none) and ``kind``
    (``"dictionary"``, ``"comment"``, ``"dbt"`` or ``"tables.json"``)."""

    path: str
    line: int | None
    kind: str

    def __str__(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


@dataclass(frozen=True)
class ValueMeaning:
    """One documented value: ``code`` as written (quotes removed), its ``meaning`` (``None`` for a
    plain enumeration of values) and whether the code was ``quoted`` in the document (a quoted code
    is a claim about the data; an unquoted one is used only when the data holds it)."""

    code: str
    meaning: str | None
    quoted: bool


@dataclass(frozen=True)
class ColumnDoc:
    """What a document says about one table (``column`` None) or one column.

    Attributes:
        table, column: names as the source knows them (matched case-insensitively).
        label: a readable name (``None`` when the document gives none or repeats the raw name).
        description: the definition, one paragraph (characters as written, blanks collapsed).
        data_format: the documented type/format (``"integer"``, ``"date"``), if any.
        values: documented values with their meanings (:func:`parse_value_description`).
        note: value description text that is not a code list (units, remarks), if any.
        not_null, unique: dbt tests; references: ``(table, column)`` of a dbt ``relationships``
            test.
        location: the file and line.
    """

    table: str
    column: str | None
    location: DocLocation
    label: str | None = None
    description: str | None = None
    data_format: str | None = None
    values: tuple[ValueMeaning, ...] = ()
    note: str | None = None
    not_null: bool = False
    unique: bool = False
    references: tuple[str, str] | None = None

    def text(self) -> str:
        """The statement as one line of text (for Evidence summaries and passages)."""
        where = self.table if self.column is None else f"{self.table}.{self.column}"
        parts = [where]
        if self.label:
            parts.append(f"label: {self.label}")
        if self.description:
            parts.append(f"description: {self.description}")
        if self.data_format:
            parts.append(f"format: {self.data_format}")
        if self.values:
            parts.append("values: " + "; ".join(v.code if v.meaning is None else f"{v.code} = {v.meaning}"
                                                for v in self.values))
        if self.note:
            parts.append(f"note: {self.note}")
        tests = [name for name, on in (("not null", self.not_null), ("unique", self.unique)) if on]
        if self.references:
            tests.append(f"references {self.references[0]}.{self.references[1]}")
        if tests:
            parts.append("tests: " + ", ".join(tests))
        return " | ".join(parts)


def read_text(path: Path) -> str:
    """The text of ``path``: UTF-8 (a byte-order mark is dropped), else Windows-1252, else Latin-1
    (a :class:`~evoonto.sources.base.SourceWarning` names the fallback).

    Raises:
        OSError: the file cannot be read.
    """
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    for encoding in ("cp1252", "latin-1"):
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        warn(f"{path}: not UTF-8, read as {encoding}")
        return text
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover


def _clean(text: Any) -> str:
    """Blanks (including no-break spaces) collapsed, ends stripped."""
    return " ".join(str(text or "").replace("\u00a0", " ").split())


# --- value descriptions ---------------------------------------------------------------------------

_QUOTED = r"(?:\"(?P<dq>[^\"\n]{1,80})\"|'(?P<sq>[^'\n]{1,80})'|“(?P<cq>[^”\n]{1,80})”)"
#: An unquoted code: one token (letters, digits, a few joiners), at most 20 characters.
_BARE = r"(?P<bare>[A-Za-z0-9][A-Za-z0-9_.+\-/]{0,19})"
_SEPARATOR = r"\s*(?P<sep>=>|->|→|=|:|\bstands\s+for\b|\bmeans\b|\brefers\s+to\b|\bis\s+for\b)\s*"
_PAIR = re.compile(r"(?:^|(?<=[\s,;(]))(?:" + _QUOTED + "|" + _BARE + ")" + _SEPARATOR)
_LEAD = re.compile(r"^\s*(?:stands\s+for|means|refers\s+to|is\s+for)\s+", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[·•*\-–—]|\d+[.)](?=\s))\s*")
_PLAIN_QUOTED = r"(?:\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|“[^”\n]{1,80}”)"
_ENUMERATION = re.compile(r"^\s*" + _PLAIN_QUOTED + r"(?:\s*(?:,|/|\bor\b|\band\b)\s*" + _PLAIN_QUOTED
                          + r")+\s*[.;]?\s*$")
_QUOTED_ONE = re.compile(_QUOTED)
#: Words that open a remark rather than name a value ("Note: …", "Unit: USD").
_REMARK_WORDS = {"note", "notes", "unit", "units", "example", "examples", "e.g", "eg", "i.e", "ie", "format",
                 "commonsense", "evidence", "hint", "see", "source", "values", "value", "default", "remark",
                 "remarks", "warning", "caution", "nb", "ps", "formula", "definition", "description", "http",
                 "https"}


def parse_value_description(text: str) -> tuple[list[ValueMeaning], str | None]:
    """Parse a value description into documented values and the remaining remark.

    Recognised (general patterns, any mix, one per line or ``;``/``,``-separated):
    ``"POPLATEK MESICNE" stands for monthly issuance``, ``F：female`` (full-width colon),
    ``'POS' = point of sale``, ``1 -> yes``, ``A means active``, ``0: no, 1: yes`` on one line,
    bulleted lines (``· 1 = Magnet``), and a plain enumeration of quoted values
    (``"black", "white"``: values without meanings). A leading ``stands for`` / ``means`` of a
    meaning is dropped. Words that open remarks (``Note:``, ``Unit:``, ``commonsense evidence:``)
    are never read as codes.

    Args:
        text: the value description (any length; characters as written).

    Returns:
        ``(values, note)``: the values in document order (first mention of a code wins) and the
        lines that hold no value, joined with spaces (``None`` when there are none).
    """
    text = (text or "").replace("：", ":").replace("\u00a0", " ").replace("\r\n", "\n").replace("\r", "\n")
    values: list[ValueMeaning] = []
    seen: set[str] = set()
    remarks: list[str] = []

    def add(code: str, meaning: str | None, quoted: bool) -> None:
        code = code.strip()
        key = code.casefold()
        if code and key not in seen:
            seen.add(key)
            values.append(ValueMeaning(code, meaning, quoted))

    for raw_line in text.split("\n"):
        line = _BULLET.sub("", raw_line).strip()
        if not line:
            continue
        enum = _ENUMERATION.match(line)
        if enum:
            for m in _QUOTED_ONE.finditer(line):
                add(_group_code(m), None, True)
            continue
        found = _pairs(line)
        if not found:
            remarks.append(line)
            continue
        for code, meaning, quoted in found:
            add(code, meaning, quoted)
    note = _clean(" ".join(remarks)) or None
    return values, note


def _group_code(m: re.Match) -> str:
    return next(g for g in (m.group("dq"), m.group("sq"), m.group("cq")) if g is not None)


def _pairs(line: str) -> list[tuple[str, str | None, bool]]:
    """``(code, meaning, quoted)`` of each ``code SEP meaning`` in one line; a meaning runs up to the
    next pair, a ``;``, or the end of the line. A quoted code may stand anywhere; an unquoted one
    only at the start of the line or after an earlier pair of the line (``0: no, 1: yes``), so
    running text (``the rate = a / b``) is not read as a code list."""
    matches: list[re.Match] = []
    for m in _PAIR.finditer(line):
        bare = m.group("bare")
        if bare is not None and (bare.casefold().rstrip(".") in _REMARK_WORDS
                                 or (m.start() > 0 and not matches)):
            continue
        matches.append(m)
    out: list[tuple[str, str | None, bool]] = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(line)
        meaning = _LEAD.sub("", line[m.end():end].split(";")[0]).strip(" ,;.")
        quoted = m.group("bare") is None
        code = _group_code(m) if quoted else m.group("bare")
        alone = _QUOTED_ONE.fullmatch(meaning)
        if alone and m.group("sep") != ":":  # "'A' = 'alpha'": a quoted meaning
            meaning, alone = _group_code(alone), None
        if quoted and (not meaning or alone):  # '"A" : "B" : "C"': a list of values without meanings
            out.append((code, None, True))
            if alone:
                out.append((_group_code(alone), None, True))
            continue
        if not meaning or len(meaning) > 200:
            continue
        out.append((code, _clean(meaning), quoted))
    return out


# --- BIRD-style data dictionaries -------------------------------------------------------------------

def _match_name(name: str, known: Iterable[str]) -> str | None:
    """The name in ``known`` equal to ``name`` (exactly, then ignoring case and surrounding blanks)."""
    known = list(known)
    if name in known:
        return name
    folded = name.strip().casefold()
    for k in known:
        if k.strip().casefold() == folded:
            return k
    return None


def read_bird_dictionary(folder: Path, tables: Sequence[TableInfo]) -> list[ColumnDoc]:
    """Read every ``<table>.csv`` of a BIRD-style ``database_description`` folder.

    Args:
        folder: the ``database_description`` folder.
        tables: the source's tables (file stems and column names are matched against them, exactly
            first, then case-insensitively).

    Returns:
        One :class:`ColumnDoc` per usable row (row order, files in name order). A file whose table
        the source lacks, a file without the expected header, a row with a wrong number of fields,
        no column name or a column the table lacks: one warning each (file and line), skipped.
    """
    by_name = {t.name: t for t in tables}
    out: list[ColumnDoc] = []
    for path in sorted(folder.glob("*.csv"), key=lambda p: p.name.casefold()):
        table_name = _match_name(path.stem, by_name)
        if table_name is None:
            warn(f"{path}: no table {path.stem!r} in the source; file skipped")
            continue
        try:
            text = read_text(path)
        except OSError as exc:
            warn(f"{path}: cannot be read ({exc.strerror or exc}); file skipped")
            continue
        out.extend(_bird_rows(path, text, by_name[table_name]))
    return out


def _bird_rows(path: Path, text: str, table: TableInfo) -> list[ColumnDoc]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = [_clean(h).casefold() for h in next(reader)]
    except (StopIteration, csv.Error):
        warn(f"{path}:1: empty or unreadable data dictionary; file skipped")
        return []
    index = {name: header.index(name) for name in BIRD_COLUMNS if name in header}
    if "original_column_name" not in index:
        warn(f"{path}:1: the header has no original_column_name column (expected {', '.join(BIRD_COLUMNS)}); "
             f"file skipped")
        return []
    out: list[ColumnDoc] = []
    column_names = [c.name for c in table.columns]
    while True:
        line = reader.line_num + 1  # a row's first line (a quoted field may span several)
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            warn(f"{path}:{line}: malformed row ({exc}); row skipped")
            continue
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            warn(f"{path}:{line}: {len(row)} fields where the header has {len(header)}; row skipped")
            continue

        def cell(name: str, row: list[str] = row) -> str:
            return _clean(row[index[name]]) if name in index else ""

        raw = cell("original_column_name")
        if not raw:
            warn(f"{path}:{line}: no original_column_name; row skipped")
            continue
        column = _match_name(raw, column_names)
        if column is None:
            warn(f"{path}:{line}: table {table.name!r} has no column {raw!r}; row skipped")
            continue
        label = cell("column_name")
        description = cell("column_description")
        value_text = row[index["value_description"]] if "value_description" in index else ""
        values, note = parse_value_description(value_text)
        out.append(ColumnDoc(
            table=table.name, column=column, location=DocLocation(str(path), line, "dictionary"),
            label=label if label and label.casefold() != column.casefold() else None,
            description=description or None, data_format=cell("data_format") or None,
            values=tuple(values), note=note,
        ))
    return out


# --- DDL comments -----------------------------------------------------------------------------------

def comment_docs(tables: Sequence[TableInfo], location: str) -> list[ColumnDoc]:
    """Statements from the table and column comments the connector read (SQLite DDL comments,
    SQLAlchemy-reflected comments such as PostgreSQL ``COMMENT ON``).

    Args:
        tables: the source's tables (their ``comment`` and their columns' ``comment``).
        location: the source location (path or URL without password) named in each statement.

    Returns:
        One :class:`ColumnDoc` per comment; a column comment's code list is parsed like a value
        description (``-- 'A' = active; 'B' = blocked``).
    """
    out: list[ColumnDoc] = []
    for table in tables:
        if table.comment:
            out.append(ColumnDoc(table.name, None, DocLocation(location, None, "comment"),
                                 description=_clean(table.comment)))
        for col in table.columns:
            if not col.comment:
                continue
            values, note = parse_value_description(col.comment)
            out.append(ColumnDoc(table.name, col.name, DocLocation(location, None, "comment"),
                                 description=_clean(col.comment), values=tuple(values)))
    return out


# --- dbt --------------------------------------------------------------------------------------------

_REF = re.compile(r"""^\s*(?:ref|source)\(\s*(?:['"][^'"]+['"]\s*,\s*)?['"](?P<name>[^'"]+)['"]\s*\)\s*$""")


def read_dbt(path: Path, tables: Sequence[TableInfo]) -> list[ColumnDoc]:
    """Read the ``models:`` (and ``sources: … tables:``) of dbt property files.

    Args:
        path: one ``.yml``/``.yaml`` file or a folder searched recursively (``target/``,
            ``dbt_packages/`` and hidden folders are skipped).
        tables: the source's tables; a model is matched to the table of the same name.

    Returns:
        One :class:`ColumnDoc` per documented model and column with its description and its
        generic tests (``not_null``, ``unique``, ``accepted_values`` → values, ``relationships`` →
        references). A model or column the source lacks, or an unparsable file: a warning naming
        the file and line, skipped.

    Raises:
        ConfigurationError: PyYAML is not installed (``pip install 'evoonto[dbt]'``).
    """
    from evoonto.optional import require

    yaml = require("yaml")
    files = [path] if path.is_file() else sorted(
        p for p in path.rglob("*") if p.suffix in _DBT_SUFFIXES and p.is_file()
        and not any(part.startswith(".") or part in ("target", "dbt_packages", "dbt_modules")
                    for part in p.relative_to(path).parts[:-1]))
    by_name = {t.name: t for t in tables}
    out: list[ColumnDoc] = []
    for file in files:
        try:
            text = read_text(file)
            node = yaml.compose(text)
        except OSError as exc:
            warn(f"{file}: cannot be read ({exc.strerror or exc}); file skipped")
            continue
        except yaml.YAMLError as exc:
            marked = isinstance(exc, yaml.MarkedYAMLError)  # a ReaderError (bad bytes) has no mark
            mark, problem = (exc.problem_mark, exc.problem) if marked else (None, exc)
            warn(f"{file}:{(mark.line + 1) if mark else 1}: not valid YAML ({problem}); file skipped")
            continue
        except RecursionError:
            warn(f"{file}: YAML nested too deeply to be read; file skipped")
            continue
        if node is None or not isinstance(node, yaml.MappingNode):
            continue
        top = _mapping(node)
        models = list(_sequence(top.get("models")))
        for src in _sequence(top.get("sources")):
            models.extend(_sequence(_mapping(src).get("tables")))
        for model in models:
            out.extend(_dbt_model(file, model, by_name, yaml))
    return out


class _YamlNode(Protocol):
    """A node of PyYAML's ``yaml.compose`` (``yaml.nodes.Node``; PyYAML ships no types): ``value`` is
    a list of ``(key node, value node)`` pairs (mapping), a list of nodes (sequence) or a string (scalar)."""

    value: Any


def _mapping(node: _YamlNode | None) -> dict[str, Any]:
    """A YAML mapping node as ``{key: value node}`` (non-mapping → ``{}``)."""
    value = node.value if node is not None else None
    if not isinstance(value, list) or not all(isinstance(v, tuple) for v in value):
        return {}
    return {str(k.value): v for k, v in value}


def _sequence(node: _YamlNode | None) -> list[Any]:
    value = node.value if node is not None else None
    return value if isinstance(value, list) and not (value and isinstance(value[0], tuple)) else []


def _scalar(node: _YamlNode | None) -> str | None:
    if node is None or isinstance(node.value, list):
        return None
    return _clean(node.value)


def _dbt_model(file: Path, node: Any, by_name: dict[str, TableInfo], yaml: Any) -> list[ColumnDoc]:
    model = _mapping(node)
    name = _scalar(model.get("name"))
    line = node.start_mark.line + 1
    if not name:
        warn(f"{file}:{line}: a model without a name; skipped")
        return []
    table_name = _match_name(name, by_name)
    if table_name is None:
        warn(f"{file}:{line}: model {name!r} is no table of the source; skipped")
        return []
    table = by_name[table_name]
    out = [ColumnDoc(table.name, None, DocLocation(str(file), line, "dbt"),
                     description=_scalar(model.get("description")) or None)]
    for col_node in _sequence(model.get("columns")):
        col = _mapping(col_node)
        col_line = col_node.start_mark.line + 1
        raw = _scalar(col.get("name"))
        if not raw:
            warn(f"{file}:{col_line}: a column without a name; skipped")
            continue
        column = _match_name(raw, [c.name for c in table.columns])
        if column is None:
            warn(f"{file}:{col_line}: table {table.name!r} has no column {raw!r}; skipped")
            continue
        not_null = unique = False
        values: list[ValueMeaning] = []
        references: tuple[str, str] | None = None
        for test in [*_sequence(col.get("tests")), *_sequence(col.get("data_tests"))]:
            test_name = _scalar(test)
            args: dict[str, Any] = {}
            if test_name is None:
                entries = _mapping(test)
                if len(entries) != 1:
                    continue
                test_name, arg_node = next(iter(entries.items()))
                args = _mapping(arg_node)
                args = {**args, **_mapping(args.get("arguments"))}
            test_name = test_name.split(".")[-1]
            if test_name == "not_null":
                not_null = True
            elif test_name == "unique":
                unique = True
            elif test_name == "accepted_values":
                values.extend(ValueMeaning(v, None, True) for v in
                              (_scalar(item) for item in _sequence(args.get("values"))) if v)
            elif test_name == "relationships":
                target, fld = _scalar(args.get("to")) or "", _scalar(args.get("field")) or ""
                ref = _REF.match(target)
                parent = _match_name(ref.group("name") if ref else target, by_name)
                if parent is None or not fld:
                    warn(f"{file}:{col_line}: relationships test of {table.name}.{column} names "
                         f"{target or '?'}.{fld or '?'}, no table of the source; test skipped")
                    continue
                parent_col = _match_name(fld, [c.name for c in by_name[parent].columns])
                if parent_col is None:
                    warn(f"{file}:{col_line}: relationships test of {table.name}.{column}: table {parent!r} has no "
                         f"column {fld!r}; test skipped")
                    continue
                references = (parent, parent_col)
        out.append(ColumnDoc(table.name, column, DocLocation(str(file), col_line, "dbt"),
                             description=_scalar(col.get("description")) or None, values=tuple(values),
                             not_null=not_null, unique=unique, references=references))
    return out


# --- Spider-style tables.json ------------------------------------------------------------------------

def read_tables_json(path: Path, tables: Sequence[TableInfo], db_id: str) -> list[ColumnDoc]:
    """Readable names (and descriptions, where the file has ``table_descriptions`` /
    ``column_descriptions`` lists parallel to the names) of database ``db_id`` in a Spider-style
    ``tables.json``.

    Returns:
        One :class:`ColumnDoc` per table and column whose readable name differs from the raw name
        or that has a description; a file that is not such a list: one warning, nothing read.
    """
    try:
        data = json.loads(read_text(path))
    except (OSError, ValueError) as exc:
        warn(f"{path}: not a readable tables.json ({exc}); skipped")
        return []
    except RecursionError:
        warn(f"{path}: not a readable tables.json (JSON nested too deeply); skipped")
        return []
    entries = data if isinstance(data, list) else [data]
    entry = next((e for e in entries if isinstance(e, dict) and e.get("db_id") == db_id), None)
    if entry is None:
        return []
    by_name = {t.name: t for t in tables}
    try:
        raw_tables = list(entry["table_names_original"])
        nice_tables = list(entry.get("table_names") or raw_tables)
        raw_columns = [(int(t), str(c)) for t, c in entry["column_names_original"]]
        nice_columns = [str(c) for _, c in (entry.get("column_names") or entry["column_names_original"])]
    except (KeyError, TypeError, ValueError) as exc:
        warn(f"{path}: database {db_id!r} lacks table_names_original/column_names_original ({exc}); skipped")
        return []
    table_desc = list(entry.get("table_descriptions") or [])
    column_desc = list(entry.get("column_descriptions") or [])
    loc = DocLocation(str(path), None, "tables.json")
    out: list[ColumnDoc] = []
    for i, raw in enumerate(raw_tables):
        name = _match_name(str(raw), by_name)
        if name is None:
            warn(f"{path}: table {raw!r} of {db_id!r} is not in the source; skipped")
            continue
        nice = _clean(nice_tables[i]) if i < len(nice_tables) else ""
        desc = _clean(table_desc[i]) if i < len(table_desc) else ""
        if desc or (nice and nice.casefold() != name.casefold()):
            out.append(ColumnDoc(name, None, loc, label=nice if nice.casefold() != name.casefold() else None,
                                 description=desc or None))
    for j, (t_index, raw) in enumerate(raw_columns):
        if t_index < 0 or t_index >= len(raw_tables):
            continue
        name = _match_name(str(raw_tables[t_index]), by_name)
        if name is None:
            continue
        column = _match_name(raw, [c.name for c in by_name[name].columns])
        if column is None:
            warn(f"{path}: table {name!r} has no column {raw!r}; skipped")
            continue
        nice = _clean(nice_columns[j]) if j < len(nice_columns) else ""
        desc = _clean(column_desc[j]) if j < len(column_desc) else ""
        label = nice if nice and nice.casefold() != column.casefold().replace("_", " ") else None
        if label or desc:
            out.append(ColumnDoc(name, column, loc, label=label, description=desc or None))
    return out


# --- discovery ------------------------------------------------------------------------------------------

def find_documentation(location: str | Path | None, *, extra: Sequence[str | Path] = ()) -> list[tuple[str, Path]]:
    """Documentation files that belong to the source at ``location``.

    Looked for beside a database file ``db.sqlite`` (and inside a source folder): a
    ``database_description/`` folder (BIRD), a ``tables.json``, and dbt property files (a
    ``dbt_project.yml`` folder's ``models/``, or ``schema.yml`` / ``_models.yml`` / ``*.yml``
    files holding ``models:`` beside the database). ``extra`` adds paths given explicitly
    (a dbt project or property file, a dictionary folder, a tables.json).

    Returns:
        ``[(kind, path)]`` with kind ``"dictionary"``, ``"dbt"`` or ``"tables.json"``, in a stable order.
    """
    found: list[tuple[str, Path]] = []
    places: list[Path] = []
    if location is not None and "://" not in str(location):
        loc = Path(location).expanduser()
        if loc.is_file():
            places.append(loc.parent)
        elif loc.is_dir():
            places.append(loc)
    elif location is not None and str(location).startswith("sqlite:///"):
        places.append(Path(str(location)[len("sqlite:///"):]).parent)
    for place in places:
        if (place / DICTIONARY_DIR).is_dir():
            found.append(("dictionary", place / DICTIONARY_DIR))
        if (place / "tables.json").is_file():
            found.append(("tables.json", place / "tables.json"))
        if (place / "dbt_project.yml").is_file():
            found.append(("dbt", place / "models" if (place / "models").is_dir() else place))
        else:
            found.extend(("dbt", p) for p in sorted(place.glob("*.y*ml")) if _holds_models(p))
    for path in map(Path, extra):
        if path.is_dir() and (path / "dbt_project.yml").is_file():
            found.append(("dbt", path / "models" if (path / "models").is_dir() else path))
        elif path.is_dir() and (path.name == DICTIONARY_DIR or any(path.glob("*.csv"))):
            found.append(("dictionary", path))
        elif path.suffix == ".json":
            found.append(("tables.json", path))
        else:
            found.append(("dbt", path))
    return list(dict.fromkeys(found))


def _holds_models(path: Path) -> bool:
    """A YAML file beside a database that declares dbt ``models:`` or ``sources:`` (cheap text check)."""
    if path.suffix not in _DBT_SUFFIXES or not path.is_file():
        return False
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return False
    return re.search(r"(?m)^(models|sources):\s*$", head) is not None


def read_documentation(found: Sequence[tuple[str, Path]], tables: Sequence[TableInfo], *, db_id: str,
                       location: str | None = None) -> list[ColumnDoc]:
    """Every statement of the documentation ``found`` (see :func:`find_documentation`), plus the
    connector's table/column comments when ``location`` is given.

    Raises:
        ConfigurationError: a dbt file is found and PyYAML is not installed.
    """
    out: list[ColumnDoc] = comment_docs(tables, location) if location is not None else []
    for kind, path in found:
        if kind == "dictionary":
            out.extend(read_bird_dictionary(path, tables))
        elif kind == "dbt":
            out.extend(read_dbt(path, tables))
        elif kind == "tables.json":
            out.extend(read_tables_json(path, tables, db_id))
    return out
