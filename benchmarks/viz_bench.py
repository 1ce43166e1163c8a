"""Benchmark of the visual explorer (issue 8): model extraction, page size, browser load and layout.

For seeded synthetic ontologies of N Terms (``tests/fixtures/viz_support.synthetic_graphs``: about
2.3 drawn nodes per Term: Mappings, Evidence, Constraints; five relation types; 30 scored rounds),
it prints:

- triples in the content graph, drawn-graph nodes and edges;
- ``build_model`` time (seconds, best of --repeat), and ``render_page`` + write time;
- page size (MB);
- with /usr/bin/chromium: DOMContentLoaded and layout-settled times (ms since navigation start,
  headless Chromium), nodes actually drawn (bounded by --max-visible), layout ticks, and the time
  to move the neighbourhood to a searched Term (ms, search + re-render + pre-layout).

Usage::

    python benchmarks/viz_bench.py [--sizes 1000 5000 20000] [--repeat 3] [--max-visible 300] [--no-browser]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the synthetic generator shared with tests/test_viz_*.py


def browser_numbers(page: Path, profile: str) -> dict:
    """Load ``page`` in headless Chromium; return load/settle timings (ms) and what was drawn."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,900",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    try:
        driver.get(page.as_uri())
        graph = driver.find_element(By.ID, "graph")
        WebDriverWait(driver, 300).until(lambda d: graph.get_attribute("data-layout") == "settled")
        loaded = driver.execute_script(
            "return Math.round(performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd);")
        out = {"dcl_ms": loaded, "settled_ms": int(graph.get_attribute("data-settled-ms")),
               "drawn": int(graph.get_attribute("data-visible")), "ticks": int(graph.get_attribute("data-ticks"))}
        drawn = set(driver.execute_script(
            "return Array.from(document.querySelectorAll('#graph g.node')).map(g => g.getAttribute('data-index'));"))
        target = driver.execute_script(
            "var data = JSON.parse(document.getElementById('evoonto-data').textContent);"
            "for (var i = data.nodes.length - 1; i >= 0; i--) {"
            "  if (data.nodes[i].family === 'term' && arguments[0].indexOf(String(i)) < 0)"
            "    return data.nodes[i].label; }"
            "return null;", sorted(drawn))
        box = driver.find_element(By.ID, "search")
        box.send_keys(target)
        started = time.perf_counter()
        box.send_keys(Keys.ENTER)
        WebDriverWait(driver, 60).until(
            lambda d: d.execute_script("return document.querySelector('#record h2') && "
                                       "document.querySelector('#record h2').textContent;") == target)
        out["refocus_ms"] = round((time.perf_counter() - started) * 1000)
        return out
    finally:
        driver.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000], help="numbers of Terms")
    parser.add_argument("--repeat", type=int, default=3, help="build_model runs per size (best is printed)")
    parser.add_argument("--max-visible", type=int, default=300, help="node budget of one drawn view")
    parser.add_argument("--no-browser", action="store_true", help="skip the headless Chromium part")
    args = parser.parse_args()

    from fixtures.viz_support import synthetic_graphs

    from evoonto.viz import build_model, write_page

    browser = not args.no_browser and Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()
    print(f"{'terms':>7} {'triples':>8} {'nodes':>7} {'edges':>7} {'model s':>8} {'page s':>7} {'MB':>6}"
          + (f" {'DCL ms':>7} {'settled ms':>10} {'drawn':>6} {'ticks':>6} {'refocus ms':>10}" if browser else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            graphs = synthetic_graphs(size)
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                model = build_model(graphs, max_visible=args.max_visible)
                times.append(time.perf_counter() - started)
            started = time.perf_counter()
            page = write_page(model, Path(tmp) / f"viz-{size}.html")
            page_s = time.perf_counter() - started
            line = (f"{size:>7} {len(graphs['content']):>8} {len(model['nodes']):>7} {len(model['edges']):>7} "
                    f"{min(times):>8.2f} {page_s:>7.2f} {page.stat().st_size / 1e6:>6.1f}")
            if browser:
                b = browser_numbers(page, tempfile.mkdtemp(dir=tmp))
                line += (f" {b['dcl_ms']:>7} {b['settled_ms']:>10} {b['drawn']:>6} {b['ticks']:>6} "
                         f"{b['refocus_ms']:>10}")
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
