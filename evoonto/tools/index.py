"""The browse index: documents gathered from the store with SPARQL, BM25 per field (bm25s).

One :class:`Document` per record (Term, Mapping, Constraint, Evidence, Relation) with text fields
(see :data:`evoonto.tools.settings.DEFAULT_WEIGHTS`). Term documents also carry the table/column names
of their Mappings and the Evidence values behind the Term or its Mappings, so "Banned" finds the Term
of the status column (DESIGN.md §5). Deprecated records (``owl:deprecated true``) are not indexed.

Tokens come from :func:`evoonto.text.tokenize` (re-exported here as ``tokenize`` and ``stem``), the
one tokenizer of the package: identifier-aware (``Singer_ID`` -> ``singer id``, ``HTTPServer`` ->
``http server``, codes such as ``A11`` kept whole), case-folded, stop words dropped, Snowball-stemmed,
so browse and diagnosis agree on what "the same word" is.

The index is built once (documents sorted by kind, so a kind filter is an array slice) and reused for
every query of that ontology version. Building is incremental across versions: an index built with
``parent=`` (the index of the version a patch was applied to) re-tokenizes only the field texts the
parent did not have, so a committed patch costs the gathering SPARQL queries plus the tokens of the
records it changed; the answers are those of a full rebuild (the tokens of a text never depend on the
version). :class:`IndexCache` keeps the built index of each content version in the workspace cache
(``<workspace>/cache/index/``), so ``evoonto browse`` and ``evoonto serve`` load it instead of
building it, and a new version reuses the tokens of the newest cached one.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import mmap
import operator
import pickle
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence, overload

import numpy as np

from evoonto.errors import WorkspaceError, first_line
from evoonto.memory import paused_cyclic_gc
from evoonto.records import DEFINITION_VALUES_TAIL, boolean_text
from evoonto.text import stem, tokenize
from evoonto.tools.settings import DEFAULT_WEIGHTS
from evoonto.tools.sparql import KIND_CLASSES, local_name, select

if TYPE_CHECKING:
    from evoonto.workspace import Workspace

KINDS = tuple(KIND_CLASSES)  # term, mapping, constraint, evidence, relation, verified
#: The fields of a :class:`Document`, in constructor order (how a cached index stores documents).
_DOCUMENT_FIELDS = ("iri", "kind", "label", "fields", "snippet", "values", "locations", "types", "keys", "ordinals",
                    "computed")


@dataclass
class Document:
    """One searchable record: ``fields`` maps a field name to its text pieces."""

    iri: str
    kind: str
    label: str = ""
    fields: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    snippet: str = ""
    values: list[str] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    #: ``table.column`` location -> the column's declared SQL type (``evo:declaredType``), for the
    #: compact browse answer
    types: dict[str, str] = field(default_factory=dict)
    #: mapped ``table.column`` locations that are keys (primary, referencing or referenced)
    keys: set[str] = field(default_factory=set)
    #: ``table.column`` -> its position in the table (``evo:ordinal``)
    ordinals: dict[str, int] = field(default_factory=dict)
    #: a Term computed from columns (a Mapping of it carries ``evo:expression`` or ``evo:filter``: a
    #: mined metric, named filter or date grain, or a value Term), never the Term that stands for its
    #: table or its column
    computed: bool = False

    _seen: set = field(default_factory=set, repr=False, compare=False)

    def add(self, name: str, text: str | None) -> None:
        """Append ``text`` to field ``name`` (empty and repeated texts are ignored; O(1) per text)."""
        if text and (name, text) not in self._seen:
            self._seen.add((name, text))
            self.fields[name].append(text)


# --- gathering documents with SPARQL -------------------------------------------------------------

_LITERAL_FIELDS = {
    "prefLabel": "prefLabel", "altLabel": "altLabel", "hiddenLabel": "hiddenLabel",
    "definition": "definition", "scopeNote": "definition", "comment": "definition", "label": "altLabel",
    "summary": "definition", "filter": "expression", "condition": "expression",
    "joinCondition": "expression", "formula": "expression", "joinPath": "expression",
    "grain": "expression", "triggerKeyword": "keyword", "sampleValue": "value",
    # verified queries (kind "verified"): found by their question; a metric's expression
    "question": "prefLabel", "sql": "expression", "identifier": "hiddenLabel", "expression": "expression",
}


def _rows(ontology: Any, query: str) -> list[dict[str, str]]:
    """SPARQL rows sorted by their bindings, so documents (first label, definition, column names,
    value order) do not depend on the order in which the store returns triples.

    Where every row binds every variable (most queries) the key is the values in the order of the
    sorted names (the order of the rows' sorted ``(name, value)`` items, without sorting each row:
    that cost 3 CPU s on the 706,000 rows of a 70,000-column index); otherwise the sorted items."""
    rows = select(ontology, query)
    names = sorted(getattr(rows, "variables", ()))  # the projected variables (an embedded store's rows)
    if names and all(len(row) == len(names) for row in rows):
        return sorted(rows, key=operator.itemgetter(*names) if len(names) > 1 else lambda row: row[names[0]])
    return sorted(rows, key=lambda row: sorted(row.items()))


def identifier_words(documents: Iterable[Document]) -> dict[str, str]:
    """The words of the documents' ``column`` field (table and column names) as written,
    case-folded and not stemmed (``visib``, ``dewp``), each with its index token (stemmed, as
    :func:`tokenize` writes it; words the tokenizer would split or drop are left out)."""
    texts = {text for doc in documents for text in doc.fields.get("column", ())}
    plain = {word for text in texts for word in tokenize(text, stemmed=False)}
    return {word: stemmed[0] for word in sorted(plain) if len(stemmed := tokenize(word)) == 1}


def distribution_keys(text: str, limit: int = 50) -> list[str]:
    """The value keys of an ``evo:valueDistribution`` JSON object literal (``[]`` when malformed)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return []
    if isinstance(data, dict):
        return [str(k) for k in list(data)[:limit]]
    if isinstance(data, list):
        return [str(x[0] if isinstance(x, (list, tuple)) and x else x) for x in data[:limit]]
    return []


