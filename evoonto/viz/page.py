"""Rendering of the explorer model as ONE self-contained, offline HTML file.

The page is ``static/template.html`` with ``static/explorer.css`` and ``static/explorer.js`` inlined
and the model (:func:`evoonto.viz.data.build_model`) embedded as JSON in a
``<script type="application/json">`` element. Nothing is loaded from the network: a
Content-Security-Policy (W3C CSP Level 3) allows exactly the inlined script and style by their
SHA-256 hashes and nothing else (``default-src 'none'``), so even a string that escaped as markup
could not run.

Escaping (HTML Living Standard §4.12.1.3, restrictions for contents of script elements): the JSON
is written with ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\uXXXX`` escapes, so no data string can
close the script element or open a comment; the page inserts every data string with
``textContent``/attribute values, never ``innerHTML``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import tempfile
from importlib import resources
from pathlib import Path

from evoonto.errors import EvoontoError

_STATIC = ("template.html", "explorer.css", "explorer.js")
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_PLACEHOLDER = re.compile(r"\{\{(CSP|VERSION|TITLE|STYLE|DATA|SCRIPT)\}\}")


class VizOutputError(EvoontoError):
    """The explorer page could not be written (missing directory, permission, not a file path)."""


def _static(name: str) -> str:
    return (resources.files("evoonto.viz") / "static" / name).read_text(encoding="utf-8")


def embed_json(value) -> str:
    """Serialise ``value`` as JSON that is safe inside an HTML ``<script>`` element.

    ``<``, ``>``, ``&``, U+2028 and U+2029 become ``\\u`` escapes (still valid JSON, parsed back to
    the same strings by ``JSON.parse``), so ``</script>`` or ``<!--`` in a label cannot end or
    change the element.

    Raises:
        TypeError: ``value`` is not JSON-serialisable.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_ESCAPES[m.group(0)], text)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def render_page(model: dict) -> str:
    """Return the explorer page for ``model`` as an HTML document (``str``, UTF-8 text).

    Args:
        model: the dict returned by :func:`evoonto.viz.data.build_model`.

    Raises:
        ValueError: ``model`` lacks the ``meta``/``nodes``/``edges``/``history`` keys, or a bundled
            static file would end its inline element early (a packaging bug).
    """
    missing = [key for key in ("meta", "nodes", "edges", "history", "relationTypes") if key not in model]
    if missing:
        raise ValueError(f"not an explorer model: missing {', '.join(missing)}")
    template, style, script = (_static(name) for name in _STATIC)
    if re.search(r"</(script|style)", script + style, re.IGNORECASE):
        raise ValueError("bundled explorer.js/explorer.css must not contain a closing script/style tag")
    from evoonto.version import __version__

    csp = (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; "
           "base-uri 'none'; form-action 'none'")
    values = {
        "CSP": csp,
        "VERSION": html.escape(__version__),
        "TITLE": html.escape(f"{model['meta'].get('title') or 'evoonto'} · evoonto explorer"),
        "STYLE": style,
        "DATA": embed_json(model),
        "SCRIPT": script,
    }
    # one pass over the template, so text inserted for one placeholder is never re-scanned
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def write_page(model: dict, out: str | Path) -> Path:
    """Render ``model`` and write it atomically (temporary file + rename) to ``out``, with the mode
    a plain ``open(out, "w")`` would give: the existing file's mode, else ``0666 & ~umask``.

    Returns:
        The absolute path written.

    Raises:
        VizOutputError: the parent directory does not exist, ``out`` is a directory, or the file
            cannot be written; nothing is left behind in that case.
    """
    out = Path(out).expanduser()
    if out.is_dir():
        raise VizOutputError(f"--out must be a file path, not a directory: {out}")
    if not out.parent.is_dir():
        raise VizOutputError(f"directory does not exist: {out.parent}")
    page = render_page(model)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".evoonto-viz-", suffix=".html", dir=out.parent)
    except OSError as exc:  # a read-only or full disk
        raise VizOutputError(f"cannot write {out}: {exc.strerror or exc}") from exc
    try:
        os.fchmod(fd, _file_mode(out))  # mkstemp's 0600 would make the page private
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(page)
        os.replace(tmp, out)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise VizOutputError(f"cannot write {out}: {exc.strerror or exc}") from exc
    return out.resolve()


def _file_mode(out: Path) -> int:
    """Permission bits for ``out``: kept when it exists, else 0666 minus the process umask."""
    import stat

    try:
        return stat.S_IMODE(out.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


__all__ = ["VizOutputError", "embed_json", "render_page", "write_page"]
