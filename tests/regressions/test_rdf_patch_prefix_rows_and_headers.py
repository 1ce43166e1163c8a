"""Regression (issue 16, item 4): RDF Patch prefix rows and one header per patch.

The RDF Patch export wrote prefix rows as ``PA csvw <…> .``, which RDF Delta's reader refuses (the
prefix is a string token there: ``PA "csvw" <…> .``, as in the spec's examples), and put all patches
in one file, so a one-patch reader kept only the last ``H id``. Now every patch is complete on its own
(``rdf_patches``; ``export --format patch -o DIR/`` writes one file each) and the single-file output is
one patch: one header, one TX…TC block per version. Readers used here: rdflib's RDF Patch parser (not ours) and the
N-Quads parser of pyoxigraph for every A/D row, plus the row grammar of
https://afs.github.io/rdf-delta/rdf-patch.html (no RDF Delta reader is installable from PyPI, npm or
Debian here: the ``rdf-delta`` PyPI package is only a client, Debian's Jena 4.5 has no jena-rdfpatch).
"""

from __future__ import annotations

import re

import pyoxigraph as ox
import pytest
import rdflib
from fixtures.core_support import finance_workspace, term_patch

from evoonto.cli import main
from evoonto.export import rdf_patches, to_rdf_patch
from evoonto.namespaces import workspace_graph_iri
from evoonto.patch import EVOLVABLE_GRAPHS

# Row grammar (RDF Patch, "Structure"): a keyword, then terms in N-Triples syntax, then " ."
_IRI = r"<[^<>\"{}|^`\\\x00-\x20]*>"
_HEADER = re.compile(rf"H (id|prev) {_IRI} \.")
_PREFIX = re.compile(rf'PA "[A-Za-z][A-Za-z0-9_.-]*" {_IRI} \.')


@pytest.fixture
def ws(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda", "EBITDA"))
    ws.commit(term_patch(ws, "margin", "Margin"))
    ws.record_rejected(term_patch(ws, "nope"))
    return ws


def _check_one_patch(text: str) -> str:
    """The patch's id after checking the spec's row grammar and layout (headers, TX, rows, TC)."""
    lines = text.splitlines()
    ops = [line.split(" ", 1)[0] for line in lines]
    first_tx = ops.index("TX")
    assert set(ops[:first_tx]) <= {"H"} and ops.count("TX") == 1 and ops[-1] == "TC" and ops.count("TC") == 1
    assert sum(line.startswith("H id ") for line in lines) == 1
    assert sum(line.startswith("H prev ") for line in lines) <= 1
    for line, op in zip(lines, ops, strict=True):
        if op == "H":
            assert _HEADER.fullmatch(line), line
        elif op == "PA":
            assert _PREFIX.fullmatch(line), line
        elif op in ("A", "D"):
            quads = list(ox.parse(line[2:], format=ox.RdfFormat.N_QUADS))
            assert len(quads) == 1 and isinstance(quads[0].graph_name, ox.NamedNode), line
        else:
            assert line in ("TX .", "TC ."), line
    return next(line for line in lines if line.startswith("H id "))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_each_patch_stands_alone_and_replays(ws):
    patches = rdf_patches(ws)
    assert [stem.split("-", 1)[0] for stem, _ in patches] == ["0000", "0001", "0002"]  # rejected left out
    ids = [_check_one_patch(text) for _, text in patches]
    assert len(set(ids)) == 3
    ds = rdflib.Dataset()
    for _, text in patches:  # a one-patch reader applies them one by one
        ds.parse(data=text, format="patch")
    for name in EVOLVABLE_GRAPHS:
        got = ds.graph(workspace_graph_iri(name, ws.base_iri))
        assert len(got) == ws.store.count(name), name
    single = to_rdf_patch(ws)  # one file: one patch, one header, one transaction per version
    assert sum(line.startswith("H id ") for line in single.splitlines()) == 1
    assert single.count("TX .") == 3 and single.index("TX .") > single.rindex("H ")


def test_cli_writes_one_file_per_patch(ws, tmp_path):
    out = tmp_path / "patches"
    assert main(["export", "-w", str(ws.path), "--format", "patch", "-o", f"{out}/"]) == 0
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 3 and files[0] == "0000-base.rdfp" and all(f.endswith(".rdfp") for f in files)
    for file in files:
        _check_one_patch((out / file).read_text())
