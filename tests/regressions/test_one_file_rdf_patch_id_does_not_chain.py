"""Regression: the one-file RDF Patch (``to_rdf_patch``) had the id ``<B version/N>`` while the per-version
patches of the same history (``rdf_patches``) are ``<B patch/P>``; a later per-version patch names
``H prev <B patch/P>``, so an RDF Delta log holding the one-file patch followed by that patch was broken.
"""

from __future__ import annotations

from evoonto.export import rdf_patches, to_rdf_patch
from fixtures.core_support import finance_workspace, term_patch


def _header(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        if line.startswith("H "):
            _, key, value, _dot = line.split(" ", 3)
            out[key] = value
    return out


def test_one_file_patch_chains_with_the_next_per_version_patch(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda", "EBITDA"))
    one_file = _header(to_rdf_patch(ws))
    ws.commit(term_patch(ws, "margin", "Margin"))
    later = _header(rdf_patches(ws)[-1][1])
    assert later["prev"] == one_file["id"]
    assert one_file["id"].endswith(">") and "/patch/" in one_file["id"]


def test_one_file_patch_of_a_base_only_workspace_is_the_base_and_has_no_self_prev(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    with_base = _header(to_rdf_patch(ws))
    assert with_base["id"] == _header(rdf_patches(ws)[0][1])["id"]  # <B version/0>
    without_base = _header(to_rdf_patch(ws, include_base=False))
    assert "prev" not in without_base  # an empty patch does not name itself as its own parent
