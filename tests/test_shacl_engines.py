"""The shapes run unchanged in three SHACL engines with the same results: pySHACL, Apache Jena SHACL and
shacl-engine (issue 31: portable shapes).

Each engine gets the Turtle export of a workspace (vocabulary + shapes + catalog + content + tools, one
document) as both its shapes graph and its data graph, so every engine sees the vocabulary's
``rdfs:subClassOf`` axioms wherever it looks for them (SHACL reads class membership in the data graph;
shacl-engine reads the class hierarchy in the shapes graph). A built workspace conforms in all three (no
false violation), and a set of injected violations is reported on the same focus nodes by the same shapes
in all three.

Engines that are not installed are skipped with the reason: Jena SHACL comes from Debian's
``libapache-jena-java`` (4.5), shacl-engine from npm (``.ci/run`` installs ``shacl-engine rdf-ext n3`` into
``tests/.node``; or set ``$EVOONTO_SHACL_ENGINE_PREFIX`` to an npm prefix holding them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
import rdflib
from rdflib.namespace import OWL, PROV, RDF, SH, SKOS

from evoonto.export import to_turtle
from evoonto.namespaces import EVO

pytestmark = pytest.mark.slow

HERE = Path(__file__).parent
JENA_JARS = Path("/usr/share/java")
#: Jars Jena 4.5 needs on Debian (its package's dependencies), without the competing SLF4J bindings.
_JENA_NEEDS = ("jena-", "commons-cli", "commons-codec", "commons-compress", "commons-csv", "commons-io",
               "commons-lang3", "dexx", "gson", "guava", "httpclient", "httpcore", "jackson-core",
               "jackson-databind", "jackson-annotations", "jsonld-java", "jakarta.json", "javax.json",
               "protobuf", "slf4j-api", "slf4j-nop", "thrift", "titanium-json-ld")


Result = set[tuple[str, str]]
"""``{(focus node IRI, source shape IRI)}`` of a validation report."""


def _node_prefix() -> Path | None:
    for candidate in (os.environ.get("EVOONTO_SHACL_ENGINE_PREFIX"), str(HERE / ".node")):
        if candidate and (Path(candidate) / "node_modules" / "shacl-engine").is_dir():
            return Path(candidate)
    return None


def _jena_classpath(tmp: Path) -> str | None:
    """A class path running Jena's ``shacl.shacl`` command from Debian's jars, or None.

    Debian's jena-core moves the bundled Xerces classes to the package ``xerces`` but leaves their
    message files under ``org/apache/jena/ext/xerces``; without them Xerces fails at start-up
    ("internal error"). The files are copied from the jar itself to where the classes look.
    """
    core = JENA_JARS / "jena-core.jar"
    if shutil.which("java") is None or not (JENA_JARS / "jena-shacl.jar").exists() or not core.exists():
        return None
    messages = tmp / "jena-xerces-messages"
    if not messages.exists():
        with zipfile.ZipFile(core) as jar:
            for name in jar.namelist():
                if name.startswith("org/apache/jena/ext/xerces/") and name.endswith(".properties"):
                    target = messages / "xerces" / name[len("org/apache/jena/ext/xerces/"):]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(jar.read(name))
    jars = sorted(str(p) for p in JENA_JARS.glob("*.jar")  # the unversioned names (links to the versioned)
                  if p.name.startswith(_JENA_NEEDS) and re.search(r"-\d", p.stem) is None)
    return os.pathsep.join([str(messages), *jars])


def _report_pairs(report: rdflib.Graph) -> Result:
    return {(str(report.value(r, SH.focusNode)), str(report.value(r, SH.sourceShape)))
            for r in report.subjects(RDF.type, SH.ValidationResult)}


def run_pyshacl(ttl: Path) -> Result:
    import pyshacl

    graph = rdflib.Graph().parse(ttl, format="turtle")
    conforms, report, _ = pyshacl.validate(graph, shacl_graph=graph, inference="none")
    pairs = _report_pairs(report)
    assert conforms == (not pairs)
    return pairs


def run_jena(ttl: Path, classpath: str) -> Result:
    out = subprocess.run(["java", "-cp", classpath, "shacl.shacl", "validate", "--shapes", str(ttl),
                          "--data", str(ttl)], capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return _report_pairs(rdflib.Graph().parse(data=out.stdout, format="turtle"))


def run_shacl_engine(ttl: Path, prefix: Path, tmp: Path) -> Result:
    # ES modules resolve packages from the script's own folder upwards (NODE_PATH is not read)
    folder = tmp / "shacl-engine-run"
    folder.mkdir(exist_ok=True)
    script = folder / "validate.mjs"
    shutil.copyfile(HERE / "fixtures" / "shacl_engine_validate.mjs", script)
    if not (folder / "node_modules").exists():
        (folder / "node_modules").symlink_to(prefix / "node_modules")
    out = subprocess.run(["node", str(script), str(ttl), str(ttl)], capture_output=True, text=True,
                         timeout=1200, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    pairs = {(r["focus"], r["shape"]) for r in report["results"]}
    assert report["conforms"] == (not pairs)
    return pairs


def _engines(tmp: Path) -> dict:
    engines = {"pyshacl": run_pyshacl}
    classpath = _jena_classpath(tmp)
    if classpath:
        engines["jena"] = lambda ttl: run_jena(ttl, classpath)
    prefix = _node_prefix()
    if prefix is not None and shutil.which("node"):
        engines["shacl-engine"] = lambda ttl: run_shacl_engine(ttl, prefix, tmp)
    return engines


def _require_all(engines: dict) -> None:
    missing = [n for n in ("jena", "shacl-engine") if n not in engines]
    if missing:
        pytest.skip(f"SHACL engine(s) not installed: {', '.join(missing)} (see this module's docstring)")


def _built_export(tmp: Path, db: Path, name: str) -> Path:
    from evoonto.builder import build, write_workspace
    from evoonto.workspace import Workspace

    write_workspace(build([str(db)], None, base_iri=f"https://example.org/{name}/"), tmp / name)
    ttl = tmp / f"{name}.ttl"
    ttl.write_bytes(to_turtle(Workspace.open(tmp / name).ontology))
    return ttl


def _inject_violations(ttl: Path, out: Path) -> Result:
    """Break five rules on distinct nodes; returns the (focus, kind) notes for the failure message."""
    g = rdflib.Graph().parse(ttl, format="turtle")
    relations = sorted(g.subjects(RDF.type, EVO.Relation), key=str)
    mappings = sorted((m for m in g.subjects(RDF.type, EVO.Mapping) if g.value(m, EVO.column) is not None), key=str)
    terms = sorted(g.subjects(RDF.type, EVO.Term), key=str)
    assert len(relations) >= 2 and len(mappings) >= 1 and len(terms) >= 2
    notes: Result = set()
    # a relation whose annotated property is not its type's direct property
    rel = relations[0]
    g.set((rel, OWL.annotatedProperty, SKOS.narrower))
    notes.add((str(rel), "annotated property"))
    # a relation whose direct triple is missing
    rel = relations[1]
    source, prop, target = (g.value(rel, p) for p in (OWL.annotatedSource, OWL.annotatedProperty, OWL.annotatedTarget))
    g.remove((source, prop, target))
    notes.add((str(rel), "direct triple"))
    # a mapping pointing at a column of another table
    mapping = mappings[0]
    other = next(c for c in g.subjects(RDF.type, rdflib.URIRef("http://www.w3.org/ns/csvw#Column"))
                 if g.value(c, rdflib.URIRef("http://purl.org/dc/terms/isPartOf")) != g.value(mapping, EVO.table))
    g.set((mapping, EVO.column, other))
    notes.add((str(mapping), "column of another table"))
    # a Term derived from something that is not a prov:Entity, and a Term without its preferred label
    g.add((terms[0], PROV.wasDerivedFrom, rdflib.URIRef("https://example.org/not-an-entity")))
    notes.add((str(terms[0]), "derived from a non-entity"))
    g.remove((terms[1], SKOS.prefLabel, None))
    notes.add((str(terms[1]), "no prefLabel"))
    g.serialize(out, format="turtle")
    return notes


@pytest.fixture(scope="module")
def engine_tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("shacl-engines")


def test_injected_violations_reported_alike_by_every_engine(engine_tmp):
    engines = _engines(engine_tmp)
    _require_all(engines)
    db = Path(__file__).parents[1] / "evoonto" / "data" / "concert_singer" / "concert_singer.sqlite"
    clean = _built_export(engine_tmp, db, "concert")
    broken = engine_tmp / "concert-broken.ttl"
    notes = _inject_violations(clean, broken)
    reports = {name: run(broken) for name, run in engines.items()}
    focus_nodes = {f for f, _ in notes}
    for name, pairs in reports.items():
        assert {f for f, _ in pairs} == focus_nodes, (name, sorted(pairs), sorted(notes))
    assert reports["pyshacl"] == reports["jena"] == reports["shacl-engine"]


@pytest.mark.parametrize("database", ["chinook/Chinook_Sqlite.sqlite", "northwind/northwind.sqlite"])
def test_built_workspaces_conform_in_every_engine(engine_tmp, shared_data, database):
    engines = _engines(engine_tmp)
    _require_all(engines)
    name = database.split("/")[0]
    ttl = _built_export(engine_tmp, shared_data / database, name)
    for engine, run in engines.items():
        assert run(ttl) == set(), f"{engine} reports false violations on the {name} workspace"
