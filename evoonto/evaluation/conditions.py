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
from typing import TYPE_CHECKING, Any, Callable, Sequence

from evoonto.errors import ConfigurationError
from evoonto.evaluation.benchmarks import schema_ddl

if TYPE_CHECKING:
    from evoonto.tools.toolkit import OntologyTools

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
    tools: OntologyTools | None = None
    schema_in_prompt: bool = False
    sizes: dict[str, int] = field(default_factory=dict)
    lister: Callable[[str, int], list[str]] | None = None


def condition_tools(ontology, db_id: str, database: Path, values_folder: Path | None = None):
    """OntologyTools over ``ontology`` with the database as source ``db_id``; with ``values_folder``
    also the database's value index (``<folder>/<db_id>.values.sqlite``, built once), as
    ``evoonto serve`` attaches one, so the tools answer as the served default does."""
    from evoonto.tools.toolkit import OntologyTools

    tools = OntologyTools(ontology, sources={db_id: str(database)})
    if values_folder is not None:
        from evoonto.tools.values import ensure_value_index

        Path(values_folder).mkdir(parents=True, exist_ok=True)
        tools.value_index = ensure_value_index(Path(values_folder) / f"{db_id}.values.sqlite",
                                               {db_id: tools.source(db_id)})
    return tools


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
        compact JSON (exactly as :func:`evoonto.evaluation.linking.compact_json` prints it: escaped
        quotes, brackets and separators counted) fits ``budget`` characters (at least one name)."""
        from evoonto.evaluation.linking import compact_json

        scores = self.index.scores(self._tokenize(query), {"column": 1.0})
        order = sorted(range(len(self.names)), key=lambda i: (-float(scores[i]), i))
        out: list[str] = []
        size = 1  # the brackets; each name adds its JSON string and one separator (or the "]")
        for i in order:
            size += len(compact_json(self.names[i])) + 1
            if out and size > budget:
                break
            out.append(self.names[i])
        return out


#: Package folders and modules whose code cannot change what the builder makes (the retrieval
#: tools, the scorers, the command line, the server): a build cache key leaves them out, so tuning
#: ranking keeps the cached builds and any change elsewhere rebuilds.
_NOT_BUILDER = ("tools/browse.py", "tools/index.py", "tools/values.py", "tools/manifest.py", "tools/toolkit.py",
                "evaluation/", "cli/", "server.py", "viz/", "evolution/", "demo.py", "experiment.py")


def builder_fingerprint() -> str:
    """SHA-256 (16 hex digits) of the package's code and data files that the builder may read
    (every ``evoonto/**`` file but :data:`_NOT_BUILDER`, plus ``vocab/`` and ``shapes/``)."""
    import hashlib

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    files = [f for f in sorted(root.rglob("*")) if f.is_file() and f.suffix in (".py", ".tsv", ".ttl", ".json")
             and "__pycache__" not in f.parts
             and not str(f.relative_to(root)).replace("\\", "/").startswith(_NOT_BUILDER)]
    for extra in ("vocab", "shapes"):
        folder = root.parent / extra
        if folder.is_dir():
            files += sorted(folder.glob("*.ttl"))
    for f in files:
        digest.update(str(f.name).encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class BuildCache:
    """Built ontologies kept on disk between benchmark runs (``linking_bench.py --build-cache DIR``).

    An entry is the build's store as N-Quads, keyed by SHA-256 of the condition, database file
    (path, size, modification time), workload question ids and texts, build options and
    :func:`builder_fingerprint`; a changed builder or input builds again. Only for benchmarks: a
    workspace keeps its own build.

    Args:
        folder: where entries are written (created when missing).
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def key(self, variant: str, db_id: str, database: Path, questions: Sequence, options: dict[str, Any]) -> str:
        """The entry name (hex) of one build."""
        import hashlib
        import json

        st = Path(database).stat()
        parts = {"variant": variant, "db": db_id, "database": [str(Path(database).resolve()), st.st_size,
                                                               st.st_mtime_ns],
                 "questions": [[q.id, q.text] for q in questions], "options": options,
                 "builder": builder_fingerprint()}
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:24]

    def load(self, key: str):
        """The cached ontology of ``key`` or None."""
        from evoonto.ontology import Ontology
        from evoonto.store import OxigraphStore, parse_rdf_file

        path = self.folder / f"{key}.nq"
        if not path.exists():
            return None
        store = OxigraphStore()
        store.load_quads(parse_rdf_file(path))
        base = (self.folder / f"{key}.base").read_text(encoding="utf-8").strip()
        return Ontology(store, base_iri=base)

    def save(self, key: str, ontology) -> None:
        """Write ``ontology``'s store under ``key`` (atomically)."""
        import pyoxigraph as ox

        from evoonto.fileio import atomic_write

        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.folder / f"{key}.base", ontology.base_iri.encode())
        atomic_write(self.folder / f"{key}.nq", ontology.store.dump(ox.RdfFormat.N_QUADS))


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
            (default True, as ``evoonto build`` does; ``linking_bench.py --documentation off``
            passes False, the data-only ablation, where ``evoonto+dictionary`` is the condition that
            adds it). ``evoonto+verified`` follows it.
        build_cache: a :class:`BuildCache` folder: built ontologies are read from it when their
            inputs and the builder are unchanged, and written to it after a build.
        value_index: give the evoonto conditions' tools the database's value index, as ``evoonto
            serve`` does (default True), so they answer what the served default answers.
    """

    def __init__(self, *, proposer: str = "offline",
                 ontology_provider: Callable[[str, Path, Sequence], Any] | None = None,
                 verified_of: Callable[[Sequence], list[dict]] | None = None, documentation: bool = True,
                 build_cache: Path | None = None, value_index: bool = True):
        self.proposer = proposer
        self.build_cache = BuildCache(build_cache) if build_cache is not None else None
        #: where the evoonto conditions keep each database's value index (the build cache, else a
        #: temporary folder made on first use); ``value_index=False`` serves none
        self.value_index = value_index
        self._values_folder: Path | None = Path(build_cache) / "values" if build_cache is not None else None
        self.documentation = documentation
        self.ontology_provider = ontology_provider
        self.verified_of = verified_of
        self._evoonto: dict[tuple, Any] = {}
        self._baseline: dict[str, Any] = {}
        self._lists: dict[str, BM25ColumnList] = {}

    @property
    def values_folder(self) -> Path | None:
        """Folder of the value indexes (None when ``value_index`` is off)."""
        if not self.value_index:
            return None
        if self._values_folder is None:
            import tempfile

            self._values_folder = Path(tempfile.mkdtemp(prefix="evoonto-values-"))
        return self._values_folder

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
                cache, entry = self.build_cache, ""
                if cache is not None:
                    entry = cache.key(variant, db_id, database, questions, {**options, "proposer": self.proposer})
                ontology = cache.load(entry) if cache is not None else None
                if ontology is None:
                    ontology = build_evoonto_ontology(database, questions, proposer=self.proposer, options=options)
                    if cache is not None:
                        cache.save(entry, ontology)
            self._evoonto[key] = condition_tools(ontology, db_id, database, self.values_folder)
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
                self._baseline[db_id] = condition_tools(build_baseline_ontology(database), db_id, database)
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
