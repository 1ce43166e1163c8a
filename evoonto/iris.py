"""IRI minting for instance nodes (docs/architecture.md §2, IRI table).

Every instance IRI lives under the workspace base ``B`` (config ``base_iri``, default
``https://example.org/evoonto/<workspace-name>/``). Each path segment is percent-encoded with
``urllib.parse.quote(segment, safe="")``, so names with spaces, quotes, slashes, unicode and SQL
keywords give valid, unambiguous IRIs. Keys of evidence, probes and relations are short stable
hashes (:func:`stable_key`), so re-running the same probe mints the same IRI.

Example::

    iris = IriFactory("https://example.org/evoonto/demo/")
    iris.column("concert_singer", "singer", "Singer_ID")
    # URIRef('https://example.org/evoonto/demo/source/concert_singer/table/singer/column/Singer_ID')
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from typing import Iterable
from urllib.parse import quote, urlsplit

from rdflib import URIRef

#: Default base of a workspace named ``name``.
DEFAULT_BASE_TEMPLATE = "https://example.org/evoonto/{name}/"


def default_base(name: str) -> str:
    """The default base IRI of a workspace called ``name`` (the name is percent-encoded)."""
    return DEFAULT_BASE_TEMPLATE.format(name=quote(name, safe=""))


def stable_key(*parts: object, length: int = 16) -> str:
    """A short stable hash of ``parts`` (SHA-256 hex, ``length`` characters, default 16).

    Parts are joined with the unit separator U+001F after ``str()``, so ``("a", "bc")`` and
    ``("ab", "c")`` differ. Used for evidence/probe keys (hash of the query) and relation ids.
    """
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def slugify(text: str, *, max_length: int = 80) -> str:
    """A readable slug: NFKD, lower case, runs of non-alphanumerics -> ``-`` (≤ ``max_length`` chars).

    Falls back to a stable hash when nothing alphanumeric is left (e.g. ``"%%%"``).
    """
    norm = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", norm.lower()).strip("-")[:max_length].strip("-")
    return slug or "x" + stable_key(text, length=10)


#: The segment of an empty name (a SQL column may be named ``""``): ``%00`` is what a NUL character
#: would encode to, which no SQL identifier holds, so it collides with no other name.
EMPTY_SEGMENT = "%00"


def _seg(value: object) -> str:
    return _seg_text(str(value))


@functools.lru_cache(maxsize=1 << 17)
def _seg_text(text: str) -> str:
    """One percent-encoded IRI segment, computed once per text (names and keys repeat across IRIs)."""
    if text == "":
        return EMPTY_SEGMENT
    return quote(text, safe="")


def table_schema_of(table: str) -> URIRef:
    """``{table IRI}/schema``: the ``csvw:Schema`` node of a table (``IriFactory.table_schema``)."""
    return URIRef(f"{table}/schema")


def distribution_of(source: str) -> URIRef:
    """``{source IRI}/distribution``: the ``dcat:Distribution`` of a source (``IriFactory.distribution``)."""
    return URIRef(f"{source}/distribution")


class IriFactory:
    """Mints the instance IRIs of one workspace (all methods return :class:`rdflib.URIRef`).

    Args:
        base: absolute IRI ending in ``/`` or ``#`` (e.g. ``https://example.org/evoonto/demo/``).

    Raises:
        ValueError: ``base`` is not absolute or does not end with ``/`` or ``#``.
    """

    def __init__(self, base: str):
        base = str(base)
        parts = urlsplit(base)
        has_authority = bool(parts.netloc) or parts.scheme in ("urn", "tag")
        if not parts.scheme or not has_authority or any(c in base for c in " <>\"{}|\\^`"):
            raise ValueError(f"base IRI {base!r} is not an absolute IRI")
        if not base.endswith(("/", "#")):
            raise ValueError(f"base IRI {base!r} must end with '/' or '#'")
        self.base = base

    def __repr__(self) -> str:
        return f"IriFactory({self.base!r})"

    def _iri(self, *segments: object) -> URIRef:
        return URIRef(self.base + "/".join(_seg(s) for s in segments))

    def is_local(self, iri: str) -> bool:
        """True when ``iri`` was minted under this factory's base."""
        return str(iri).startswith(self.base)

    # catalog -------------------------------------------------------------------------------
    def source(self, src: str) -> URIRef:
        """``B source/{src}`` (a ``dcat:Dataset``)."""
        return self._iri("source", src)

    def table(self, src: str, table: str) -> URIRef:
        """``B source/{src}/table/{table}`` (a ``csvw:Table``)."""
        return self._iri("source", src, "table", table)

    def table_schema(self, src: str, table: str) -> URIRef:
        """``B source/{src}/table/{table}/schema`` (the table's ``csvw:Schema``, listing its columns)."""
        return table_schema_of(self.table(src, table))

    def distribution(self, src: str) -> URIRef:
        """``B source/{src}/distribution`` (the ``dcat:Distribution`` the source is read through)."""
        return distribution_of(self.source(src))

    def column(self, src: str, table: str, column: str) -> URIRef:
        """``B source/{src}/table/{table}/column/{column}`` (a ``csvw:Column``)."""
        return self._iri("source", src, "table", table, "column", column)

    def foreign_key(self, src: str, table: str, ref_table: str, columns: Iterable[str]) -> URIRef:
        """``B source/{src}/table/{table}/foreignKey/{ref_table}/{column}/…`` (a ``csvw:ForeignKey`` of
        ``table``: its columns, in key order, referencing ``ref_table``)."""
        return self._iri("source", src, "table", table, "foreignKey", ref_table, *columns)

    def document(self, src: str, name: str) -> URIRef:
        """``B source/{src}/document/{name}`` (an ``evo:Document``)."""
        return self._iri("source", src, "document", name)

    def passage(self, document: str, n: int) -> URIRef:
        """``<document>/passage/{n}`` (an ``evo:Passage`` of ``document``, an IRI from :meth:`document`)."""
        return URIRef(f"{document}/passage/{_seg(int(n))}")

    # content -------------------------------------------------------------------------------
    def term(self, src_or_slug: str, slug: str | None = None) -> URIRef:
        """``B term/{src}/{slug}`` (``term(src, slug)``) or ``B term/{slug}`` (``term(slug)``,
        for terms not tied to one source)."""
        if slug is None:
            return self._iri("term", src_or_slug)
        return self._iri("term", src_or_slug, slug)

    def mapping(self, src: str, table: str, column: str | None = None, n: int | None = None) -> URIRef:
        """``B mapping/{src}/{table}[/{column}][/{n}]``; ``n`` distinguishes several mappings of one column."""
        segs: list[object] = ["mapping", src, table]
        if column is not None:
            segs.append(column)
        if n is not None:
            segs.append(int(n))
        return self._iri(*segs)

    def evidence(self, key: str) -> URIRef:
        """``B evidence/{key}``; ``key`` is usually ``stable_key(query)``."""
        return self._iri("evidence", key)

    def probe(self, key: str) -> URIRef:
        """``B probe/{key}`` (the probe activity that generated ``evidence/{key}``)."""
        return self._iri("probe", key)

    def constraint(self, slug: str) -> URIRef:
        """``B constraint/{slug}``."""
        return self._iri("constraint", slug)

    def relation(self, rel_type: str, source: str, target: str) -> URIRef:
        """``B relation/{type}/{hash of source+target}``; ``rel_type`` is a name (``"Derivation"``)
        or an IRI (its local name is used)."""
        name = str(rel_type)
        name = re.split(r"[#/]", name)[-1] or name
        return self._iri("relation", name, stable_key(str(source), str(target)))

    def scheme(self) -> URIRef:
        """``B scheme`` (the ``skos:ConceptScheme`` of the workspace)."""
        return self._iri("scheme")

    # tools and history ----------------------------------------------------------------------
    def tools(self, name: str) -> URIRef:
        """``B tools/{name}`` (tool settings, declared tool, manifest note)."""
        return self._iri("tools", name)

    def version(self, n: int) -> URIRef:
        """``B version/{n}``."""
        if int(n) < 0:
            raise ValueError(f"version must be >= 0, got {n}")
        return self._iri("version", int(n))

    def patch(self, patch_id: str) -> URIRef:
        """``B patch/{id}``."""
        return self._iri("patch", patch_id)

    def gate(self, patch_id: str) -> URIRef:
        """``B gate/{id}`` (the gate activity that decided patch ``id``)."""
        return self._iri("gate", patch_id)


__all__ = ["IriFactory", "default_base", "stable_key", "slugify"]
