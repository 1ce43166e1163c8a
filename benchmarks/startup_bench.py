"""Start-up benchmark (issue 34 item 2): how long a user waits for the commands they run most.

Measured in new processes on a demo workspace (built with ``evoonto demo`` into a temporary folder
unless ``--workspace`` names one), each the median of ``--runs`` runs, wall seconds:

- ``evoonto --version``;
- ``evoonto browse -w WS "singer age"`` (the shell's browse, warm cache);
- ``evoonto serve -w WS`` over stdio until the server answers ``initialize`` (the official ``mcp``
  client's handshake), and until its first ``browse`` answer;
- the floor under ``serve``: a bare ``python -c "import mcp"`` (the official SDK, which every MCP
  server built on it imports before it can answer) and ``python -c "pass"``.

Targets (issue 34, idle 2-core machine): ``--version`` ≤ 0.2 s, browse ≤ 0.3 s, ``serve`` ready ≤ 0.5 s.
The script prints the machine's load average first: numbers measured beside other work are higher.

    python benchmarks/startup_bench.py [--workspace WS] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

TARGETS = {"--version": 0.2, "browse": 0.3, "serve ready": 0.5}


def _exe() -> str:
    return str(Path(sys.executable).parent / "evoonto")


def timed(command: list[str]) -> float:
    """Wall seconds of one process run to completion (output discarded).

    Raises:
        RuntimeError: the command failed.
    """
    t = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {proc.stderr.strip()[-300:]}")
    return wall


def serve_times(workspace: Path) -> tuple[float, float]:
    """``evoonto serve -w WORKSPACE`` started by the official MCP client over stdio: wall seconds from
    the start to the answered ``initialize`` (ready) and to the first ``browse`` answer."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=_exe(), args=["serve", "--workspace", str(workspace)],
                                   env=dict(os.environ))
    out: list[float] = []

    async def main() -> None:
        t = time.perf_counter()
        errlog = sys.__stderr__ or sys.stderr
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            out.append(time.perf_counter() - t)
            result = await client.call_tool("browse", {"q": "singer age"})
            out.append(time.perf_counter() - t)
            if result.is_error:
                raise RuntimeError(f"browse failed: {result.content}")

    anyio.run(main)
    return out[0], out[1]


def median_of(runs: int, measure: Callable[[], float]) -> float:
    """The median of ``runs`` calls of ``measure`` after one unmeasured warm-up call (file cache)."""
    measure()
    return statistics.median(measure() for _ in range(runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, help="a built workspace (default: a fresh demo workspace)")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median; default 5)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; median of {args.runs} runs, wall s")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = args.workspace
        if workspace is None:
            subprocess.run([_exe(), "demo", "--workspace", str(Path(tmp) / "demo"), "--rounds", "0"],
                           check=True, capture_output=True)
            workspace = Path(tmp) / "demo"
        rows = {
            "python -c pass": median_of(args.runs, lambda: timed([sys.executable, "-c", "pass"])),
            "python -c 'import mcp'": median_of(args.runs, lambda: timed([sys.executable, "-c", "import mcp"])),
            "--version": median_of(args.runs, lambda: timed([_exe(), "--version"])),
            "browse": median_of(args.runs, lambda: timed([_exe(), "browse", "-w", str(workspace), "singer age"])),
        }
        serve_times(workspace)  # warm-up
        served = [serve_times(workspace) for _ in range(args.runs)]
        rows["serve ready"] = statistics.median(s[0] for s in served)
        rows["serve first browse"] = statistics.median(s[1] for s in served)
    for name, seconds in rows.items():
        target = TARGETS.get(name)
        verdict = "" if target is None else f"  target <= {target} s: {'met' if seconds <= target else 'NOT met'}"
        print(f"  {name:<24} {seconds:6.3f} s{verdict}")
    floor = rows["python -c 'import mcp'"]
    print(f"serve ready {rows['serve ready']:.2f} s, of which importing the official mcp SDK alone takes "
          f"{floor:.2f} s; evoonto's own share {rows['serve ready'] - floor:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
