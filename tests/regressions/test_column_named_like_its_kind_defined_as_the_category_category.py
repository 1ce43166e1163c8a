"""A column named by its kind's own word was defined as "The category category of table products":
the kind's word and the column name one after the other. It is now "The column category of table
products"; other columns keep their kind's word."""

from __future__ import annotations

from evoonto.builder.propose import _definition
from rdflib import URIRef

from evoonto.catalog import ColumnInfo, TableInfo


def _column(name: str, declared_type: str = "TEXT") -> ColumnInfo:
    return ColumnInfo(name=name, iri=URIRef(f"http://example.org/c/{name}"), declared_type=declared_type)


def _table(name: str, *columns: ColumnInfo) -> TableInfo:
    return TableInfo(name=name, iri=URIRef(f"http://example.org/t/{name}"), row_count=3, columns=columns)


def test_column_named_category_is_not_the_category_category():
    table = _table("products", _column("category"))
    text = _definition(table, table.columns[0], "Category", None)
    assert text == "The column category of table products (TEXT)."


def test_time_attribute_named_time_attribute():
    table = _table("events", _column("time_attribute"))
    assert _definition(table, table.columns[0], "TimeDimension", None).startswith(
        "The column time_attribute of table events")


def test_other_columns_keep_their_kind_word():
    table = _table("products", _column("category_code"), _column("kind"))
    assert _definition(table, table.columns[0], "Category", None).startswith(
        "The category category_code of table products")
    assert _definition(table, table.columns[1], "Category", None).startswith("The category kind of table")


def test_column_named_like_the_last_word_of_its_kind():
    """Review of the first fix: a Metric column named ``measure`` was still "The numeric measure measure"."""
    table = _table("readings", _column("measure", "REAL"))
    assert _definition(table, table.columns[0], "Metric", None) == "The column measure of table readings (REAL)."
