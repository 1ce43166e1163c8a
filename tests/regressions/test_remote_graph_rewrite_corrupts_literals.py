"""``RemoteSparqlStore`` moves ``evog:`` graph names to the endpoint's (``<base>graph/…``) in the query
text. It did so with a regular expression over the whole text, so the same IRI text inside a string
literal was rewritten too: a query filtering on that string (or an update storing it) silently
asked for / wrote another value. Only IRI tokens are moved now (rdflib's SPARQL terminals find the
literals and comments to leave alone). Checked by running both texts on pyoxigraph: the published
text on the published graphs must answer exactly as the local text on the local graphs."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from evoonto.namespaces import EVOG, PREFIXES
from evoonto.remote import RemoteSparqlStore
from evoonto.store import QueryError

BASE = "https://example.org/evoonto/remote-rewrite/"
LOCAL = f"<{EVOG}content>"  # the text that must stay as written inside literals and comments
PROLOGUE = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())


def _stores() -> tuple[ox.Store, ox.Store]:
    """The same two labelled things in ``evog:content`` (local) and ``<base>graph/content`` (published)."""
    local, published = ox.Store(), ox.Store()
    for store, graph in ((local, f"{EVOG}content"), (published, f"{BASE}graph/content")):
        for thing, label in (("a", LOCAL), ("b", "plain")):
            store.add(ox.Quad(ox.NamedNode(f"https://example.org/{thing}"),
                              ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"),
                              ox.Literal(label), ox.NamedNode(graph)))
    return local, published


def _answers(store: ox.Store, text: str) -> list[tuple[str, ...]]:
    return sorted(tuple(str(v) for v in row) for row in store.query(text))


def test_remote_graph_rewrite_corrupts_literals_in_queries():
    remote = RemoteSparqlStore("http://127.0.0.1:9/query", base_iri=BASE)
    local, published = _stores()
    queries = [
        'SELECT ?s WHERE { GRAPH evog:content { ?s rdfs:label ?l } FILTER(?l = "%s") }' % LOCAL,
        "SELECT ?s WHERE { GRAPH %s { ?s rdfs:label ?l } FILTER(?l = '''%s''') }" % (LOCAL, LOCAL),
        'SELECT ?s ?l WHERE {  # a comment naming %s and a quote "\n GRAPH %s { ?s rdfs:label ?l } }'
        % (LOCAL, LOCAL),
        'SELECT ?s WHERE { GRAPH ?g { ?s rdfs:label "%s" } FILTER(?g = %s) }' % (LOCAL, LOCAL),
        # a \\u escape is expanded first (as SPARQL does before parsing): the literal is still found
        'SELECT ?s WHERE { GRAPH evog:content { ?s rdfs:label ?l } FILTER(?l = "\\u003C%s") }' % LOCAL[1:],
    ]
    for query in queries:
        expected = _answers(local, PROLOGUE + query)
        assert expected, query  # the local query finds something, so equal answers mean something
        assert _answers(published, remote._published_text(query)) == expected, query


def test_remote_graph_rewrite_corrupts_literals_in_updates():
    remote = RemoteSparqlStore("http://127.0.0.1:9/query", "http://127.0.0.1:9/update", base_iri=BASE)
    _local, published = _stores()
    update = 'INSERT DATA { GRAPH evog:content { <https://example.org/c> rdfs:label "%s" } }' % LOCAL
    published.update(remote._published_text(update))
    stored = f"SELECT ?l WHERE {{ GRAPH <{BASE}graph/content> {{ <https://example.org/c> ?p ?l }} }}"
    assert _answers(published, stored) == [(str(ox.Literal(LOCAL)),)]


def test_remote_graph_rewrite_keeps_a_prefix_named_in_a_literal_from_hiding_the_standard_prefixes():
    """A literal mentioning ``PREFIX evog:`` is no declaration: the standard prefixes are still added."""
    remote = RemoteSparqlStore("http://127.0.0.1:9/query", base_iri=BASE)
    local, published = _stores()
    query = 'SELECT ?s WHERE { GRAPH evog:content { ?s rdfs:label ?l } FILTER(?l != "PREFIX evog: <x>") }'
    assert _answers(published, remote._published_text(query)) == _answers(local, PROLOGUE + query)


def test_remote_graph_rewrite_refuses_a_malformed_escape():
    remote = RemoteSparqlStore("http://127.0.0.1:9/query", base_iri=BASE)
    with pytest.raises(QueryError, match="code point"):
        remote._published_text('SELECT ?s WHERE { ?s ?p "\\UFFFFFFFF" }')
