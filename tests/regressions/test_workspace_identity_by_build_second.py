"""Issue 34 item 6: a remote store told "another workspace with the same base IRI" from "this
workspace" by the base's build time (``prov:generatedAtTime``, whole seconds), so two workspaces
built in the same second looked like one and the push was refused with the wrong reason (or, with
no patches on the remote, accepted onto the other workspace's graphs). Each workspace now has an
identity minted at ``init`` and recorded in its base, and the remote store compares that."""

from __future__ import annotations

import datetime as dt

import pytest

from evoonto import history
from evoonto.remote import _other_workspace
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace

_SAME_SECOND = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)


@pytest.fixture
def frozen_clock(monkeypatch):
    """Every base made in this test is stamped with the same second."""
    monkeypatch.setattr(history, "now_utc", lambda: _SAME_SECOND)


def test_workspaces_made_in_the_same_second_have_different_identities(tmp_path, frozen_clock):
    one, two = finance_workspace(tmp_path / "one"), finance_workspace(tmp_path / "two")
    assert one.base_iri == two.base_iri
    assert one.identity is not None and one.identity.startswith("urn:uuid:")
    assert two.identity is not None and one.identity != two.identity
    # recorded in the base: it survives reopening, and a commit does not change it
    assert Workspace.open(one.path).identity == one.identity
    assert "urn:uuid:" in (one.path / "base.trig").read_text()


def test_a_store_holding_one_workspace_is_not_taken_for_the_other(tmp_path, frozen_clock):
    one, two = finance_workspace(tmp_path / "one"), finance_workspace(tmp_path / "two")
    # the embedded store answers the same SPARQL as a remote one bound to the base IRI
    assert _other_workspace(one, one.store) is None  # type: ignore[arg-type]
    other = _other_workspace(two, one.store)  # type: ignore[arg-type]
    assert other is not None and str(one.identity) in other


@pytest.mark.slow
def test_push_refuses_a_workspace_built_in_the_same_second(tmp_path, frozen_clock):
    from fixtures.remote_support import oxigraph_binary, oxigraph_server

    from evoonto.remote import RemoteSparqlStore, RemoteStoreError, push

    if oxigraph_binary() is None:
        pytest.skip("the oxigraph server binary (pip package 'oxigraph') is not installed")
    one, two = finance_workspace(tmp_path / "one"), finance_workspace(tmp_path / "two")
    (tmp_path / "server").mkdir()
    with oxigraph_server(tmp_path / "server") as base:
        remote = RemoteSparqlStore(f"{base}/query", f"{base}/update")
        assert push(one, remote) == 0
        with pytest.raises(RemoteStoreError, match="another workspace"):
            push(two, RemoteSparqlStore(f"{base}/query", f"{base}/update"))
        assert push(one, RemoteSparqlStore(f"{base}/query", f"{base}/update")) == 0
