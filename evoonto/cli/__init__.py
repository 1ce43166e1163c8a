"""The ``evoonto`` command line.

Each subcommand lives in its own module under :mod:`evoonto.cli` and exposes
``register(subparsers) -> None``, which adds an ``argparse`` sub-parser whose ``func`` attribute is
called with the parsed namespace and returns an exit status. Heavy imports (rdflib, mcp, anthropic)
happen inside the command functions, so ``evoonto --help`` stays fast.

Every :class:`~evoonto.errors.EvoontoError`, and every ``OSError`` the environment raises (a read-only
or full disk), is printed as one line ``evoonto: error: …`` on stderr with exit status 2; so is any
other exception (input nested too deeply, an unexpected failure), whose traceback is logged at DEBUG
level (printed when ``$EVOONTO_DEBUG`` is set). Ctrl-C exits with 130 without a traceback.
"""

from __future__ import annotations

import argparse
import logging
import importlib
import sys
from pathlib import Path

#: Subcommand modules, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "init", "build", "verified", "validate", "browse", "resolve", "check_sql", "query", "sparql", "serve", "eval",
    "evolve", "feedback", "review", "log", "diff", "rollback", "drift", "export", "push", "import_", "migrate",
    "viz", "demo",
)

#: Commands whose module is not named after them (the others live in ``evoonto.cli.<name>``).
COMMAND_MODULE_OF = {"check-sql": "check_sql", "import": "import_", "approve": "review", "reject": "review"}

DESCRIPTION = """\
evoonto: a self-evolving ontology layer for data agents (OWL + SHACL + SKOS + PROV-O, SPARQL, MCP).

Typical session:
  evoonto demo                                  # build, evaluate and evolve on the bundled database
  evoonto build --source db.sqlite --workload questions.jsonl
  evoonto browse "revenue per customer"         # ranked Terms, Mappings, Evidence
  evoonto serve                                 # MCP server for an agent (stdio)
  evoonto evolve --rounds 5                     # diagnose -> attribute -> patch -> gate

The workspace is ./.evoonto unless --workspace PATH is given.
"""


def _add_workspace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace", "-w", default=None, metavar="PATH",
        help="workspace directory (default: $EVOONTO_WORKSPACE or ./.evoonto)",
    )


