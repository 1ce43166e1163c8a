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

Extra conditions (:data:`EXTRA_CONDITIONS`, run when asked; ``benchmarks/linking_bench.py`` runs them):

* ``evoonto+dictionary`` — as ``evoonto``, built with ``documentation=True`` (data dictionaries and
  schema comments next to the database become content);
* ``evoonto+verified`` — as ``evoonto``, built with the *construction fold's* gold SQL given as
  verified queries (``verified=[{"question", "sql"}]``; the held-out fold's gold never reaches the
  builder): it models a team that verified its past queries. Needs ``Conditions(verified_of=...)``;
* ``bm25`` — no ontology: the schema's ``"table"."column"`` names ranked by BM25 (bm25s over the
  package's tokenizer) for the question, listed while they fit the policy's character budget (the
  columns without a match follow in schema order), i.e. evoonto's compact answer at equal characters;
* ``ddl`` — the bare ``CREATE TABLE`` text pasted (what a user would paste instead);
* ``ddl+rows`` — the DDL plus 3 sample rows per table.

The keywords ``documentation=`` and ``verified=`` of :func:`evoonto.builder.pipeline.build` are passed
only by the conditions that need them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from evoonto.errors import ConfigurationError
from evoonto.evaluation.benchmarks import schema_ddl

