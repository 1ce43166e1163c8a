"""Defect: ``push`` decided whether the remote was empty by counting every named graph at the
endpoint, so against a fresh Virtuoso (whose system graphs hold ~2,500 triples) or any endpoint
holding other data it sent nothing and reported success. It now counts only evoonto's six graphs."""

from __future__ import annotations

import pytest

from evoonto.namespaces import GRAPH_NAMES
from evoonto.remote import RemoteSparqlStore, push
from fixtures.core_support import finance_workspace
from fixtures.remote_support import oxigraph_binary, oxigraph_server, post_update

pytestmark = pytest.mark.slow


@pytest.mark.filterwarnings("ignore:not detected query type:RuntimeWarning", "ignore:unknown query type:RuntimeWarning")
def test_push_ignores_graphs_that_are_not_evoontos(tmp_path):
    if oxigraph_binary() is None:
        pytest.skip("the oxigraph server binary (pip package 'oxigraph') is not installed")
    ws = finance_workspace(tmp_path / "ws")
    with oxigraph_server(tmp_path) as base:
        post_update(f"{base}/update", "INSERT DATA { GRAPH <urn:server:system> { <urn:a> <urn:p> <urn:b> } }")
        remote = RemoteSparqlStore(f"{base}/query", f"{base}/update")
        assert remote.count() == 0
        push(ws, remote)
        for name in GRAPH_NAMES:
            assert remote.count(name) == ws.store.count(name), name
        assert remote.count("content") > 0
