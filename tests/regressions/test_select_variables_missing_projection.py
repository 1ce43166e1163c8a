"""Regression: ``evoonto.sparql_magic._select_variables`` read the projection with
``algebra.get("PV", [])``. rdflib's ``CompValue.get(key, variables=False, errors=False)`` has no
default argument and returns the *key itself* when it is missing, so a SELECT algebra without ``PV``
gave the column names ``['P', 'V']`` instead of "no declared order" (None). Current rdflib always
sets ``PV`` on a SelectQuery, so the defect is latent; the test builds such an algebra directly.
(Found by mypy: ``Argument 2 to "get" of "CompValue" has incompatible type "list[Never]"; expected "bool"``.)"""

from __future__ import annotations

import rdflib.plugins.sparql as rdflib_sparql
from rdflib.plugins.sparql.parserutils import CompValue

from evoonto import sparql_magic


class _Prepared:
    def __init__(self, algebra: CompValue):
        self.algebra = algebra


def test_select_algebra_without_projection_gives_no_variables(monkeypatch):
    monkeypatch.setattr(rdflib_sparql, "prepareQuery", lambda query: _Prepared(CompValue("SelectQuery")))
    assert sparql_magic._select_variables("SELECT * WHERE { ?s ?p ?o }") is None


def test_projection_order_is_kept():
    assert sparql_magic._select_variables("SELECT ?b ?a WHERE { ?a ?p ?b }") == ["b", "a"]
