"""``evoonto demo`` as a user runs it: the console script in a subprocess.

Error paths must give one line on stderr, a non-zero exit status and no traceback, and change nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evoonto.demo import MARKER


def evoonto_cmd() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m evoonto``."""
    script = Path(sys.executable).with_name("evoonto")
    return [str(script)] if script.exists() else [sys.executable, "-m", "evoonto"]


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("EVOONTO_WORKSPACE", "ANTHROPIC_API_KEY")}
    return subprocess.run([*evoonto_cmd(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def assert_one_line_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("evoonto: error:")
    assert "Traceback" not in proc.stderr + proc.stdout
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.slow
def test_demo_help_describes_every_step(tmp_path):
    proc = run_cli("demo", "--help", cwd=tmp_path)
    assert proc.returncode == 0
    for word in ("build", "validate", "browse", "evolve", "--rounds", "--force", "--workspace", "CC BY-SA",
                 "evoonto-demo"):
        assert word in proc.stdout


@pytest.mark.slow
def test_existing_foreign_directory_is_refused_and_kept(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("precious", encoding="utf-8")
    proc = run_cli("demo", "--workspace", str(target), cwd=tmp_path)
    assert_one_line_error(proc, "already exists", "--force")
    assert (target / "notes.txt").read_text(encoding="utf-8") == "precious"


@pytest.mark.slow
def test_force_never_deletes_a_directory_that_is_not_a_workspace(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("precious", encoding="utf-8")
    proc = run_cli("demo", "--force", "--workspace", str(target), cwd=tmp_path)
    assert_one_line_error(proc, "not an evoonto workspace")
    assert (target / "notes.txt").exists()


@pytest.mark.slow
def test_workspace_path_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x", encoding="utf-8")
    proc = run_cli("demo", "--workspace", str(target), cwd=tmp_path)
    assert_one_line_error(proc, "not a directory")
    assert target.read_text(encoding="utf-8") == "x"


@pytest.mark.slow
def test_workspace_below_a_file_is_refused(tmp_path):
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    proc = run_cli("demo", "--workspace", str(tmp_path / "file.txt" / "ws"), cwd=tmp_path)
    assert_one_line_error(proc, "cannot create")


@pytest.mark.slow
@pytest.mark.parametrize("rounds", ["-1", "21"])
def test_rounds_out_of_range_is_refused(tmp_path, rounds):
    proc = run_cli("demo", "--rounds", rounds, "--workspace", str(tmp_path / "ws"), cwd=tmp_path)
    assert_one_line_error(proc, "--rounds")
    assert not (tmp_path / "ws").exists()


def test_earlier_demo_workspace_is_replaced(tmp_path, monkeypatch):
    """A directory with the demo marker is replaced (checked in-process, without running the steps)."""
    from evoonto.demo import prepare_workspace

    target = tmp_path / "ws"
    target.mkdir()
    (target / MARKER).write_text("{}", encoding="utf-8")
    (target / "base.trig").write_text("", encoding="utf-8")
    note = prepare_workspace(target)
    assert note and "replaced" in note and not target.exists()


def test_empty_directory_is_used(tmp_path):
    from evoonto.demo import prepare_workspace

    (tmp_path / "ws").mkdir()
    assert prepare_workspace(tmp_path / "ws") is None


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """One full demo run (1 evolution round) into a fresh workspace, through the console script."""
    root = tmp_path_factory.mktemp("demo")
    proc = run_cli("demo", "--rounds", "1", "--workspace", str(root / "ws"), cwd=root)
    return root, proc


@pytest.mark.slow
def test_demo_runs_end_to_end(demo_run):
    root, proc = demo_run
    assert "Traceback" not in proc.stderr, proc.stderr
    out = proc.stdout
    for step in ("split", "build", "validate", "browse", "evaluate", "evolve", "log"):
        assert f"] {step} (" in out, out
    assert "UNAVAILABLE" not in out, out
    assert proc.returncode == 0, out + proc.stderr
    for row in ("full schema prompt", "baseline", "evoonto v0", "version 0: base"):
        assert row in out, out
    assert (root / "ws" / MARKER).is_file()


@pytest.mark.slow
def test_demo_refuses_an_existing_real_workspace_without_force(demo_run, tmp_path):
    root, first = demo_run
    if first.returncode != 0:
        pytest.skip("the first demo run did not complete")
    copy = tmp_path / "ws"
    shutil.copytree(root / "ws", copy)
    (copy / MARKER).unlink()  # now it looks like a user's own workspace
    proc = run_cli("demo", "--rounds", "0", "--workspace", str(copy), cwd=tmp_path)
    assert_one_line_error(proc, "--force")
    assert (copy / "config.json").is_file()

    from evoonto.demo import prepare_workspace  # --force replaces it (checked without a second full run)

    assert "(--force)" in prepare_workspace(copy, force=True) and not copy.exists()


def test_a_missing_step_is_reported_not_faked(tmp_path, monkeypatch, capsys):
    """When an implementation is missing, the demo names the step, skips what depends on it, exits 1."""
    import evoonto.demo as demo
    from evoonto.cli import main

    def missing(state):
        raise demo.StepUnavailable("evoonto.evaluation.splits.make_splits is not part of this installation")

    monkeypatch.setattr(demo, "STEPS", tuple((n, missing if n == "split" else f, needs)
                                             for n, f, needs in demo.STEPS))
    assert main(["demo", "--workspace", str(tmp_path / "ws")]) == 1
    out = capsys.readouterr().out
    assert "UNAVAILABLE: evoonto.evaluation.splits.make_splits is not part of this installation" in out
    assert "skipped: needs the split step" in out
    assert "demo incomplete: step(s) split, build, validate, browse, evaluate, evolve, log did not run" in out


def _serve_and_call(root: Path, *calls: tuple[str, dict]):
    """Start `evoonto serve --data-tools` on the demo workspace (stdio); return tool names and call results."""
    import sys

    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = evoonto_cmd()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "serve", "--data-tools",
                                                         "--workspace", str(root / "ws")], cwd=str(root))

    async def session():
        # the server's stderr goes to the process's real stderr: the SDK's default ``errlog`` is bound
        # to ``sys.stderr`` when ``mcp.client.stdio`` is first imported, which is a capture object
        # without a file descriptor when an earlier test imported it under ``capsys``
        async with Client(stdio_client(params, errlog=sys.__stderr__), read_timeout_seconds=60) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            return tools, [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(session)


@pytest.mark.slow
def test_demo_workspace_is_served_over_mcp_stdio(demo_run):
    """`evoonto serve --workspace PATH --data-tools` serves the demo workspace to a real MCP client,
    including its database (recorded in the workspace settings by the demo)."""
    root, first = demo_run
    if first.returncode != 0:
        pytest.skip("the first demo run did not complete")
    tools, (browsed, tables) = _serve_and_call(root, ("browse", {"q": "singer age"}), ("list_tables", {}))
    assert {"browse", "resolve", "list_tables"} <= tools
    # the default (compact) answer names the column as SQL writes it
    assert not browsed.is_error and '\\"singer\\".\\"Age\\"' in browsed.content[0].text
    assert not tables.is_error and "singer_in_concert" in tables.content[0].text
