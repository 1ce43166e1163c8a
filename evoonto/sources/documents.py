"""Plain text and markdown documents, split into searchable passages.

A documents source is a folder (searched recursively) or a single ``.md``/``.markdown``/``.txt``
file. Each document is split into passages so that a Term can be grounded in one section:

- markdown headings (``#`` … ``######``, outside fenced code blocks) open a section; a passage
  records its heading path (``"Setup > Database"``);
- inside a section, paragraphs (separated by blank lines) are packed into passages of at most
  ``max_passage_chars`` characters; a longer paragraph is cut at sentence ends, then at spaces.

``search(query, n)`` ranks passages with BM25 (bm25s, English stop words). Documents have no SQL
tables: ``tables()`` is empty and ``run()`` raises :class:`~evoonto.errors.SourceError`. The
catalog (:func:`evoonto.sources.catalog.harvest`) records each document as an ``evo:Document`` and
each passage as an ``evo:Passage`` with its text.

A file that is not valid UTF-8 is read as Latin-1 (with a :class:`~evoonto.sources.base.SourceWarning`);
an unreadable or empty file is skipped with a warning.

Example::

    from evoonto.sources import open_source

    with open_source("docs/") as src:                       # kind "documents"
        for passage, score in src.search("refund policy", n=3):
            print(passage.document, passage.heading, round(score, 2), passage.text[:80])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evoonto.errors import SourceError
from evoonto.sources.base import BaseSource, QueryResult, TableInfo, warn
from evoonto.sources.registry import SourceKind, register_source_kind

__all__ = ["DocumentSource", "Document", "Passage", "split_passages", "DEFAULT_PASSAGE_CHARS"]

#: File suffixes read as documents.
DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt")

#: Longest passage, in characters, unless ``max_passage_chars`` says otherwise.
DEFAULT_PASSAGE_CHARS = 1200

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Passage:
    """One passage: ``document`` (its document's name), ``n`` (0-based position in the document),
    ``heading`` (heading path, ``""`` before the first heading), ``text``, ``line`` (1-based line
    where the passage starts)."""

    document: str
    n: int
    heading: str
    text: str
    line: int


@dataclass(frozen=True)
class Document:
    """One document: ``name`` (path relative to the source folder, ``/``-separated), ``title``
    (its first heading, else the file stem), ``path`` and ``passages``."""

    name: str
    title: str
    path: Path
    passages: tuple[Passage, ...]


def split_passages(text: str, *, document: str = "", max_chars: int = DEFAULT_PASSAGE_CHARS) -> list[Passage]:
    """Split markdown or plain ``text`` into passages (see the module docstring).

    Args:
        text: the document text.
        document: the document name stored in each passage.
        max_chars: longest passage in characters (≥ 50).

    Returns:
        Passages in document order, numbered from 0; empty sections give none.

    Raises:
        SourceError: ``max_chars`` below 50.
    """
    if max_chars < 50:
        raise SourceError(f"max_passage_chars must be at least 50, got {max_chars}")
    passages: list[Passage] = []
    headings: list[tuple[int, str]] = []
    paragraph: list[str] = []
    paragraph_line = 1
    pending: list[tuple[str, int]] = []  # paragraphs of the current section: (text, line)
    in_fence = False

    def heading_path() -> str:
        return " > ".join(title for _, title in headings)

    def flush_paragraph() -> None:
        nonlocal paragraph
        if paragraph:
            joined = "\n".join(paragraph).strip()
            if joined:
                pending.append((joined, paragraph_line))
            paragraph = []

    def flush_section() -> None:
        flush_paragraph()
        for chunk, line in _pack(pending, max_chars):
            passages.append(Passage(document, len(passages), heading_path(), chunk, line))
        pending.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            flush_section()
            level = len(match.group(1))
            headings[:] = [h for h in headings if h[0] < level] + [(level, match.group(2).strip())]
            continue
        if not line.strip() and not in_fence:
            flush_paragraph()
            continue
        if not paragraph:
            paragraph_line = number
        paragraph.append(line.rstrip())
    flush_section()
    return passages


def _pack(paragraphs: list[tuple[str, int]], max_chars: int) -> list[tuple[str, int]]:
    """Pack paragraphs into chunks of at most ``max_chars`` characters (joined by blank lines)."""
    chunks: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for text, line in paragraphs:
        for piece in _cut(text, max_chars):
            size = sum(len(c) + 2 for c in current) + len(piece)
            if current and size > max_chars:
                chunks.append(("\n\n".join(current), start))
                current = []
            if not current:
                start = line
            current.append(piece)
    if current:
        chunks.append(("\n\n".join(current), start))
    return chunks


def _cut(text: str, max_chars: int) -> list[str]:
    """``text`` cut into pieces of at most ``max_chars``: at sentence ends, then spaces, then hard."""
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > max_chars:
            cut = sentence.rfind(" ", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            head, sentence = sentence[:cut].rstrip(), sentence[cut:].lstrip()
            if current:
                pieces.append(current)
                current = ""
            pieces.append(head)
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        pieces.append(current)
    return pieces


class DocumentSource(BaseSource):
    """Text/markdown documents of a folder (recursive) or one file, as searchable passages.

    Args:
        path: folder or single ``.md``/``.markdown``/``.txt`` file.
        source_id: identifier (default: folder name or file stem).
        max_passage_chars: longest passage, in characters.

    Raises:
        SourceError: missing path, or no readable document in it.
    """

    kind = "documents"
    dialect = None

    def __init__(self, path: str | Path, *, source_id: str | None = None,
                 max_passage_chars: int = DEFAULT_PASSAGE_CHARS):
        root = Path(path).expanduser()
        if not root.exists():
            raise SourceError(f"documents not found: {path}")
        super().__init__(source_id or (root.resolve().name if root.is_dir() else root.stem), str(root))
        self.path = root
        files = (
            sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES)
            if root.is_dir()
            else [root]
        )
        self._documents: list[Document] = []
        for file in files:
            name = file.relative_to(root).as_posix() if root.is_dir() else file.name
            text = self._read(file, name)
            if text is None:
                continue
            passages = tuple(split_passages(text, document=name, max_chars=max_passage_chars))
            if not passages:
                warn(f"source {self.id!r}: document {name!r} is empty; skipped")
                continue
            self._documents.append(Document(name, _title(text, file), file, passages))
        if not self._documents:
            raise SourceError(f"no readable text/markdown document in {path}")
        self._index = None

    def _read(self, file: Path, name: str) -> str | None:
        try:
            data = file.read_bytes()
        except OSError as err:
            warn(f"source {self.id!r}: cannot read {name!r} ({err.strerror or err}); skipped")
            return None
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            warn(f"source {self.id!r}: {name!r} is not valid UTF-8; read as latin-1")
            return data.decode("latin-1")

    def documents(self) -> list[Document]:
        """The documents, sorted by name."""
        return list(self._documents)

    def passages(self) -> list[Passage]:
        """All passages of all documents, in document order."""
        return [p for d in self._documents for p in d.passages]

    def search(self, query: str, n: int = 5) -> list[tuple[Passage, float]]:
        """The ``n`` passages that best match ``query`` (BM25), best first, as ``(passage, score)``.

        Passages with a zero score (no query word in common) are left out, so fewer than ``n``
        (possibly none) may be returned. Raises :class:`SourceError` for ``n`` < 1.
        """
        import bm25s

        self._check_open()
        if not isinstance(n, int) or n < 1:
            raise SourceError(f"n must be a positive integer, got {n!r}")
        passages = self.passages()
        index = self._index
        if index is None:
            corpus = [f"{p.heading}\n{p.text}" for p in passages]
            index = bm25s.BM25()
            index.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
            self._index = index
        tokens = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)
        if not tokens or not tokens[0]:
            return []
        ids, scores = index.retrieve(tokens, k=min(n, len(passages)), show_progress=False)
        return [(passages[int(i)], float(s)) for i, s in zip(ids[0], scores[0], strict=False) if s > 0]

    def passage_iri(self, iris, passage: Passage):
        """The catalog IRI of ``passage`` (``<document>/passage/{n}``, as written by ``harvest``),
        so a Term can point at the section that defines it."""
        return iris.passage(iris.document(self.id, passage.document), passage.n)

    def run(self, sql: str, *, limit: int = 1000, timeout_ms: int = 5000,
            max_chars: int = 10_000_000) -> QueryResult:
        """Documents have no SQL tables: always raises :class:`SourceError` (use :meth:`search`)."""
        raise SourceError(f"source {self.id!r} holds documents, not tables; use search() instead of SQL")

    def _load_tables(self) -> list[TableInfo]:
        return []

    def _execute(self, sql, limit, timeout_ms):  # pragma: no cover - run() is overridden
        raise SourceError("documents have no SQL tables")

    def _close(self) -> None:
        self._index = None


def _title(text: str, file: Path) -> str:
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            return match.group(2).strip()
    return file.stem


def _holds_documents(location: str) -> bool:
    """A text/markdown file, or a folder holding at least one (asked after the ``files`` kind)."""
    if "://" in location:
        return False
    path = Path(location).expanduser()
    if path.is_dir():
        return any(p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES for p in path.iterdir())
    return path.is_file() and path.suffix.lower() in DOCUMENT_SUFFIXES


register_source_kind(SourceKind("documents", DocumentSource, _holds_documents, priority=10))