def gather_documents(ontology: Any) -> list[Document]:
    """Collect one :class:`Document` per non-deprecated record of the ontology with SPARQL.

    Args:
        ontology: an Ontology (``query()`` over the union of the active graphs).
    Returns:
        Documents in kind order (term, mapping, constraint, evidence, relation), then by IRI.
    """
    docs: dict[str, Document] = {}
    deprecated: set[str] = set()
    kind_of = {iri: kind for kind, iri in KIND_CLASSES.items()}
    # every record, as the first of its kinds in KINDS order (one record can have two types)
    for row in _rows(ontology, """
        SELECT ?s ?type WHERE {
          VALUES ?type { evo:Term evo:Mapping evo:Constraint evo:Evidence evo:Relation evo:VerifiedQuery }
          ?s a ?type }"""):
        iri, kind = row["s"], kind_of[row["type"]]
        doc = docs.get(iri)
        if doc is None:
            docs[iri] = Document(iri, kind)
        elif KINDS.index(kind) < KINDS.index(doc.kind):
            doc.kind = kind
    predicates: dict[str, str] = {}  # predicate IRI -> its local name (read once, not per row)
    # their literal fields, read without the type pattern and kept for the records above (joined in
    # the query, the 706,000 rows of a 70,000-column index cost 3.5 CPU s more)
    for row in _rows(ontology, """
        SELECT ?s ?p ?o WHERE {
          ?s ?p ?o .
          VALUES ?p { skos:prefLabel skos:altLabel skos:hiddenLabel skos:definition skos:scopeNote
                      rdfs:comment rdfs:label evo:summary evo:filter evo:condition evo:joinCondition
                      evo:formula evo:joinPath evo:grain evo:triggerKeyword evo:sampleValue
                      evo:valueDistribution owl:deprecated evo:question evo:sql dcterms:identifier
                      evo:expression }
        }"""):
        iri = row["s"]
        doc = docs.get(iri)
        if doc is None:
            continue
        pred = predicates.get(row["p"])
        if pred is None:
            pred = predicates[row["p"]] = local_name(row["p"])
        obj = row["o"]
        if pred == "deprecated":
            if boolean_text(obj):
                deprecated.add(iri)
        elif pred == "valueDistribution":
            for key in distribution_keys(obj):
                doc.add("value", key)
        else:
            doc.add(_LITERAL_FIELDS[pred], obj)

    term_of = _add_mapping_locations(ontology, docs)
    _add_column_types(ontology, docs)
    _add_evidence_values(ontology, docs)
    _drop_unbacked_values(ontology, docs)
    _mark_stale(ontology, docs, term_of)
    _add_relation_ends(ontology, docs)
    _add_constraint_targets(ontology, docs, term_of)
    for doc in docs.values():
        _finish(doc)
    live = [d for iri, d in docs.items() if iri not in deprecated]
    live.sort(key=lambda d: (KINDS.index(d.kind), d.iri))
    return live


def _labels(docs: dict[str, Document], iri: str) -> str:
    doc = docs.get(iri)
    if doc and doc.fields.get("prefLabel"):
        return doc.fields["prefLabel"][0]
    return local_name(iri)


def _add_mapping_locations(ontology: Any, docs: dict[str, Document]) -> dict[str, str]:
    """Add table/column names to Mapping and Term documents; returns mapping IRI -> term IRI."""
    term_of: dict[str, str] = {}
    for row in _rows(ontology, """
        SELECT ?m ?term ?table ?column ?computed WHERE {
          ?m a evo:Mapping .
          OPTIONAL { ?m evo:mapsTerm ?term }
          OPTIONAL { ?m evo:table ?t . ?t dcterms:title|csvw:name ?table }
          OPTIONAL { ?m evo:column ?c . ?c csvw:name ?column }
          BIND (EXISTS { ?m evo:expression|evo:filter ?formula } AS ?computed)
        }""") + _rows(ontology, """
        SELECT ?m ?term ?table ?column ?computed WHERE {
          ?term evo:hasMapping ?m .
          FILTER NOT EXISTS { ?m evo:mapsTerm ?term }
          OPTIONAL { ?m evo:table ?t . ?t dcterms:title|csvw:name ?table }
          OPTIONAL { ?m evo:column ?c . ?c csvw:name ?column }
          BIND (EXISTS { ?m evo:expression|evo:filter ?formula } AS ?computed)
        }"""):
        mdoc = docs.get(row["m"])
        location = ".".join(x for x in (row.get("table"), row.get("column")) if x)
        for name in (row.get("table"), row.get("column")):
            if mdoc is not None:
                mdoc.add("column", name)
        if mdoc is not None and location and location not in mdoc.locations:
            mdoc.locations.append(location)
        term = docs.get(row.get("term", ""))
        if term is not None:
            for name in (row.get("table"), row.get("column")):
                term.add("column", name)
            if location and location not in term.locations:
                term.locations.append(location)
            if boolean_text(row.get("computed", "")):
                term.computed = True
        if mdoc is not None and "term" in row:
            mdoc.add("prefLabel", _labels(docs, row["term"]))
            term_of[row["m"]] = row["term"]
    return term_of


def _add_column_types(ontology: Any, docs: dict[str, Document]) -> None:
    """Declared SQL types (``evo:declaredType``), key roles (``evo:primaryKey``, ``evo:references``,
    or referenced by another column) and schema positions (``evo:ordinal``) of the mapped columns, on
    Term and Mapping documents."""
    for row in _rows(ontology, """
        SELECT ?x ?table ?column ?type ?pk ?ordinal (COUNT(?ref) AS ?refs) WHERE {
          { ?x evo:hasMapping ?m } UNION { ?m evo:mapsTerm ?x } UNION { ?m a evo:Mapping BIND(?m AS ?x) }
          ?m evo:column ?c . ?c csvw:name ?column ; dcterms:isPartOf ?t .
          ?t dcterms:title|csvw:name ?table .
          OPTIONAL { ?c evo:declaredType ?type }
          OPTIONAL { ?c evo:primaryKey ?pk }
          OPTIONAL { ?c evo:ordinal ?ordinal }
          OPTIONAL { { ?c evo:references ?ref } UNION { ?ref evo:references ?c } }
        } GROUP BY ?x ?table ?column ?type ?pk ?ordinal"""):
        doc = docs.get(row["x"])
        if doc is None:
            continue
        location = f"{row['table']}.{row['column']}"
        if row.get("type"):
            doc.types.setdefault(location, row["type"])
        if boolean_text(str(row.get("pk", ""))) or int(row.get("refs") or 0) > 0:
            doc.keys.add(location)
        if row.get("ordinal"):
            try:
                doc.ordinals.setdefault(location, int(row["ordinal"]))
            except ValueError:
                pass