CONDITIONS = ("baseline", "full", "evoonto")
#: Conditions run only when named (see the module docstring).
EXTRA_CONDITIONS = ("evoonto+dictionary", "evoonto+verified", "bm25", "ddl", "ddl+rows")
ALL_CONDITIONS = CONDITIONS + EXTRA_CONDITIONS
SAMPLE_ROWS = 3
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
        lister: for list conditions (``bm25``), ``f(query, budget characters) -> [lines]``: what is
            shown for one question instead of tool answers.
    """

    condition: str
    db_id: str
    database: Path
    prompt: str
    tools: Any | None = None
    schema_in_prompt: bool = False
    sizes: dict[str, int] = field(default_factory=dict)
    lister: Callable[[str, int], list[str]] | None = None


def _tools_for(ontology, db_id: str, database: Path):
    from evoonto.tools.toolkit import OntologyTools

    return OntologyTools(ontology, sources={db_id: str(database)})


def build_evoonto_ontology(database: Path, workload: Sequence, *, proposer: str = "offline",
                           base_iri: str = DEFAULT_BASE_IRI, options: dict[str, Any] | None = None):
    """The builder's ontology of one database from a training workload (Questions only).

    Args:
        options: extra keywords for :func:`~evoonto.builder.pipeline.build` (``documentation``,
            ``verified``), passed only when given.
    Returns:
        an in-memory :class:`~evoonto.ontology.Ontology` (version 0).
    """
    from evoonto.builder.pipeline import build
    from evoonto.ontology import Ontology

    result = build([str(database)], list(workload), proposer=proposer, base_iri=base_iri, **(options or {}))
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


def sample_rows_text(database: Path, rows: int = SAMPLE_ROWS) -> str:
    """``rows`` rows of every table of a SQLite database as text (``-- table: 3 rows`` then one
    tab-separated line per row, values cut to 60 characters), read through the read-only connection."""
    from evoonto.evaluation.benchmarks import _connect_read_only
    from evoonto.sources.quoting import quote_identifier

    con = _connect_read_only(Path(database))
    parts = []
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        for name in names:
            found = con.execute(f"SELECT * FROM {quote_identifier(name)} LIMIT {int(rows)}").fetchall()
            lines = ["\t".join(str(v)[:60] for v in row) for row in found]
            parts.append(f"-- {name}: {len(lines)} sample rows\n" + "\n".join(lines))
    finally:
        con.close()
    return "\n".join(parts)


class BM25ColumnList:
    """The BM25 baseline: a database's ``"table"."column"`` names ranked for a query by BM25 over
    :func:`evoonto.text.tokenize` of table and column name, with browse's own ranker
    (:meth:`evoonto.tools.index.SearchIndex.scores`: bm25s postings, one implementation for both),
    listed within a character budget.

    Args:
        schema: ``{table: [columns]}``.
    """

    def __init__(self, schema: dict[str, list[str]]):
        from evoonto.sources.quoting import quote_identifier
        from evoonto.text import tokenize
        from evoonto.tools.index import SearchIndex

        self._tokenize = tokenize
        pairs = [(t, c) for t, cols in schema.items() for c in cols]
        self.names = [f"{quote_identifier(t)}.{quote_identifier(c)}" for t, c in pairs]
        self.index = SearchIndex.of_names(pairs)

    def __call__(self, query: str, budget: int) -> list[str]:
        """Names best first (BM25 score, then the unmatched ones in schema order) while the list's
        compact JSON fits ``budget`` characters (at least one name)."""
        scores = self.index.scores(self._tokenize(query), {"column": 1.0})
        order = sorted(range(len(self.names)), key=lambda i: (-float(scores[i]), i))
        out: list[str] = []
        size = 1
        for i in order:
            size += len(self.names[i]) + 3  # quotes and separator of the JSON string
            if out and size > budget:
                break
            out.append(self.names[i])
        return out


class Conditions:
    """Prepares contexts, caching what several conditions share.

    The evoonto ontology of a (database, workload) is built once and reused by ``full``; the baseline
    depends only on the database.

    Args:
        proposer: builder proposer for the evoonto condition (``offline`` or ``anthropic:MODEL``).
        ontology_provider: optional ``f(db_id, database, workload) -> Ontology`` replacing the builder
            (e.g. an evolved workspace version); the workload it receives holds Questions only.
        verified_of: for ``evoonto+verified`` only: ``f(construction questions) -> [{"question",
            "sql"}]``, the gold SQL of exactly those (construction-fold) questions.
        documentation: whether the plain ``evoonto`` condition reads the sources' documentation
            (default True, as ``evoonto build`` does; the linking benchmark passes False so that
            ``evoonto+dictionary`` is the condition that adds it). ``evoonto+verified`` follows it.
    """

    def __init__(self, *, proposer: str = "offline",
                 ontology_provider: Callable[[str, Path, Sequence], Any] | None = None,
                 verified_of: Callable[[Sequence], list[dict]] | None = None, documentation: bool = True):
        self.proposer = proposer
        self.documentation = documentation
        self.ontology_provider = ontology_provider
        self.verified_of = verified_of
        self._evoonto: dict[tuple, Any] = {}
        self._baseline: dict[str, Any] = {}
        self._lists: dict[str, BM25ColumnList] = {}

    def evoonto_tools(self, db_id: str, database: Path, workload: Sequence, *, variant: str = "evoonto"):
        """OntologyTools over the (cached) evoonto ontology of this database and workload
        (``variant``: ``evoonto``, ``evoonto+dictionary`` or ``evoonto+verified``).

        Raises:
            ConfigurationError: ``evoonto+verified`` without ``verified_of``.
        """
        from evoonto.builder.workload import as_questions

        questions = as_questions(workload)  # refuses anything that carries gold
        key = (variant, db_id, tuple(q.id for q in questions))
        if key not in self._evoonto:
            options: dict[str, Any] = {"documentation": self.documentation}
            if variant == "evoonto+dictionary":
                options["documentation"] = True
            elif variant == "evoonto+verified":
                if self.verified_of is None:
                    raise ConfigurationError("condition evoonto+verified needs the construction fold's "
                                             "verified queries (Conditions(verified_of=...))")
                options["verified"] = self.verified_of(questions)
            if self.ontology_provider is not None and variant == "evoonto":
                ontology = self.ontology_provider(db_id, database, questions)
            else:
                ontology = build_evoonto_ontology(database, questions, proposer=self.proposer, options=options)
            self._evoonto[key] = _tools_for(ontology, db_id, database)
        return self._evoonto[key]

    def prepare(self, condition: str, db_id: str, database: Path, workload: Sequence) -> Context:
        """The :class:`Context` of ``condition`` for one database and training workload.

        Raises:
            ConfigurationError: unknown condition.
        """
        database = Path(database)
        if condition in ("evoonto", "evoonto+dictionary", "evoonto+verified"):
            tools = self.evoonto_tools(db_id, database, workload, variant=condition)
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
        if condition in ("ddl", "ddl+rows"):
            ddl = schema_ddl(database)
            prompt = ddl if condition == "ddl" else f"{ddl}\n{sample_rows_text(database)}"
            return Context(condition, db_id, database, prompt, None, schema_in_prompt=True, sizes={"ddl": len(ddl)})
        if condition == "bm25":
            if db_id not in self._lists:
                from evoonto.evaluation.benchmarks import database_schema

                self._lists[db_id] = BM25ColumnList(database_schema(database))
            return Context(condition, db_id, database, "", None, lister=self._lists[db_id])
        raise ConfigurationError(f"unknown condition {condition!r}; choose from {', '.join(ALL_CONDITIONS)}")
