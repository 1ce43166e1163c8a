"""``evoonto build``: the cold-start builder (issue 4) from the command line."""

from __future__ import annotations

import argparse
import os

from evoonto.cli import add_workspace_option

HELP = "build the initial ontology from data sources and an optional question workload"

DESCRIPTION = """\
Build version 0 of the ontology: harvest each source's catalog, profile its columns, propose Terms
from the schema and the workload questions, verify every candidate with read-only probes, and
construct Terms, Mappings, Evidence, Constraints and relations (validated with the SHACL shapes).

Sources: SQLite files, SQLAlchemy URLs, folders of CSV/Parquet files, folders of documents.
Workload: JSON Lines ({"id", "question"}), plain text (one question per line), or a Spider/BIRD
question file; only the question text is read, never gold SQL or answers.
Verified queries (--verified FILE, JSON Lines {"question", "sql", "id", "db_id", "verified_by",
"verified_at"}): SQL a person vouches for, kept as evo:VerifiedQuery and mined into metric Terms
with their expression, named filters, date grains, joins and synonyms (see `evoonto verified --help`;
a bad line is reported as FILE:LINE and left out).
Proposer: "offline" (default; deterministic, no network) or "anthropic:MODEL" (Claude, e.g.
anthropic:claude-sonnet-5-5; needs ANTHROPIC_API_KEY in the environment).

Workspace: a missing or empty folder, a workspace fresh from `evoonto init` (its name and base IRI
are kept) or a half-made one (left by a build killed early) is written. A workspace that holds
Terms, patches, trajectories or runs is refused with one line saying what it holds; --force
replaces it: its config.json, base.trig, patches/, trajectories/ and runs/ are MOVED (not deleted)
into WORKSPACE/backups/<UTC time>/ and a new workspace is made as `evoonto init` makes one, so old
runs and trajectories never mix with the new base. WORKSPACE/lexicon.tsv stays in place.
Source paths are recorded as absolute paths, so `evoonto serve` works from any directory.

Documentation (skip it with --no-documentation): table and column comments (SQLite `-- …` after a
column in CREATE TABLE, PostgreSQL COMMENT ON, any comment SQLAlchemy reflects) and, beside a
database file, a BIRD-style database_description/<table>.csv data dictionary, dbt property files
(schema.yml / _models.yml, or a dbt_project.yml folder's models/) and a Spider-style tables.json.
They give labels, definitions, value meanings ('POS' = point of sale) and dbt tests; each statement
is kept as Evidence pointing at its file and line, and a documented value the data never shows is
recorded as contradicted. A malformed row or an unknown column is one warning naming file and line.

A big workspace (base.trig of 4 MiB or more) is made ready to serve: the persisted store, browse
index, table joins, value index and manifest that `evoonto serve` needs before its first answer are
written under WORKSPACE/cache/ by a process of its own once the build's is done (at 70,000 columns a
first serve otherwise spends minutes making them). --no-serve-cache leaves that to the first serve or
browse.

Examples:
  evoonto build --source db.sqlite --workload questions.jsonl --workspace ./onto
  evoonto build --source other.sqlite --workspace ./onto --force   # replace ./onto (old one backed up)
  evoonto build --source db.sqlite --proposer anthropic:claude-sonnet-5-5 --workspace ./onto
  evoonto build --source chinook.sqlite --verified examples/chinook/verified.jsonl --workspace ./onto
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``build`` sub-parser."""
    parser = subparsers.add_parser(
        "build", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--source", "-s", action="append", required=True, metavar="URL_OR_PATH",
                        help="a data source (repeat for several): SQLite file, SQLAlchemy URL, folder")
    parser.add_argument("--workload", metavar="FILE", default=None,
                        help="question workload: JSON Lines, plain text, or a Spider/BIRD JSON file")
    parser.add_argument("--verified", metavar="FILE", default=None,
                        help="verified queries, JSON Lines: {question, sql[, id, db_id, verified_by, verified_at]} "
                             "per line; mined into metrics, named filters, date grains, joins and synonyms")
    parser.add_argument("--proposer", default="offline", metavar="offline|anthropic:MODEL",
                        help="who proposes candidates (default: offline)")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing workspace; its files are moved to WORKSPACE/backups/<UTC time>/")
    parser.add_argument("--no-progress", action="store_true", help="do not show the progress bar")
    parser.add_argument("--no-serve-cache", action="store_true",
                        help="for a big workspace (base.trig of 4 MiB or more), do not prepare what `evoonto serve` "
                             "needs before its first answer (the persisted store, browse index, table joins, value "
                             "index and manifest under WORKSPACE/cache/); the first serve or browse then makes them")
    parser.add_argument("--no-documentation", action="store_true",
                        help="do not read comments, data dictionaries, dbt files or tables.json beside the sources")
    add_workspace_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build and write the workspace; prints a one-screen summary. Returns 0.

    The progress bar goes to stderr only when it is a terminal (:func:`evoonto.progress.progress_bar`)
    and is cleared before an error propagates, so ``evoonto: error: …`` starts its own line.
    """
    import sys
    import time
    import warnings

    started = time.perf_counter()
    with warnings.catch_warnings():
        # source warnings (an empty table source, a file read as Latin-1 …) as one stderr line each
        from evoonto.progress import progress_write

        warnings.showwarning = lambda message, *rest, **kw: progress_write(f"evoonto: warning: {message}",
                                                                           file=sys.stderr)
        return _run(args, started)


def _run(args: argparse.Namespace, started: float) -> int:
    """:func:`run` after the warning display is set up; ``started`` is its perf_counter (s)."""
    import time

    from evoonto.builder.pipeline import STEPS, build, make_proposer
    from evoonto.workspace import (BACKUP_DIR, BASE_FILE, PERSIST_MIN_BYTES, check_workspace_target,
                                   workspace_base_iri, write_build)
    from evoonto.cli import workspace_path
    from evoonto.lexicon import Lexicon
    from evoonto.progress import progress_bar

    path = workspace_path(args)
    proposer = make_proposer(args.proposer)  # fails fast (missing ANTHROPIC_API_KEY) before any work
    replaced = check_workspace_target(path, force=args.force)  # refuse before any work, too
    base_iri = workspace_base_iri(path, force=args.force)
    verified = None
    if args.verified:  # as `evoonto verified add` reads it: a malformed line is warned about and left out
        from evoonto.builder.verified import load_verified

        verified = load_verified(args.verified, skip_malformed=True)
    with progress_bar(len(args.source) * len(STEPS), unit="step", enabled=not args.no_progress) as bar:
        def progress(source_id: str, step: str) -> None:
            bar.set_description(f"{source_id}: {step}")
            bar.update(1)

        # validate=False: the workspace validates the new base with the SHACL shapes before writing it
        result = build(args.source, args.workload, proposer=proposer, base_iri=base_iri, progress=progress,
                       validate=False, lexicon=Lexicon.load(path),  # + the workspace's lexicon.tsv
                       verified=verified, documentation=not args.no_documentation)
    ws = write_build(result, path, force=args.force)
    total_s = time.perf_counter() - started
    build_s = result.elapsed_ms / 1000
    c = result.counts
    print(f"built {path} (version {ws.version}) from {len(result.sources)} source(s) with the "
          f"{result.proposer} proposer in {total_s:.1f} s (build {build_s:.1f} s, "
          f"validation and writing {max(total_s - build_s, 0.0):.1f} s)")
    print(f"  {c['terms']} terms, {c['mappings']} mappings, {c['evidence']} evidence, "
          f"{c['constraints']} constraints, {c['relations']} relations; "
          f"{len(result.rejected)} candidates rejected by verification")
    if args.verified:
        print(f"  {c.get('verified_queries', 0)} verified queries: {c.get('metrics', 0)} metrics, "
              f"{c.get('filters', 0)} named filters, {c.get('grains', 0)} date grains, "
              f"{c.get('synonyms', 0)} synonyms, {c.get('joins', 0)} new joins")
    if c.get("documentation"):
        print(f"  {c['documentation']} documentation statements read; {c.get('documented_values', 0)} documented "
              f"value lists probed, {c.get('contradicted', 0)} contradicted by the data")
    if replaced is not None:
        print(f"  replaced {replaced}; its files are in {path / BACKUP_DIR}/")
    for report in result.sources:
        print(f"  {report.source}: {report.counts['terms']} terms, {report.questions} questions, "
              f"{report.elapsed_ms / 1000:.2f} s")
    if not args.no_serve_cache and (ws.path / BASE_FILE).stat().st_size >= PERSIST_MIN_BYTES:
        folder = ws.path
        del result, ws  # the child opens the files: this process's store and objects are not needed
        prepare_in_child(folder)
    return 0


def prepare_in_child(path: os.PathLike[str] | str) -> bool:
    """Prepare the serve cache of the big workspace at ``path`` (:func:`evoonto.server.prepare_serve_cache`)
    in a new process, so its memory does not add to what the build's process already holds (at
    70,000 columns the two in one process peaked at 7.0 GB; apart, 5.1 and 4.0 GB). Prints one line
    on how it went; a failure only leaves the cache to the first serve.

    Returns:
        True when the child prepared the cache.
    """
    import gc
    import subprocess
    import sys
    import time

    from evoonto import workspace  # the module's threshold as it is now (tests lower it)

    gc.collect()
    print("  preparing the serve cache (store, browse index, joins, values, manifest) ...", flush=True)
    started = time.perf_counter()
    code = ("import sys; from evoonto.server import prepare_serve_cache; "
            "prepare_serve_cache(sys.argv[1], min_bytes=int(sys.argv[2]))")
    proc = subprocess.run([sys.executable, "-c", code, str(path), str(workspace.PERSIST_MIN_BYTES)],
                          capture_output=True, text=True)
    if proc.returncode:
        reason = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        print(f"  serve cache not prepared ({reason[:300]}); the first serve or browse makes it")
        return False
    print(f"  serve cache ready in {time.perf_counter() - started:.1f} s")
    return True