def _add_evidence_values(ontology: Any, docs: dict[str, Document]) -> None:
    """Evidence values go to what the Evidence supports and to the Term of a supported Mapping;
    stale Evidence (marked by a drift patch, ``prov:invalidatedAtTime``) backs no other record."""
    direct = _rows(ontology, "SELECT ?x ?e WHERE { ?x prov:wasDerivedFrom ?e . ?e a evo:Evidence "
                             "FILTER NOT EXISTS { ?e prov:invalidatedAtTime ?stale } }")
    via_mapping = _rows(ontology, """
        SELECT ?x ?e WHERE { ?x evo:hasMapping ?m . ?m prov:wasDerivedFrom ?e . ?e a evo:Evidence
          FILTER NOT EXISTS { ?e prov:invalidatedAtTime ?stale } }""")
    for row in direct + via_mapping:
        target, evidence = docs.get(row["x"]), docs.get(row["e"])
        if target is None or evidence is None or target is evidence:
            continue
        for value in evidence.fields.get("value", ()):
            target.add("value", value)
        if target.kind in ("term", "mapping"):
            evidence.add("column", " ".join(target.fields.get("column", ())[:4]))
            if not evidence.label:
                evidence.label = _labels(docs, row["x"])


def _drop_unbacked_values(ontology: Any, docs: dict[str, Document]) -> None:
    """A value Term (``table.column = value``) derived only from stale Evidence (a drift check found
    the value gone: ``prov:invalidatedAtTime``) no longer stands for a value of the data: it stays
    findable by its words, but browse does not write its value into the column's line (after
    ``evoonto drift`` marked 'USA' gone, the compact answer still read ``"Country" = 'USA'``)."""
    stale = {row["x"] for row in select(ontology, "SELECT DISTINCT ?x WHERE { ?x prov:wasDerivedFrom ?e . "
                                                  "?e prov:invalidatedAtTime ?t }") if row["x"] in docs}
    if not stale:
        return
    values = " ".join(f"<{iri}>" for iri in sorted(stale))
    backed = {row["x"] for row in select(ontology, f"SELECT DISTINCT ?x WHERE {{ VALUES ?x {{ {values} }} "
                                                    "?x prov:wasDerivedFrom ?e . ?e a evo:Evidence "
                                                    "FILTER NOT EXISTS { ?e prov:invalidatedAtTime ?t } }")}
    for iri in sorted(stale - backed):
        doc = docs[iri]
        prefixes = tuple(f"{location} = " for location in doc.locations[:1])
        hidden = doc.fields.get("hiddenLabel", [])
        if prefixes and any(h.startswith(prefixes) for h in hidden):
            doc.fields["hiddenLabel"] = [h for h in hidden if not h.startswith(prefixes)]


#: characters of a drift check's change note kept in a stale record's definition
STALE_NOTE_CHARS = 100


#: What a drift check's change note says of a column the source no longer has
#: (:func:`evoonto.drift.check_drift`: ``"drift: missing column: column t.c is gone from the source"``).
MISSING_COLUMN_NOTE = "missing column:"


def _mark_stale(ontology: Any, docs: dict[str, Document], term_of: Mapping[str, str]) -> None:
    """Records a drift check marked stale (``prov:invalidatedAtTime``, with its ``skos:changeNote``),
    and the Terms of stale Mappings, say so first in their definition, which the compact line and
    the verbose snippet show: ``stale since 2026-12-03 (drift: changed: values: +'United States'
    -'USA'); The category Country …``. Before, only ``resolve`` said it, and browse kept describing
    the column as the build saw it."""
    marks: dict[str, tuple[str, str]] = {}
    for row in _rows(ontology, "SELECT ?x ?t ?note WHERE { ?x prov:invalidatedAtTime ?t "
                               "OPTIONAL { ?x skos:changeNote ?note } }"):
        since, note = row["t"][:10], " ".join(row.get("note", "").split())
        for iri in dict.fromkeys([row["x"], term_of.get(row["x"], "")]):
            if iri in docs and (iri not in marks or (since, note) < marks[iri]):
                marks[iri] = (since, note)
    for iri, (since, note) in sorted(marks.items()):
        if len(note) > STALE_NOTE_CHARS:
            note = note[:STALE_NOTE_CHARS - 1] + "…"
        mark = f"stale since {since}" + (f" ({note})" if note else "")
        definitions = docs[iri].fields["definition"]
        if definitions:
            # the values the build listed are the build's, not the data's now
            built = DEFINITION_VALUES_TAIL.sub(lambda m: f"; values{m.group('how')} when built: {m.group('values')}.",
                                               definitions[0])
            definitions[0] = f"{mark}; {built}"
        else:
            definitions.append(mark)
    # a table's Term lists its columns ("columns: …, title, …"): one that drift found gone is said
    # gone there too, first, where the compact line shows it
    gone: dict[str, list[str]] = {}  # table -> its columns drift found gone
    gone_since: dict[str, str] = {}  # table -> the earliest such finding's date
    for iri, (since, note) in sorted(marks.items()):
        doc = docs[iri]
        if doc.kind == "term" and MISSING_COLUMN_NOTE in note and doc.locations and "." in doc.locations[0]:
            table, _dot, column = doc.locations[0].partition(".")
            if column not in gone.setdefault(table, []):
                gone[table].append(column)
            gone_since[table] = min(since, gone_since.get(table, since))
    for doc in docs.values():
        if doc.kind != "term" or doc.computed or len(doc.locations) != 1 or doc.locations[0] not in gone:
            continue
        table = doc.locations[0]
        definitions = doc.fields["definition"]
        note = f"column{'s' if len(gone[table]) > 1 else ''} gone since {gone_since[table]}: {', '.join(gone[table])}"
        if definitions:
            definitions[0] = f"{note}; {definitions[0]}"
        else:
            definitions.append(note)


def _add_relation_ends(ontology: Any, docs: dict[str, Document]) -> None:
    for row in _rows(ontology, """
        SELECT ?r ?type ?a ?b WHERE {
          ?r a evo:Relation .
          OPTIONAL { ?r evo:relationType ?type }
          OPTIONAL { ?r owl:annotatedSource ?a }
          OPTIONAL { ?r owl:annotatedTarget ?b }
        }"""):
        doc = docs.get(row["r"])
        if doc is None:
            continue
        a = _labels(docs, row["a"]) if "a" in row else "?"
        b = _labels(docs, row["b"]) if "b" in row else "?"
        kind = local_name(row["type"]) if "type" in row else "Relation"
        doc.label = f"{a} --{kind}--> {b}"
        doc.add("prefLabel", f"{a} {b}")
        doc.add("keyword", kind)


