"""The evaluation conditions, run in one harness (paper §Evaluation; DESIGN.md §7).

Each condition turns one database plus a training workload (Questions only, never gold) into a
:class:`Context`: the text placed in the agent's prompt and, when the condition has them, the ontology
tools. The scorers then treat every condition the same way.

* ``baseline`` — the raw schema only: an ontology whose Terms are the bare tables and columns of the
  catalog (label = the raw name; one Mapping each; no synonyms, definitions, values, evidence,
  constraints or relations), served through the same manifest + browse/resolve.
* ``full`` — everything pasted into the prompt, no tools: the schema DDL (``CREATE TABLE`` statements
  as stored by SQLite) followed by the whole evoonto layer of the same training fold, every Term
  rendered exactly as resolve renders it (the paper's *Baseline+SL*). Every schema column is in the
  prompt, so schema-linking recall is 1 by construction; its size is the reference for the others.
* ``evoonto`` — the ontology the builder makes from the database and the training workload: the
  manifest in the prompt, browse/resolve as tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from evoonto.errors import ConfigurationError
from evoonto.evaluation.benchmarks import schema_ddl

CONDITIONS = ("baseline", "full", "evoonto")
DEFAULT_BASE_IRI = "https://example.org/evoonto/eval/"


@dataclass
class Context:
    """What one condition offers for one database.

    Attributes:
        condition: the condition name.
        db_id: the database id; database: its file.
        prompt: text placed in the prompt (manifest, or the pasted full schema).
        tools: :class:`~evoonto.tools.toolkit.OntologyTools` or None (no ontology tools).
        schema_in_prompt: the prompt lists every table and column (recall 1 by construction).
        sizes: named character counts of the prompt's parts (e.g. ``ddl``, ``layer``).
    """

    condition: str
    db_id: str
    database: Path
    prompt: str
    tools: Any | None = None
    schema_in_prompt: bool = False
    sizes: dict[str, int] = field(default_factory=dict)


def _tools_for(ontology, db_id: str, database: Path):
    from evoonto.tools.toolkit import OntologyTools

    return OntologyTools(ontology, sources={db_id: str(database)})


def build_evoonto_ontology(database: Path, workload: Sequence, *, proposer: str = "offline",
                           base_iri: str = DEFAULT_BASE_IRI):
    """The builder's ontology of one database from a training workload (Questions only).

    Returns:
        an in-memory :class:`~evoonto.ontology.Ontology` (version 0).
    """
    from evoonto.builder.pipeline import build
    from evoonto.ontology import Ontology

    result = build([str(database)], list(workload), proposer=proposer, base_iri=base_iri)
    return Ontology.from_graphs(result.graphs, base_iri=result.base_iri)


def build_baseline_ontology(database: Path, *, base_iri: str = DEFAULT_BASE_IRI):
    """The raw-schema ontology: one bare Term + Mapping per table and per column of the catalog
    (read with :func:`evoonto.catalog.read_catalog`, as the builder reads it).

    Returns:
        an in-memory :class:`~evoonto.ontology.Ontology` (catalog + bare content graphs).
    """
    import rdflib
    from rdflib.namespace import RDF, SKOS

    from evoonto.catalog import read_catalog
    from evoonto.iris import IriFactory, slugify
    from evoonto.namespaces import bind_prefixes
    from evoonto.ontology import Ontology
    from evoonto.records import Mapping, Term, records_to_graph
    from evoonto.sources import open_source
    from evoonto.sources.catalog import harvest

    iris = IriFactory(base_iri)
    with open_source(str(database)) as src:
        catalog = harvest(src, iris)
        src_id = src.id
    source = read_catalog(catalog).source(iris.source(src_id))
    scheme = iris.scheme()
    records: list[Term | Mapping] = []
    for table in source.tables:
        term = iris.term(src_id, slugify(table.name))
        mapping = iris.mapping(src_id, table.name)
        records.append(Term(iri=term, label=table.name, kinds=["Entity"], scheme=scheme, mappings=[mapping]))
        records.append(Mapping(iri=mapping, term=term, source=source.iri, table=table.iri))
        for column in table.columns:
            term = iris.term(src_id, slugify(f"{table.name} {column.name}"))
            mapping = iris.mapping(src_id, table.name, column.name)
            records.append(Term(iri=term, label=column.name, scheme=scheme, mappings=[mapping]))
            records.append(Mapping(iri=mapping, term=term, source=source.iri, table=table.iri, column=column.iri))
    content = bind_prefixes(records_to_graph(records))
    content.add((scheme, RDF.type, SKOS.ConceptScheme))
    content.add((scheme, SKOS.prefLabel, rdflib.Literal(f"raw schema of {src_id}", lang="en")))
    return Ontology.from_graphs({"catalog": catalog, "content": content}, base_iri=base_iri)


def full_layer_text(tools) -> tuple[str, int]:
    """Every live Term of ``tools.ontology`` rendered by resolve, one compact JSON answer per Term.

    Returns:
        ``(text, number of terms)``.
    """
    from evoonto.evaluation.linking import compact_json

    rows = tools.ontology.query("""
        PREFIX evo: <https://w3id.org/evoonto/ns#>
        PREFIX owl: <http://www.w3.org/2002/07/owl#>
        SELECT DISTINCT ?t WHERE { ?t a evo:Term FILTER NOT EXISTS { ?t owl:deprecated true } } ORDER BY ?t""")
    ids = [tools.id_of(str(r["t"])) for r in rows]
    parts = [compact_json(tools.resolve([i])["records"]) for i in ids]
    return "\n".join(parts), len(ids)


class Conditions:
    """Prepares contexts, caching what several conditions share.

    The evoonto ontology of a (database, workload) is built once and reused by ``full``; the baseline
    depends only on the database.

    Args:
        proposer: builder proposer for the evoonto condition (``offline`` or ``anthropic:MODEL``).
        ontology_provider: optional ``f(db_id, database, workload) -> Ontology`` replacing the builder
            (e.g. an evolved workspace version); the workload it receives holds Questions only.
    """

    def __init__(self, *, proposer: str = "offline",
                 ontology_provider: Callable[[str, Path, Sequence], Any] | None = None):
        self.proposer = proposer
        self.ontology_provider = ontology_provider
        self._evoonto: dict[tuple, Any] = {}
        self._baseline: dict[str, Any] = {}

    def evoonto_tools(self, db_id: str, database: Path, workload: Sequence):
        """OntologyTools over the (cached) evoonto ontology of this database and workload."""
        from evoonto.builder.workload import as_questions

        questions = as_questions(workload)  # refuses anything that carries gold
        key = (db_id, tuple(q.id for q in questions))
        if key not in self._evoonto:
            if self.ontology_provider is not None:
                ontology = self.ontology_provider(db_id, database, questions)
            else:
                ontology = build_evoonto_ontology(database, questions, proposer=self.proposer)
            self._evoonto[key] = _tools_for(ontology, db_id, database)
        return self._evoonto[key]

    def prepare(self, condition: str, db_id: str, database: Path, workload: Sequence) -> Context:
        """The :class:`Context` of ``condition`` for one database and training workload.

        Raises:
            ConfigurationError: unknown condition.
        """
        database = Path(database)
        if condition == "evoonto":
            tools = self.evoonto_tools(db_id, database, workload)
            manifest = tools.manifest()
            return Context(condition, db_id, database, manifest, tools, sizes={"manifest": len(manifest)})
        if condition == "baseline":
            if db_id not in self._baseline:
                self._baseline[db_id] = _tools_for(build_baseline_ontology(database), db_id, database)
            tools = self._baseline[db_id]
            manifest = tools.manifest()
            return Context(condition, db_id, database, manifest, tools, sizes={"manifest": len(manifest)})
        if condition == "full":
            ddl = schema_ddl(database)
            layer, n_terms = full_layer_text(self.evoonto_tools(db_id, database, workload))
            prompt = f"Database schema:\n{ddl}\n\nOntology layer ({n_terms} terms):\n{layer}"
            return Context(condition, db_id, database, prompt, None, schema_in_prompt=True,
                           sizes={"ddl": len(ddl), "layer": len(layer)})
        raise ConfigurationError(f"unknown condition {condition!r}; choose from {', '.join(CONDITIONS)}")
