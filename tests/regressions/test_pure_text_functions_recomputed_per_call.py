"""Regression (issue 19, wide-schema build): pure functions were recomputed on every call with the same
input. A build of the 7,450-column wide schema quoted names 43,113 times through sqlglot's generator
(``quote_identifier``), normalised 299,544 label strings (``normalize``), split 33,088 identifiers
(``split_identifier``) and parsed a template's slot names on each of its renderings, although the
inputs repeat (per-year tables share their column names). Each is now computed once per distinct input
and remembered; the answers stay those of the uncached computation, a returned list is the caller's own,
and invalid input is still refused on every call.
"""

from __future__ import annotations

import pytest
from sqlglot import exp

from evoonto.errors import ReadOnlyViolation, SourceError
from evoonto.sources import guard, quoting
from evoonto.sources.guard import SqlTemplate
from evoonto.sources.quoting import quote_identifier, quote_literal
from evoonto import text as text_module
from evoonto.text import normalize, split_identifier

NAMES = ["Free Meal Count (K-12)", 'say "hi"', "it's", "a]b[c", "back`tick", "select", "naïve café"]
DIALECTS = ["sqlite", "duckdb", "postgres", "mysql", "tsql", None]


def test_quoting_recomputed_per_call_is_computed_once_per_name_and_dialect(monkeypatch):
    quoting._quoted_identifier.cache_clear()
    calls: list[str] = []
    real = exp.to_identifier

    def counting(name, **kw):
        calls.append(name)
        return real(name, **kw)

    monkeypatch.setattr(quoting.exp, "to_identifier", counting)
    for _ in range(3):
        for dialect in DIALECTS:
            for name in NAMES:
                # the same text sqlglot's generator gives, for every dialect
                assert quote_identifier(name, dialect) == real(name, quoted=True).sql(dialect=dialect)
    assert len(calls) == len(NAMES) * len(DIALECTS)  # once per (name, dialect), not once per call


@pytest.mark.parametrize("bad", ["", "a\x00b", None, 3])
def test_quoting_recomputed_per_call_still_refuses_bad_names_every_time(bad):
    for _ in range(2):
        with pytest.raises(SourceError):
            quote_identifier(bad)  # type: ignore[arg-type]


def test_quoting_recomputed_per_call_literals_match_sqlglot():
    for dialect in DIALECTS:
        for text in NAMES + ["O'Brien", "back\\slash"]:
            assert quote_literal(text, dialect) == exp.Literal.string(text).sql(dialect=dialect)
            assert quote_literal(text, dialect) == quote_literal(text, dialect)
    with pytest.raises(SourceError):
        quote_literal("a\x00b")


def test_normalize_recomputed_per_call_gives_the_uncached_answer():
    texts = ["  Café  Owner", "Free Meal Count (K-12)", "ÅNGSTRÖM\tunit", "x" * 500 + " Y"]
    for text in texts * 2:
        assert normalize(text) == text_module._normalize(text)
    assert normalize("  Café  Owner") == "cafe owner"
    assert normalize("x" * 500 + "  Y") == "x" * 500 + " y"  # long texts are normalised, not kept


def test_split_identifier_recomputed_per_call_returns_the_callers_own_list():
    first = split_identifier("Song_release_year")
    assert first == ["Song", "release", "year"]
    first.append("mutated")  # a caller changing its list does not change the next answer
    first[0] = "x"
    assert split_identifier("Song_release_year") == ["Song", "release", "year"]
    assert split_identifier("H1N1_cases") == ["H1N1", "cases"]
    long_name = "_".join(["part"] * 100)
    assert split_identifier(long_name) == ["part"] * 100


def test_template_slots_recomputed_per_call_are_parsed_once_per_text(monkeypatch):
    guard._slot_names.cache_clear()
    guard._check_template.cache_clear()
    calls: list[str] = []
    real = guard._slot_fields

    def counting(text):
        calls.append(text)
        return real(text)

    monkeypatch.setattr(guard, "_slot_fields", counting)
    template = SqlTemplate("SELECT COUNT({col}) FROM {table}")
    for name in NAMES:
        assert template.render("sqlite", col=name, table="t") == (
            f"SELECT COUNT({quote_identifier(name, 'sqlite')}) FROM \"t\"")
    # once for the slot names, once for the shape check of the dialect: not once per rendering
    assert calls.count(template.text) == 2
    with pytest.raises(ValueError):
        template.render("sqlite", col="a")  # a missing slot is still an error on every call
    with pytest.raises(ReadOnlyViolation):
        SqlTemplate("SELECT {col!r} FROM t").slots  # noqa: B018 - a bad field is refused, not cached
