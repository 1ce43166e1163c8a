"""Regression (issue 19): the builder's join discovery (``_name_candidates``) visited every column of the
schema for every key-like column, scoring each column name once per key: on wide schemas that repeat
names across per-year tables this was a large share of the build. Keys are now scored once per distinct
column name (rapidfuzz ``process.extract`` with a score cutoff for the fuzzy part) and only matching
columns are visited; the candidates, their scores and their order must be exactly the old ones."""

from __future__ import annotations

import random

from evoonto.sources.base import ColumnInfo, TableInfo
from evoonto.sources.joins import _compatible, _key_columns, _name_candidates, _rank, name_score


class _Tables:
    def __init__(self, tables: list[TableInfo]) -> None:
        self._tables = tables

    def tables(self) -> list[TableInfo]:
        return self._tables


def _pairwise(source: _Tables, declared: set) -> list:
    """The previous implementation: every key against every column of every other table."""
    from evoonto.sources.joins import JoinCandidate

    tables = [t for t in source.tables() if t.kind != "view"]
    by_name = {t.name: t for t in tables}
    found: dict = {}
    for right in tables:
        for key in _key_columns(right):
            for left in tables:
                if left.name == right.name:
                    continue
                for column in left.columns:
                    if (left.name, column.name, right.name, key.name) in declared:
                        continue
                    score = name_score(column.name, right.name, key.name, right_is_key=bool(right.primary_key))
                    if score <= 0 or (score < 1.0 and left.primary_key == (column.name,)):
                        continue
                    if score < 1.0 and not _compatible(column, key):
                        continue
                    pair = frozenset({(left.name, column.name), (right.name, key.name)})
                    candidate = JoinCandidate(left.name, (column.name,), right.name, (key.name,), declared=False,
                                              origin="source", name_score=score)
                    kept = found.setdefault(pair, [])
                    if not kept or _rank(candidate, by_name) > _rank(kept[0], by_name):
                        kept[:] = [candidate]
                    elif _rank(candidate, by_name) == _rank(kept[0], by_name) and candidate not in kept:
                        kept.append(candidate)
    reverse = {frozenset({(a, b), (c, d)}) for a, b, c, d in declared}
    return [c for p, kept in found.items() if p not in reverse for c in kept]


WORDS = ["singer", "singers", "battle", "city", "cities", "address", "addresses", "order", "item", "code",
         "id", "no", "number", "name", "year", "station", "stations", "element", "adress", "TV", "channel"]


def _schema(seed: int) -> _Tables:
    rng = random.Random(seed)
    tables = []
    for t in range(14):
        name = "_".join(rng.sample(WORDS, rng.randint(1, 2))) + ("" if t % 3 else f"_{1990 + t}")
        names: list[str] = []
        while len(names) < rng.randint(3, 9):
            column = "_".join(rng.sample(WORDS, rng.randint(1, 3)))
            column = column.upper() if rng.random() < 0.2 else column
            if column not in names:
                names.append(column)
        columns = tuple(ColumnInfo(c, rng.choice(["INTEGER", "TEXT", "", "REAL"])) for c in names)
        key = (names[0],) if rng.random() < 0.4 else ()
        tables.append(TableInfo(f"{name}_{t}" if t % 2 else name, columns, primary_key=key,
                                kind="view" if rng.random() < 0.1 else "table"))
    return _Tables(tables)


def test_name_candidates_pair_every_key_with_every_column_same_result():
    compared = 0
    for seed in range(40):
        source = _schema(seed)
        tables = [t for t in source.tables() if t.kind != "view"]
        declared = {(tables[0].name, tables[0].columns[0].name, tables[1].name, tables[1].columns[0].name)}
        expected = _pairwise(source, declared)
        got = _name_candidates(source, declared)  # type: ignore[arg-type]
        assert got == expected, seed
        assert [c.name_score for c in got] == [c.name_score for c in expected]
        compared += len(expected)
    assert compared > 200  # the grid produces many candidates of every score kind