def _add_constraint_targets(ontology: Any, docs: dict[str, Document], term_of: dict[str, str]) -> None:
    """Constraint documents get their target's label; targets (and the Term of a constrained
    Mapping) get the constraint's trigger keywords."""
    for row in _rows(ontology, "SELECT ?c ?x WHERE { ?c a evo:Constraint ; evo:constrains ?x }"):
        doc = docs.get(row["c"])
        if doc is None:
            continue
        target_iri = row["x"]
        doc.add("altLabel", _labels(docs, term_of.get(target_iri, target_iri)))
        for iri in dict.fromkeys([target_iri, term_of.get(target_iri, "")]):
            target = docs.get(iri)
            if target is not None:
                for keyword in doc.fields.get("keyword", ()):
                    target.add("keyword", keyword)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _finish(doc: Document) -> None:
    fields = doc.fields
    first = lambda name: fields[name][0] if fields.get(name) else ""  # noqa: E731
    if doc.kind == "term":
        doc.label = first("prefLabel") or first("altLabel") or local_name(doc.iri)
        where = f"[{', '.join(doc.locations[:3])}]" if doc.locations else ""
        doc.snippet = _short(" ".join(x for x in (where, first("definition")) if x), 160)
    elif doc.kind == "mapping":
        doc.label = doc.locations[0] if doc.locations else local_name(doc.iri)
        term = first("prefLabel")
        expr = "; ".join(fields.get("expression", ())[:2])
        doc.snippet = _short(" ".join(x for x in (f"maps {term!r}" if term else "", expr) if x), 160)
    elif doc.kind == "constraint":
        doc.label = _short(first("definition") or first("expression") or local_name(doc.iri), 80)
        target = first("altLabel")
        doc.snippet = _short(" ".join(x for x in (f"on {target!r}" if target else "", first("expression")) if x), 160)
    elif doc.kind == "evidence":
        summary = first("definition")
        doc.snippet = _short(summary, 160)
        doc.label = _short(f"evidence for {doc.label}" if doc.label else (summary or local_name(doc.iri)), 80)
    elif doc.kind == "verified":
        doc.label = _short(first("prefLabel") or local_name(doc.iri), 120)
        doc.snippet = _short(first("expression"), 160)
    elif doc.kind == "relation":
        doc.label = doc.label or local_name(doc.iri)
        doc.snippet = _short("; ".join(fields.get("expression", ())[:2]) or first("definition"), 160)
    doc.values = list(dict.fromkeys(fields.get("value", ())))


# --- the index -----------------------------------------------------------------------------------


