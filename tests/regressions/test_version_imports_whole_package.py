"""Regression (issue 34 item 2): ``evoonto --version`` took 0.33-0.47 s on an idle machine because
importing the package loaded the RDF core, the builder and the Tool layer, and the command line
imported every subcommand module (the evolution loop and the explorer included) before parsing.
The package face now resolves its names on first use, and ``evoonto COMMAND`` registers only that
command's module.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evoonto.cli import COMMAND_MODULES, _selected_modules, build_parser


def test_command_line_registers_only_the_command_it_runs():
    assert _selected_modules(["browse", "x"]) == ("browse",)
    assert _selected_modules(["check-sql", "SELECT 1"]) == ("check_sql",)
    assert _selected_modules(["approve", "1"]) == ("review",)
    assert _selected_modules(["import", "skos", "f.ttl"]) == ("import_",)
    assert _selected_modules(["--version"]) == ()
    assert _selected_modules(["--help"]) == _selected_modules([]) == _selected_modules(["nope"]) == COMMAND_MODULES
    argv = ["reject", "2", "--why", "wrong"]
    args = build_parser(argv).parse_args(argv)
    assert args.command == "reject" and args.func.__module__ == "evoonto.cli.review"


def test_package_face_resolves_every_public_name():
    import evoonto

    for name in evoonto.__all__:
        assert getattr(evoonto, name) is not None
    with pytest.raises(AttributeError):
        evoonto.no_such_name  # noqa: B018


@pytest.mark.slow
def test_version_imports_whole_package():
    code = ("import io, json, sys, contextlib\n"
            "import evoonto\n"
            "from evoonto.cli import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    try:\n"
            "        main(['--version'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            "heavy = ['rdflib', 'pyoxigraph', 'numpy', 'pyshacl', 'sqlglot', 'bm25s', 'mcp', 'duckdb']\n"
            "print(json.dumps([out.getvalue().strip(), [m for m in heavy if m in sys.modules]]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    version, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert version.startswith("evoonto ") and loaded == []
