"""Shared pytest fixtures and the two test layers.

Layers: ``pytest -q`` runs the fast layer, every test not marked ``slow``. The slow layer (tests
that start processes or servers, kill or fault-inject them, execute notebooks, drive a browser,
read every Spider database, or take more than about 2 s) runs with ``--slow`` (both layers) or with
a ``-m`` expression naming ``slow`` (``-m slow``: the slow layer alone). A test file named on the
command line (``pytest tests/test_core_faults.py``) runs whole. ``.ci/run`` passes ``--slow``.

``shared_data``: the ``../shared/data`` folder beside the repository (Spider, Chinook, Northwind,
InsightBench), or ``$EVOONTO_SHARED_DATA``; tests that need it are skipped when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False,
                     help="run the slow layer too (tests marked slow: processes, servers, kill tests, "
                          "notebooks, browsers, all Spider databases); CI runs with it")


def _slow_layer_asked(config: pytest.Config) -> bool:
    """``--slow``, or a ``-m`` expression that names the marker (``-m slow``, ``-m "slow and not browser"``)."""
    return bool(config.getoption("--slow")) or "slow" in (config.getoption("markexpr") or "")


def _named_files(config: pytest.Config) -> set[Path]:
    """The test files named on the command line (``tests/test_x.py``, ``tests/test_x.py::test_y``);
    folders do not count."""
    named = set()
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0])
        if path.is_file():
            named.add(path.resolve())
    return named


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without ``--slow``, deselect the slow layer (reported as deselected, with how to run it),
    except the tests of files named on the command line: ``pytest tests/test_x.py`` runs all of it."""
    if _slow_layer_asked(config):
        return
    named = _named_files(config)
    slow = [item for item in items
            if item.get_closest_marker("slow") is not None and Path(item.path).resolve() not in named]
    if slow:
        dropped = set(map(id, slow))
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if id(item) not in dropped]
        config.stash[_DESELECTED_SLOW] = len(slow)


_DESELECTED_SLOW = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    count = config.stash.get(_DESELECTED_SLOW, 0)
    if count:
        terminalreporter.write_line(f"fast layer: {count} slow test(s) deselected; run them with --slow "
                                    f"(both layers) or -m slow (the slow layer alone)")


def shared_data_dir() -> Path | None:
    """The shared data folder, or None when it is not present on this machine."""
    env = os.environ.get("EVOONTO_SHARED_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "data")
    for path in candidates:
        if (path / "spider").is_dir():
            return path
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data is not present (set EVOONTO_SHARED_DATA)")
    return path


@pytest.fixture(scope="session")
def spider_dir(shared_data: Path) -> Path:
    return shared_data / "spider"


@pytest.fixture(scope="session")
def concert_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a workspace built once per session from the bundled concert_singer database
    (offline builder, no workload; base IRI of a workspace named ``ws``). Shared: open it to read;
    a test that writes copies it first (``shutil.copytree``)."""
    from evoonto import create_workspace
    from evoonto.demo import bundled_data

    path = tmp_path_factory.mktemp("concert") / "ws"
    create_workspace(path, [bundled_data().database])
    return path


@pytest.fixture(scope="session")
def virtuoso_session(tmp_path_factory) -> Iterator[tuple[str, set[str]]]:
    """One Virtuoso 7 server for the session: ``(SPARQL endpoint URL, its own system graphs)``.

    Skipped with the reason when the Debian package is not installed (.ci/run installs it as root).
    """
    from fixtures.remote_support import graphs_of, virtuoso_binaries, virtuoso_server

    if virtuoso_binaries() is None:
        pytest.skip("Virtuoso is not installed: apt-get install virtuoso-opensource-7-bin (.ci/run does it as root)")
    with virtuoso_server(tmp_path_factory.mktemp("virtuoso")) as endpoint:
        yield endpoint, graphs_of(endpoint)


@pytest.fixture
def virtuoso(virtuoso_session) -> str:
    """The session's Virtuoso SPARQL endpoint, emptied of every graph but its system graphs."""
    from fixtures.remote_support import drop_graphs

    endpoint, system = virtuoso_session
    drop_graphs(endpoint, system)
    return endpoint
