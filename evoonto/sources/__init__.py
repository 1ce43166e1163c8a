"""Read-only data sources: connectors, catalog harvesting, profiling probes, join discovery.

The builder and the agents see data only through this package (DESIGN.md §4; paper §3, the
"probe" step of the builder). Everything here is read-only by construction.

- :func:`open_source` opens a SQLite file, a SQLAlchemy URL, a folder of CSV/Parquet files
  (DuckDB) or a folder of text/markdown documents and returns a :class:`Source`:
  ``tables()``, ``run(sql, *, limit, timeout_ms) -> QueryResult``, ``quote(name)``, ``close()``.
- :func:`harvest` writes a source's catalog (DCAT/CSVW) as an rdflib graph.
- :func:`profile` runs one probe per column and returns :class:`ColumnProfile` objects carrying
  :class:`evoonto.records.Evidence` + :class:`evoonto.records.ProbeActivity`.
- :func:`discover_joins` returns declared and discovered joins with measured inclusion ratios.
- :func:`check_read_only` is the statement guard every query passes.
- :func:`run_probe` is the one probe path (a read-only query → Evidence + probe activity);
  :func:`quote_identifier` / :func:`quote_literal` the one dialect-aware quoting (sqlglot).
- :func:`register_source_kind` adds a kind of source (also via the ``evoonto.sources`` entry-point
  group); :func:`open_source` asks that registry.

Example::

    from evoonto.iris import IriFactory
    from evoonto.records import records_to_graph
    from evoonto.sources import discover_joins, harvest, open_source, profile

    iris = IriFactory("https://example.org/evoonto/demo/")
    with open_source("spider/database/concert_singer/concert_singer.sqlite") as src:
        catalog = harvest(src, iris)                         # rdflib.Graph for evog:catalog
        profiles = profile(src, iris)                        # one ColumnProfile per column
        joins = discover_joins(src, iris)                    # JoinCandidate list
        rows = src.run('SELECT "Name", "Age" FROM singer ORDER BY "Age"', limit=3).rows
    evidence = records_to_graph(r for p in profiles for r in p.records())
"""

from __future__ import annotations

import importlib

from evoonto.sources.base import (
    DEFAULT_LIMIT,
    DEFAULT_TIMEOUT_MS,
    MAX_LIMIT,
    BaseSource,
    ColumnInfo,
    ForeignKey,
    QueryResult,
    Source,
    SourceWarning,
    TableInfo,
)
from evoonto.sources.guard import check_read_only
from evoonto.sources.probe import ProbeRun, run_probe
from evoonto.sources.quoting import quote_identifier, quote_literal, sql_literal
from evoonto.sources.registry import (
    SourceKind,
    open_source,
    open_sources,
    register_source_kind,
    source_kind_of,
    source_kinds,
)

# Heavier modules (rdflib, records) load on first use, so `from evoonto.sources.base import …`
# stays cheap for callers that only run queries.
_LAZY = {
    "harvest": "evoonto.sources.catalog",
    "JoinCandidate": "evoonto.sources.joins",
    "discover_joins": "evoonto.sources.joins",
    "ColumnProfile": "evoonto.sources.profiling",
    "profile": "evoonto.sources.profiling",
}

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_TIMEOUT_MS",
    "MAX_LIMIT",
    "BaseSource",
    "ColumnInfo",
    "ColumnProfile",
    "ForeignKey",
    "JoinCandidate",
    "ProbeRun",
    "QueryResult",
    "Source",
    "SourceKind",
    "SourceWarning",
    "TableInfo",
    "check_read_only",
    "discover_joins",
    "harvest",
    "open_source",
    "open_sources",
    "profile",
    "quote_identifier",
    "quote_literal",
    "register_source_kind",
    "run_probe",
    "source_kind_of",
    "source_kinds",
    "sql_literal",
]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evoonto.sources' has no attribute {name!r}")