def _selected_modules(argv: list[str] | None) -> tuple[str, ...]:
    """The subcommand modules :func:`build_parser` registers for ``argv``: only the named command's
    module when ``argv`` starts with a command (so ``evoonto browse …`` never imports the evolution
    loop or the explorer), none for a lone ``--version``, else all (``--help``, errors, no command)."""
    if not argv:
        return COMMAND_MODULES
    first = argv[0]
    if first == "--version" and len(argv) == 1:
        return ()
    module = COMMAND_MODULE_OF.get(first, first)
    return (module,) if not first.startswith("-") and module in COMMAND_MODULES else COMMAND_MODULES


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Return the top-level parser with the subcommands ``argv`` needs registered: every available
    one by default (``argv`` None), only the chosen command's module when ``argv`` names one
    (:func:`_selected_modules`; start-up cost of a command is its own imports only)."""
    parser = argparse.ArgumentParser(
        prog="evoonto", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from evoonto.version import __version__

    parser.add_argument("--version", action="version", version=f"evoonto {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES if argv is None else _selected_modules(argv):
        try:
            module = importlib.import_module(f"evoonto.cli.{name}")
        except ModuleNotFoundError as exc:  # a command whose module is not written yet
            if exc.name == f"evoonto.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def workspace_path(args: argparse.Namespace) -> Path:
    """The workspace directory chosen by ``--workspace``, ``$EVOONTO_WORKSPACE`` or ``./.evoonto``."""
    import os

    # argparse's namespace holds only the options of the command that ran (not every command has --workspace)
    return Path(getattr(args, "workspace", None) or os.environ.get("EVOONTO_WORKSPACE") or ".evoonto")


#: True while :func:`main` runs as the ``evoonto`` program (``argv`` from the command line): the
#: process is then the command's own, and a one-shot command may take process-wide decisions.
_OWNS_PROCESS = False


def owns_process() -> bool:
    """True when the running command is the ``evoonto`` program itself (console script or
    ``python -m evoonto``), not a :func:`main` call inside another program or a test."""
    return _OWNS_PROCESS


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``evoonto`` console script; returns the process exit status.

    ``argv`` None: the command line of this process (the command then :func:`owns_process`)."""
    global _OWNS_PROCESS
    from evoonto.errors import EvoontoError

    _OWNS_PROCESS = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):  # argparse sets func only when a command was given
        parser.print_help()
        return 0
    _quiet_library_logs()
    import warnings

    shown = warnings.showwarning
    warnings.showwarning = _warning_line(shown)
    try:
        return int(args.func(args) or 0)
    except EvoontoError as exc:
        print(f"evoonto: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("evoonto: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the environment refused (read-only or full disk, permissions): one line
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"evoonto: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except RecursionError:  # input nested deeper than a parser can follow (SQL, JSON, YAML)
        _log_details()
        print("evoonto: error: the input is nested too deeply to be read", file=sys.stderr)
        return 2
    except MemoryError:
        _log_details()
        print("evoonto: error: out of memory reading the input (is a file too large?)", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - any other failure is still one line; details at debug level
        _log_details()
        from evoonto.errors import first_line

        print(f"evoonto: error: unexpected {type(exc).__name__}: {first_line(exc, 300)} "
              f"(set {DEBUG_ENV}=1 for the traceback)", file=sys.stderr)
        return 2
    finally:
        if warnings.showwarning is not shown:
            warnings.showwarning = shown


def _warning_line(default):
    """A ``warnings.showwarning`` that prints evoonto's own warnings (a :class:`SourceWarning`: a file
    skipped, a query kept with doubts) as one ``evoonto: warning: …`` line on stderr, not as
    ``path/to/module.py:125: SourceWarning: …`` with a source line; other warnings go to ``default``."""
    from evoonto.sources.base import SourceWarning

    def show(message, category, filename, lineno, file=None, line=None):
        if isinstance(category, type) and issubclass(category, SourceWarning):
            print(f"evoonto: warning: {message}", file=sys.stderr)
        else:
            default(message, category, filename, lineno, file, line)
    return show


#: Environment variable that, when set to a non-empty value, prints the traceback of an unexpected
#: error (logged at DEBUG level on the ``evoonto`` logger) after its one-line message.
DEBUG_ENV = "EVOONTO_DEBUG"


def _quiet_library_logs() -> None:
    """sqlglot logs its own warnings (unsupported syntax parsed as a command, dialect fall-backs) with
    no prefix; on the command line they are shown only with ``$EVOONTO_DEBUG``, each prefixed
    ``evoonto: debug: sqlglot:`` (errors stay visible, prefixed ``evoonto: warning: sqlglot:``)."""
    import logging
    import os

    log = logging.getLogger("sqlglot")
    debug = bool(os.environ.get(DEBUG_ENV))
    for old in [h for h in log.handlers if isinstance(h, _StderrLines)]:
        log.removeHandler(old)
    log.addHandler(_StderrLines(f"evoonto: {'debug' if debug else 'warning'}: sqlglot: %(message)s"))
    log.propagate = False
    log.setLevel(logging.DEBUG if debug else logging.ERROR)


class _StderrLines(logging.Handler):
    """Log records as one line each on the current ``sys.stderr`` (looked up per record)."""

    def __init__(self, fmt: str):
        super().__init__()
        self.setFormatter(logging.Formatter(fmt))

    def emit(self, record) -> None:
        try:
            print(self.format(record).splitlines()[0] if record.exc_info is None else self.format(record),
                  file=sys.stderr)
        except Exception:  # noqa: BLE001 - logging must never fail the command
            self.handleError(record)


def _log_details() -> None:
    """Log the exception being handled at DEBUG level (shown on stderr only when ``$EVOONTO_DEBUG`` is set)."""
    import logging
    import os

    log = logging.getLogger("evoonto")
    if os.environ.get(DEBUG_ENV) and not any(isinstance(h, _StderrLines) for h in log.handlers):
        log.addHandler(_StderrLines("evoonto: debug: %(message)s"))
        log.setLevel(logging.DEBUG)
    log.debug("details of the error", exc_info=True)


add_workspace_option = _add_workspace_option
