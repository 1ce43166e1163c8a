"""Structure item of issue 13: a version is a value.

``Workspace.commit`` used to apply a patch to the active Ontology's store in place and bump its
version number, and ``replace_base`` swapped the store under the same Ontology object; caches had to
key on ``id(store)`` to notice. Now every version is a new Ontology: the object a caller holds keeps
the content and number of its version, and a refused patch leaves the active version untouched.
"""

from __future__ import annotations

import pytest

from evoonto.errors import EvoontoError
from evoonto.tools.toolkit import OntologyTools
from fixtures.core_support import finance_workspace, term_patch


def test_commit_makes_a_new_ontology_and_keeps_the_old_one(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    before = ws.ontology
    content_before = set(before.graph("content"))
    tools_before = OntologyTools(before)
    hits_before = tools_before.browse("ebitda")
    version = ws.commit(term_patch(ws, "ebitda", label="EBITDA"))
    assert ws.ontology is not before
    assert (before.version, ws.ontology.version) == (version - 1, version)
    assert set(before.graph("content")) == content_before  # the parent version is unchanged
    assert set(ws.ontology.graph("content")) > content_before
    assert tools_before.browse("ebitda") == hits_before
    assert any(h["label"] == "EBITDA" for h in OntologyTools(ws.ontology).browse("ebitda"))


def test_replace_base_makes_a_new_ontology(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    before = ws.ontology
    ws.replace_base({"content": before.graph("content")})
    assert ws.ontology is not before and ws.ontology.version == 0


def test_a_refused_patch_leaves_the_active_version_untouched(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    active = ws.ontology
    content = set(active.graph("content"))
    ws.commit(term_patch(ws, "ebitda"))
    with pytest.raises(EvoontoError):
        ws.commit(term_patch(ws, "ebitda"))  # changes nothing: refused
    assert set(active.graph("content")) == content