class SearchIndex:
    """Per-field BM25 indexes (bm25s) over a fixed list of documents.

    Each field is indexed over the documents that have it (per-field document frequencies and
    lengths, as in BM25F); the per-field scores are summed with the field weights.

    Args:
        documents: from :func:`gather_documents` (must be sorted by kind).
        fields: the field names to index (default: every field of DEFAULT_WEIGHTS).
    """

    #: field text -> its tokens, shared by the indexes of every version in the process: the index of a
    #: candidate (parent + patch) tokenizes only the field texts the patch changed; the bm25s
    #: matrices are then rebuilt from token lists (cheap). Cleared when it exceeds _TOKENS_MAX entries.
    _TOKENS: dict[str, tuple[str, ...]] = {}
    _TOKENS_MAX = 200_000

    def __init__(self, documents: list[Document], fields: Iterable[str] | None = None, *,
                 parent: "SearchIndex | None" = None):
        import bm25s

        #: IRIs of the documents with a field text this build had to tokenize (not known to
        #: ``parent`` nor to an earlier index in the process); for a candidate or a committed
        #: patch built from its parent's index, the documents the patch changed
        self.tokenized: set[str] = set()
        #: field text -> its tokens, for every text of this index (what a child version reuses);
        #: see :attr:`texts` (an index read from the cache reads them on first use)
        self._texts: dict[str, tuple[str, ...]] | None = {}
        self._texts_loader: Callable[[], dict[str, tuple[str, ...]]] | None = None
        self._parent_texts: Mapping[str, tuple[str, ...]] = parent.texts if parent is not None else {}
        self.documents: Sequence[Document] = documents
        self.size = len(documents)
        self.kind_ranges: dict[str, tuple[int, int]] = {}
        for i, doc in enumerate(documents):
            start, _ = self.kind_ranges.get(doc.kind, (i, i))
            self.kind_ranges[doc.kind] = (start, i + 1)
        self.retrievers: dict[str, Any] = {}
        self.vocab: set[str] = set()
        doc_tokens: list[set[str]] = [set() for _ in documents]
        for name in fields or DEFAULT_WEIGHTS:
            corpus = [self._field_tokens(doc, doc.fields.get(name, ())) for doc in documents]
            if not any(corpus):
                continue
            for seen, tokens in zip(doc_tokens, corpus, strict=True):
                seen.update(tokens)
            # index only the documents that have this field (per-field statistics, as in BM25F)
            rows = [i for i, tokens in enumerate(corpus) if tokens]
            retriever = bm25s.BM25()
            retriever.index([corpus[i] for i in rows], show_progress=False)
            self.retrievers[name] = (retriever, None if len(rows) == self.size else np.asarray(rows))
            self.vocab.update(t for t in retriever.vocab_dict if t)
        #: the words of table and column names (the ``column`` field) as written, case-folded and
        #: not stemmed (``visib``, ``dewp``), each with its index token: made here, with the index,
        #: and kept with it (browse's abbreviation search reads them; see :func:`identifier_words`)
        self.identifier_words: dict[str, str] = identifier_words(documents)
        #: the distinct searched tokens of each document, space-separated (for query coverage)
        self.doc_tokens = [" ".join(sorted(tokens)) for tokens in doc_tokens]
        by_initial: dict[str, list[str]] = defaultdict(list)
        for token in sorted(self.vocab):  # sorted: fuzzy ties break the same in every process
            by_initial[token[0]].append(token)
        self._by_initial = dict(by_initial)
        self._surface: dict[str, list[str]] | None = None  # see _surface_words
        self._layout: SchemaLayout | None = None  # see layout
        self._stem_of: dict[str, str] = {}
        self._at: dict[str, list[int]] | None = None  # see documents_at
        self._sorted: dict[str, bool] = {}  # see _sorted_postings
        #: normalised label text (label, first synonyms and hidden labels) for fuzzy re-scoring:
        #: ``tokenize`` of the pieces joined, made piece by piece (see :meth:`_field_tokens`) from the
        #: tokens of the field texts just made (7 CPU s at 70,000 columns when tokenized again)
        own = self.texts
        self.label_norm = [
            " ".join(token for piece in dict.fromkeys(
                [doc.label, *doc.fields.get("altLabel", ())[:3], *doc.fields.get("hiddenLabel", ())[:3]])
                for token in (own.get(piece) or tokenize(piece)))
            for doc in documents
        ]
        self._parent_texts = {}  # the parent is not kept alive by its child

    @property
    def texts(self) -> dict[str, tuple[str, ...]]:
        """Field text -> its tokens, for every text of this index (what a child version reuses); an
        index read from the cache decodes them on first use (a browse never needs them)."""
        texts = self._texts
        if texts is None:
            loader = self._texts_loader
            texts = self._texts = loader() if loader is not None else {}
            self._texts_loader = None
        return texts

    def __getstate__(self) -> dict[str, Any]:
        """Pickled state without the caches built on first use (rebuilt after loading)."""
        state = dict(self.__dict__)
        state.update(_surface=None, _layout=None, _stem_of={}, _at=None, _parent_texts={}, _sorted={},
                     _position=None)
        return state

    def position(self, iri: str) -> int | None:
        """The position in :attr:`documents` of the document with ``iri``, or None; the map is made on
        first use (it reads every document) and kept with the index."""
        positions = self.__dict__.get("_position")  # (an index unpickled from an older file lacks it)
        if positions is None:
            positions = self._position = {doc.iri: i for i, doc in enumerate(self.documents)}
        return positions.get(iri)

    def _sorted_postings(self, name: str) -> bool:
        """Whether every posting list of field ``name`` lists its documents in increasing order (bm25s
        builds them so, as a canonical CSC matrix; checked once per field, not assumed)."""
        checked = self.__dict__.setdefault("_sorted", {})  # (an index unpickled from an older file lacks it)
        known = checked.get(name)
        if known is None:
            scores = self.retrievers[name][0].scores
            indices, indptr = np.asarray(scores["indices"]), np.asarray(scores["indptr"])
            rising = np.diff(indices) > 0
            starts = indptr[1:-1]  # a list's first entry may be below the previous list's last one
            rising[starts[(starts > 0) & (starts < len(indices))] - 1] = True
            known = checked[name] = bool(rising.all())
        return known

    def warm(self) -> None:
        """Build the maps made on first use (:meth:`layout`, :meth:`documents_at`) now, so the first
        browse after a (re)load does not pay for them (about 2 s at 70,000 columns).

        Nothing else: the garbage-collector policy a long-running server wants for a loaded index
        (one full collection, then :func:`gc.freeze`) is the process owner's decision, taken in
        :func:`evoonto.server.freeze_loaded_objects`, never by a library object."""
        self.layout()
        self.documents_at("")

    def documents_at(self, location: str) -> list[int]:
        """Positions of the documents mapping ``location`` (``table`` or ``table.column``, as in
        :attr:`Document.locations`), in document order; the location map is built on first use."""
        if self._at is None:
            at: dict[str, list[int]] = defaultdict(list)
            for i, doc in enumerate(self.documents):
                for loc in doc.locations:
                    at[loc].append(i)
            self._at = dict(at)
        return self._at.get(location, [])

    def _field_tokens(self, doc: Document, texts: Iterable[str]) -> list[str]:
        """``tokenize(" ".join(texts))``, computed piece by piece (the tokenizer works word by word,
        so the concatenation is the same) from the shared cache: a piece (a label, a column name, a
        value) that an earlier document or index tokenized is not tokenized again. Pieces repeat
        across documents (a Term's labels and values reappear in its Mappings and Evidence) and
        across versions (a candidate shares all but its patch's texts with its parent)."""
        cache, own, parent = SearchIndex._TOKENS, self.texts, self._parent_texts
        out: list[str] = []
        for text in texts:
            tokens = own.get(text)
            if tokens is None:
                tokens = parent.get(text)
                if tokens is None:
                    tokens = cache.get(text)
                if tokens is None:
                    tokens = tuple(tokenize(text))
                    if len(cache) >= SearchIndex._TOKENS_MAX:
                        cache.clear()
                    cache[text] = tokens
                    if text:
                        self.tokenized.add(doc.iri)
                own[text] = tokens
            out.extend(tokens)
        return out

    def expand(self, tokens: list[str], cutoff: float = 80.0) -> list[list[tuple[str, float]]]:
        """Per distinct query token, the vocabulary tokens it stands for.

        A token in the vocabulary stands for itself (weight 1.0); another one (length ≥ 4) for up
        to two close vocabulary tokens with the same first character (rapidfuzz ``ratio`` ≥
        ``cutoff``, weight ratio/100), compared with the vocabulary's stems and with the indexed
        words they stem from (a misspelt ``nationalty`` is close to the word ``nationality``, not
        to its stem ``nation``); otherwise for nothing.
        Returns:
            One list of ``(vocabulary token, weight)`` per distinct query token, in query order.
        """
        from rapidfuzz import fuzz, process

        out = []
        for token in dict.fromkeys(tokens):
            if token in self.vocab:
                out.append([(token, 1.0)])
            elif len(token) >= 4 and not token.isdigit():
                best: dict[str, float] = {}
                for pool, to_stem in ((self._by_initial, None), (self._surface_words(), self._stem_of)):
                    for match, score, _ in process.extract(token, pool.get(token[0], ()), scorer=fuzz.ratio,
                                                           score_cutoff=cutoff, limit=2):
                        key = to_stem[match] if to_stem else match
                        best[key] = max(best.get(key, 0.0), score / 100.0)
                out.append(sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))[:2])
            else:
                out.append([])
        return out

    def layout(self) -> "SchemaLayout":
        """Which Term documents stand for which tables and columns (built on first use); see
        :class:`SchemaLayout`."""
        if self._layout is None:
            self._layout = SchemaLayout.of(self.documents)
        return self._layout

    def _surface_words(self) -> dict[str, list[str]]:
        """Indexed words (case-folded, unstemmed) by first character; built on first use."""
        if self._surface is None:
            stem_of: dict[str, str] = {}
            for doc in self.documents:
                for texts in doc.fields.values():
                    for word in tokenize(" ".join(texts), stemmed=False):
                        stem_of.setdefault(word, stem(word))
            self._stem_of = {w: s for w, s in stem_of.items() if s in self.vocab and w != s}
            surface: dict[str, list[str]] = defaultdict(list)
            for word in sorted(self._stem_of):
                surface[word[0]].append(word)
            self._surface = dict(surface)
        return self._surface

    @classmethod
    def of_names(cls, names: Iterable[tuple[str, str]]) -> "SearchIndex":
        """An index of bare ``(table, column)`` names (one Term document each, field ``column``), in the
        given order: the BM25 baseline of the linking benchmark ranks with the same code as browse.

        Args:
            names: ``(table, column)`` pairs; document ``i`` is the ``i``-th pair.
        """
        documents = []
        for i, (table, column) in enumerate(names):
            doc = Document(f"urn:evoonto:name:{i}", "term", label=f"{table}.{column}")
            doc.add("column", table)
            doc.add("column", column)
            doc.locations.append(f"{table}.{column}")
            documents.append(doc)
        return cls(documents, ["column"])

    def scores(self, tokens: Iterable[str], weights: Mapping[str, float]) -> np.ndarray:
        """The weighted BM25 score of every document for the distinct query ``tokens`` (exact tokens,
        weight 1 each; :meth:`candidates` over all documents), as one array of length :attr:`size`."""
        out = np.zeros(self.size)
        docs, values = self.candidates([(t, 1.0) for t in dict.fromkeys(tokens)], dict(weights))
        out[docs] = values
        return out

    def candidates(self, weighted_tokens: list[tuple[str, float]], weights: dict[str, float],
                   start: int = 0, end: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Documents in ``[start, end)`` with a positive weighted BM25 score, and those scores.

        The per-token, per-field BM25 contributions are read from each bm25s index's posting
        lists (``retriever.scores``: CSC arrays ``data``/``indices``/``indptr`` per token) and
        summed with one ``numpy.bincount``, so the cost follows the postings of the query tokens.
        Returns:
            ``(document positions, scores)`` as numpy arrays (positions into :attr:`documents`).
        """
        end = self.size if end is None else end
        part = start > 0 or end < self.size
        doc_parts, weight_parts = [], []
        for name, field_weight in weights.items():
            if field_weight <= 0 or name not in self.retrievers:
                continue
            retriever, rows = self.retrievers[name]
            data, indices, indptr = (retriever.scores[k] for k in ("data", "indices", "indptr"))
            # a kind's documents are one range, and so are their rows in this field's index: with
            # sorted postings each token's list is cut to that range by binary search
            cut = part and self._sorted_postings(name)
            if cut:
                low, high = (start, end) if rows is None else (int(np.searchsorted(rows, start)),
                                                              int(np.searchsorted(rows, end)))
            for token, token_weight in weighted_tokens:
                tid = retriever.vocab_dict.get(token)
                if tid is None or indptr[tid] == indptr[tid + 1]:
                    continue
                a, b = indptr[tid], indptr[tid + 1]
                if cut:
                    a, b = a + np.searchsorted(indices[a:b], low), a + np.searchsorted(indices[a:b], high)
                    if a == b:
                        continue
                docs = indices[a:b]
                doc_parts.append(docs if rows is None else rows[docs])
                weight_parts.append(data[a:b] * (field_weight * token_weight))
        if not doc_parts:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
        docs = np.concatenate(doc_parts)
        weights_all = np.concatenate(weight_parts)
        if part:  # (a field with unsorted postings was not cut)
            keep = (docs >= start) & (docs < end)
            docs, weights_all = docs[keep], weights_all[keep]
        totals = np.bincount(docs - start, weights=weights_all, minlength=end - start)
        positive = np.flatnonzero(totals > 0)
        return positive + start, totals[positive]


def value_of(doc: Document) -> str | None:
    """The data value a value Term stands for (the builder gives it the hidden label
    ``table.column = value``), or None when ``doc`` is not a value Term."""
    for location in doc.locations[:1]:
        prefix = f"{location} = "
        for hidden in doc.fields.get("hiddenLabel", ()):
            if hidden.startswith(prefix):
                return hidden[len(prefix):]
    return None


def family_members(doc: Document) -> dict[str, str]:
    """``{key: member table}`` of a table-family Term document (:mod:`evoonto.builder.families`:
    an alt label is the name pattern with one ``{n}``, the hidden labels name the member tables);
    ``{}`` for any other document."""
    patterns = [p for p in doc.fields.get("altLabel", ()) if p.count("{n}") == 1]
    if not patterns:
        return {}
    head, _n, tail = patterns[0].partition("{n}")
    shape = re.compile(re.escape(head) + r"(\d+)" + re.escape(tail))
    members = {}
    for name in doc.fields.get("hiddenLabel", ()):
        match = shape.fullmatch(name)
        if match:
            members[match.group(1)] = name
    return members


@dataclass
class SchemaLayout:
    """The schema as the Term documents map it, for browse's two-stage (tables, then columns) answer.

    Attributes:
        column_term: ``table.column`` -> position of the column's Term document (the first Term
            mapping exactly that column that is not a value Term).
        table_term: table -> position of the table's Term document (a Term mapping only the table).
        table_columns: table -> its mapped ``table.column`` locations: keys first (primary,
            referencing or referenced columns, needed by any join), then in schema order.
    """

    column_term: dict[str, int] = field(default_factory=dict)
    table_term: dict[str, int] = field(default_factory=dict)
    table_columns: dict[str, list[str]] = field(default_factory=dict)
    #: a lower bound of the characters that naming every column tersely takes (each name with two
    #: quote characters at least): browse's compact answer skips its exact count when this alone
    #: exceeds twice the budget
    terse_floor: int = 0
    #: every column as ``(position in its table's list, IRI of its Term, location)``, sorted: the
    #: order in which browse's compact answer names the columns of tables no query word matched
    by_position: list[tuple[int, str, str]] = field(default_factory=list)
    #: table families (:mod:`evoonto.builder.families`): the representative table (the one whose
    #: columns have Terms) -> ``{key: member table}`` (``{"1990": "sales_1990", …}``), read from the
    #: family Term (alt label the name pattern with ``{n}``, hidden labels the member tables)
    families: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, documents: Sequence[Document]) -> "SchemaLayout":
        layout = cls()
        for i, doc in enumerate(documents):
            if doc.kind != "term" or len(doc.locations) != 1:
                continue
            location = doc.locations[0]
            table, dot, _column = location.partition(".")
            if not dot:
                if not doc.computed:  # a metric over the table is not the table's Term
                    layout.table_term.setdefault(table, i)
            elif location not in layout.column_term and value_of(doc) is None and not doc.computed:
                layout.column_term[location] = i
                layout.table_columns.setdefault(table, []).append(location)
            if not dot:
                members = family_members(doc)
                if members:
                    layout.families.setdefault(table, {}).update(members)
        for locations in layout.table_columns.values():
            docs = {loc: documents[layout.column_term[loc]] for loc in locations}
            locations.sort(key=lambda loc: (loc not in docs[loc].keys, docs[loc].ordinals.get(loc, 1 << 30)))
            layout.terse_floor += sum(len(loc.partition(".")[2]) + 2 for loc in locations)
            layout.by_position.extend((k, docs[loc].iri, loc) for k, loc in enumerate(locations))
        layout.by_position.sort()
        return layout


# --- the index of a content version, kept in the workspace cache ----------------------------------

#: Bumped when the pickled layout of :class:`SearchIndex` changes (older files are then ignored).
INDEX_FORMAT = 5
#: The only globals a cached index file may name (pickle's "restricting globals"): a file that names
#: anything else is refused, so a planted cache file cannot run code.
_ALLOWED_GLOBALS = {
    ("bm25s", "BM25"), ("builtins", "list"), ("builtins", "set"), ("builtins", "dict"),
    ("builtins", "tuple"), ("builtins", "frozenset"), ("collections", "defaultdict"),
    ("numpy", "dtype"), ("numpy", "ndarray"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
}


class _IndexUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in an index file")
        return super().find_class(module, name)


@functools.lru_cache(maxsize=1)
def _code_stamp() -> str:
    """What the tokens and the index layout depend on besides the content: this module, the text
    module and its stop words, and the versions of PyStemmer and bm25s."""
    from importlib import metadata, resources

    from evoonto import text as text_module

    digest = hashlib.sha256(f"format {INDEX_FORMAT}".encode())
    for module_file in (__file__, text_module.__file__):
        digest.update(Path(str(module_file)).read_bytes())
    digest.update(resources.files("evoonto").joinpath("data", "lexicon", "stopwords.tsv").read_bytes())
    for package in ("PyStemmer", "bm25s", "numpy"):
        try:
            digest.update(f"{package} {metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(package.encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class IndexCache:
    """The folder holding built indexes, one file per content version (``<key>.index``: pickled
    plain data and numpy/bm25s arrays, read back through an allow-list of classes, so a planted file
    cannot run code), and the content fingerprint
    of the version at hand.

    Attributes:
        folder: e.g. ``<workspace>/cache/index``.
        fingerprint: identifies the content of the version (see :meth:`for_workspace`); the file
            name also covers the field weights and the code that tokenizes and indexes.
        keep: index files kept in the folder (the newest; older ones are deleted on save).
    """

    folder: Path
    fingerprint: str
    keep: int = 4

    @classmethod
    def for_workspace(cls, workspace: Workspace) -> "IndexCache":
        """The cache of a workspace's active version, keyed by
        :meth:`~evoonto.workspace.Workspace.version_fingerprint` (the SHA-256 digests of ``base.trig``
        and of the files of the accepted patches up to the active version, in order, of the bytes the
        workspace loaded, so the files are not read and hashed a second time).

        Args:
            workspace: an :class:`evoonto.workspace.Workspace`.
        Raises:
            OSError: ``base.trig`` or a patch file cannot be read.
        """
        return cls(Path(workspace.path) / "cache" / "index", workspace.version_fingerprint())

    def path(self, weights: Mapping[str, float]) -> Path:
        """The file of this version's index under ``weights``."""
        key = json.dumps([self.fingerprint, sorted(weights.items()), _code_stamp()])
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.index"

    def load(self, weights: Mapping[str, float]) -> SearchIndex | None:
        """The cached index of this version, or None (missing, unreadable or refused file)."""
        return _read_index(self.path(weights))

    def latest(self) -> SearchIndex | None:
        """The most recently written index of any version in the folder (a parent whose tokens a new
        version reuses), or None."""
        try:
            files = sorted(self.folder.glob("*.index"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        except OSError:
            return None
        for file in files[:2]:
            index = _read_index(file)
            if index is not None:
                return index
        return None

    def save(self, index: SearchIndex, weights: Mapping[str, float]) -> None:
        """Write ``index`` atomically as this version's file and delete the oldest files beyond
        :attr:`keep`. A folder that cannot be written is skipped (the cache is an optimisation)."""
        from evoonto.errors import EvoontoError
        from evoonto.fileio import atomic_write, make_dirs

        try:
            make_dirs(self.folder)
            atomic_write(self.path(weights), _index_chunks(index))  # written chunk by chunk, never joined
            files = sorted(self.folder.glob("*.index"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for old in files[self.keep:]:
                old.unlink(missing_ok=True)
        except (OSError, EvoontoError):
            return


#: Documents per pickled chunk of a cached index: between chunks the writing thread yields the GIL
#: (a server thread building a version's index never holds other calls for long), and a reader
#: decodes only the chunks holding the documents it reads.
_CHUNK = 2000
_MAGIC = "evoonto browse index"


def _pickled(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _index_chunks(index: SearchIndex) -> list[bytes]:
    """A cached index file, as the byte chunks written one after the other (joined, the 245 MB of a
    70,000-column index cost 1.1 CPU s of copying for nothing): a header (magic,
    :data:`INDEX_FORMAT`, the number of documents, the index's state without its documents and
    texts, with its :class:`SchemaLayout` as a dict of plain fields, and the byte sizes of the
    sections that follow), then the documents as plain tuples
    (:data:`_DOCUMENT_FIELDS`) in chunks of :data:`_CHUNK`, then the texts (``{text: tokens}``); each
    section is its own pickle, so a reader decodes a section only when it is used."""
    state = index.__getstate__()
    for name in ("documents", "_texts", "_texts_loader"):
        state.pop(name, None)
    state.pop("texts", None)
    # the schema layout as plain data: a new process reads it instead of deriving it from every
    # document (about 0.6 CPU s at 70,000 columns, a fifth of a shell browse)
    layout = index.layout()
    state["_layout"] = {f.name: getattr(layout, f.name) for f in dataclasses.fields(SchemaLayout)}
    sections: list[bytes] = []
    with paused_cyclic_gc():
        for start in range(0, len(index.documents), _CHUNK):
            rows = [tuple(dict(d.fields) if name == "fields" else getattr(d, name) for name in _DOCUMENT_FIELDS)
                    for d in index.documents[start:start + _CHUNK]]
            sections.append(_pickled(rows))
            time.sleep(0)  # let other threads run
        sections.append(_pickled(index.texts))
        header = _pickled((_MAGIC, INDEX_FORMAT, len(index.documents), state, [len(b) for b in sections]))
    return [header, *sections]


def _document(row: tuple) -> Document:
    iri, kind, label, fields, snippet, values, locations, types, keys, ordinals, computed = row
    return Document(iri, kind, label, defaultdict(list, fields), snippet, values, locations, types, keys, ordinals,
                    computed)


def _decode(section: memoryview) -> Any:
    """One pickled section of an index file, read through the allow-list of :class:`_IndexUnpickler`.

    Raises:
        WorkspaceError: the section does not decode (the file was damaged or planted after it was
            opened: the message says to delete the cache folder)."""
    try:
        with paused_cyclic_gc():
            return _IndexUnpickler(io.BytesIO(section)).load()
    except Exception as exc:
        raise WorkspaceError(f"a section of the cached browse index does not decode ({first_line(exc, 120)}); "
                             "delete the workspace's cache/index folder and run again") from exc


class LazyDocuments(Sequence[Document]):
    """The documents of a cached index file, as a read-only sequence that decodes a chunk of
    :data:`_CHUNK` documents on first access (a browse reads a few dozen documents; decoding all of
    them took about 1.3 CPU s at 70,000 columns). Equal to any sequence of equal documents.

    Args:
        count: the number of documents.
        chunks: the pickled chunks (views into the file's memory map), in order.
    Raises:
        WorkspaceError: on access, when a chunk does not decode to its documents.
    """

    def __init__(self, count: int, chunks: list[memoryview]):
        self._count = count
        self._raw = list(chunks)  # kept (views of the map, not copies): threads may decode a chunk at once
        self._decoded: list[list[Document] | None] = [None] * len(chunks)

    def __len__(self) -> int:
        return self._count

    def _chunk(self, c: int) -> list[Document]:
        decoded = self._decoded[c]
        if decoded is None:
            rows = _decode(self._raw[c])
            expected = min(_CHUNK, self._count - c * _CHUNK)
            if not isinstance(rows, list) or len(rows) != expected:
                raise WorkspaceError("a chunk of the cached browse index has the wrong number of documents; "
                                     "delete the workspace's cache/index folder and run again")
            decoded = self._decoded[c] = [_document(row) for row in rows]
        return decoded

    @overload
    def __getitem__(self, i: int) -> Document: ...
    @overload
    def __getitem__(self, i: slice) -> list[Document]: ...

    def __getitem__(self, i: int | slice) -> Document | list[Document]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._count))]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("document index out of range")
        return self._chunk(i // _CHUNK)[i % _CHUNK]

    def __iter__(self) -> Iterator[Document]:
        for c in range(len(self._decoded)):
            yield from self._chunk(c)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, like a list


def _read_index(path: Path) -> SearchIndex | None:
    """The index in a file :func:`_index_chunks` wrote, or None (missing, truncated, another format,
    or naming any global outside :data:`_ALLOWED_GLOBALS` in its header). The file is memory-mapped:
    the header is decoded now, the document chunks and the texts on first use (see
    :class:`LazyDocuments`, :attr:`SearchIndex.texts`)."""
    try:
        with path.open("rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # missing, unreadable or empty
        return None
    view = memoryview(mapped)
    try:
        stream = io.BytesIO(view)
        with paused_cyclic_gc():
            magic, version, count, state, sizes = _IndexUnpickler(stream).load()
        if magic != _MAGIC or version != INDEX_FORMAT or not isinstance(state, dict):
            return None
        offset = stream.tell()
        if not isinstance(count, int) or not isinstance(sizes, list) or offset + sum(sizes) != len(view) \
                or len(sizes) != -(-count // _CHUNK) + 1:
            return None  # truncated, or sections that do not match the header
        sections = []
        for size in sizes:
            sections.append(view[offset:offset + size])
            offset += size
    except Exception:  # a truncated, foreign or refused file is rebuilt, never trusted
        return None
    layout = state.get("_layout")
    try:
        state["_layout"] = SchemaLayout(**layout) if isinstance(layout, dict) else None
    except TypeError:  # fields of another layout: derived again on first use
        state["_layout"] = None
    texts_section = sections.pop()

    def load_texts() -> dict[str, tuple[str, ...]]:
        texts = _decode(texts_section)
        if not isinstance(texts, dict):
            raise WorkspaceError("the texts of the cached browse index are not a mapping; delete the "
                                 "workspace's cache/index folder and run again")
        return texts

    index = SearchIndex.__new__(SearchIndex)
    index.__dict__.update(state, documents=LazyDocuments(count, sections), _texts=None, _texts_loader=load_texts)
    return index


def build_index(ontology: Any, weights: Mapping[str, float], *, cache: IndexCache | None = None,
                parent: SearchIndex | None = None) -> SearchIndex:
    """The browse index of ``ontology``: read from ``cache`` when this version's file is there, else
    built (incrementally from ``parent``, or from the newest cached index of another version) and
    written to ``cache``.

    Args:
        ontology: the version (an :class:`evoonto.ontology.Ontology`).
        weights: the field weights (``BrowseSettings.weights``); the fields indexed.
        cache: the workspace's :class:`IndexCache` for this version, or None (no file read or written).
        parent: the index of an earlier version whose tokens are reused (answers do not depend on it).
    Returns:
        A :class:`SearchIndex` equal in its answers to ``SearchIndex(gather_documents(ontology), weights)``.
    """
    if cache is not None:
        cached = cache.load(weights)
        if cached is not None:
            return cached
        if parent is None:
            parent = cache.latest()
    with paused_cyclic_gc():
        index = SearchIndex(gather_documents(ontology), weights, parent=parent)
        if cache is not None:
            cache.save(index, weights)
    return index


