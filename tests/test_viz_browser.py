"""The explorer page in a real headless Chromium (Debian ``chromium`` + ``chromium-driver``, Selenium).

Skipped with a reason when /usr/bin/chromium or /usr/bin/chromedriver is missing
(``apt-get install -y chromium chromium-driver``). Screenshots are written under pytest's temporary
directory; their paths are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixtures.viz_support import SMALL_NODES, SMALL_TERMS, make_workspace, synthetic_graphs

from evoonto.cli import main
from evoonto.viz import DEFAULT_MAX_VISIBLE, build_model, write_page

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
XSS = "<script>alert(1)</script>"
WAIT_S = 60  # upper bound for a page to settle on a loaded 2-core CI machine, not a performance target


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip("headless browser tests need /usr/bin/chromium and /usr/bin/chromedriver "
                    "(apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 "--window-size=1400,900", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    yield browser
    browser.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def small_page(tmp_path_factory) -> Path:
    """The page of the fixture workspace, written by ``evoonto viz``."""
    root = tmp_path_factory.mktemp("viz-browser")
    out = root / "explorer.html"
    assert main(["viz", "--workspace", str(make_workspace(root / "ws")), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("viz-screenshots")


def open_page(driver, path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(path.as_uri())
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_element(By.ID, "graph").get_attribute("data-layout") == "settled")


def console_errors(driver) -> list[str]:
    """SEVERE browser log entries since the last call (uncaught errors, console.error, CSP violations)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def node_element(driver, label: str):
    """The drawn node ``<g>`` whose label is exactly ``label`` (compared as text, not as a selector)."""
    element = driver.execute_script(
        "return Array.from(document.querySelectorAll('#graph g.node'))"
        ".find(g => g.querySelector('text').textContent === arguments[0]) || null;", label)
    assert element is not None, f"node {label!r} is not drawn"
    return element


def click_node(driver, label: str) -> None:
    from selenium.webdriver.common.by import By

    node_element(driver, label).find_element(By.CSS_SELECTOR, ".shape").click()


def labels_with_class(driver, cls: str) -> set[str]:
    return set(driver.execute_script(
        "return Array.from(document.querySelectorAll('#graph g.node.' + arguments[0]))"
        ".map(g => g.querySelector('text').textContent);", cls))


def record_title(driver) -> str:
    return driver.execute_script("return document.querySelector('#record h2').textContent;")


@pytest.mark.slow
def test_page_loads_without_console_errors_and_draws_every_node(driver, small_page):
    from selenium.webdriver.common.by import By

    open_page(driver, small_page)
    assert console_errors(driver) == []
    graph = driver.find_element(By.ID, "graph")
    assert graph.get_attribute("data-mode") == "all"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph g.node")) == SMALL_NODES
    assert len(driver.find_elements(By.CSS_SELECTOR, '#graph g.node[data-family="term"]')) == SMALL_TERMS
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph line.edge")) == 19
    for kind in ("derivation", "association", "hierarchy", "composition", "equivalence"):
        assert len(driver.find_elements(By.CSS_SELECTOR, f"#graph line.edge.type-{kind}")) == 1, kind
    assert len(driver.find_elements(By.CSS_SELECTOR, "#history tbody tr")) == 4
    assert len(driver.find_elements(By.CSS_SELECTOR, "#chart circle.point")) == 3   # the invalid round has no score
    assert "13 Terms" in driver.find_element(By.ID, "stats").text


@pytest.mark.slow
def test_clicking_a_node_shows_its_record(driver, small_page):
    from selenium.webdriver.common.by import By

    open_page(driver, small_page)
    click_node(driver, "Singer age")
    assert record_title(driver) == "Singer age"
    record = driver.find_element(By.ID, "record").text
    for expected in ("https://example.org/evoonto/demo/term/concert_singer/singer_age", "Age of the singer in years.",
                     "singer.Age", "AVG", "SELECT Age FROM singer", "25", "Exclude singers without a recorded age.",
                     "Average singer age"):
        assert expected in record, expected
    assert "Singer age" in labels_with_class(driver, "selected")
    assert "Average singer age" in labels_with_class(driver, "neighbor")
    # a linked record navigates to that node
    driver.find_element(By.CSS_SELECTOR, "#record .card h3 button.ref").click()
    assert record_title(driver) == "singer.Age"
    assert "singer.Age" in labels_with_class(driver, "selected")
    assert console_errors(driver) == []


@pytest.mark.slow
def test_explore_from_here_draws_a_two_hop_neighbourhood_and_show_all_returns(driver, small_page):
    from selenium.webdriver.common.by import By

    open_page(driver, small_page)
    click_node(driver, "Performer")
    driver.find_element(By.XPATH, "//div[@id='record']//button[text()='Explore from here']").click()
    graph = driver.find_element(By.ID, "graph")
    assert graph.get_attribute("data-mode") == "neighbourhood"
    drawn = set(driver.execute_script(
        "return Array.from(document.querySelectorAll('#graph g.node text')).map(t => t.textContent);"))
    # Performer -> Singer (hierarchy) -> Concert (association) and Singer's Mapping; nothing further
    assert {"Performer", "Singer", "Concert"} <= drawn and "Concert year" not in drawn
    assert record_title(driver) == "Performer"
    show_all = driver.find_element(By.ID, "show-all")
    assert show_all.is_displayed()
    show_all.click()
    assert graph.get_attribute("data-mode") == "all"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph g.node")) == SMALL_NODES
    assert not show_all.is_displayed()
    assert console_errors(driver) == []


@pytest.mark.slow
def test_selecting_a_version_highlights_its_diff(driver, small_page, screenshots):
    from selenium.webdriver.common.by import By

    open_page(driver, small_page)
    driver.find_element(By.CSS_SELECTOR, '#history tbody tr[data-patch="p3"]').click()
    assert labels_with_class(driver, "diff-add") == {"Age IS NOT NULL", "Old age"}
    assert labels_with_class(driver, "diff-del") == {"Singer age"}
    diff = driver.find_element(By.ID, "diff")
    assert diff.is_displayed() and not driver.find_element(By.ID, "record").is_displayed()
    text = diff.text
    assert "+8 added" in text and "−1 removed" in text and '"years"' in text and "wrong-filter:age" in text
    row = driver.find_element(By.CSS_SELECTOR, '#history tbody tr[data-patch="p3"]')
    assert "selected" in row.get_attribute("class")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#chart circle.point.selected")) == 1
    shot = screenshots / "viz-small-diff.png"
    driver.save_screenshot(str(shot))
    print(f"screenshot: {shot}")
    # the first patch added the composition edge Concert year -> Concert and its Mapping
    driver.find_element(By.CSS_SELECTOR, '#history tbody tr[data-patch="p1"]').click()
    assert labels_with_class(driver, "diff-add") == {"Concert year", "concert.Year"}
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph line.edge.type-composition.diff-add")) == 1
    # a tool-level patch touches nothing drawn
    driver.find_element(By.CSS_SELECTOR, '#history tbody tr[data-patch="p2"]').click()
    assert labels_with_class(driver, "diff-add") == set()
    assert "touches no node" in driver.find_element(By.ID, "diff").text
    assert console_errors(driver) == []


@pytest.mark.slow
def test_xss_label_renders_as_text(driver, small_page):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    open_page(driver, small_page)
    click_node(driver, XSS)
    assert record_title(driver) == XSS
    record = driver.find_element(By.ID, "record").text
    assert "</script><script>window.__xss=2</script>" in record
    assert '"><img src=x onerror="window.__xss=1">' in record
    assert driver.execute_script("return typeof window.__xss;") == "undefined"
    assert driver.execute_script("return document.scripts.length;") == 2
    assert driver.find_elements(By.TAG_NAME, "img") == []
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018
    assert console_errors(driver) == []


@pytest.mark.slow
def test_search_finds_a_synonym_and_selects_it(driver, small_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    open_page(driver, small_page)
    box = driver.find_element(By.ID, "search")
    box.send_keys("nation")
    WebDriverWait(driver, WAIT_S).until(lambda d: d.find_element(By.ID, "search-results").is_displayed())
    assert driver.find_element(By.CSS_SELECTOR, "#search-results li").text.startswith("Country")
    box.send_keys(Keys.ENTER)
    assert record_title(driver) == "Country"
    assert console_errors(driver) == []


@pytest.mark.slow
def test_a_fresh_workspace_renders_an_empty_page_without_errors(driver, tmp_path):
    from selenium.webdriver.common.by import By

    from evoonto.workspace import Workspace

    Workspace.init(tmp_path / "ws")
    out = tmp_path / "empty.html"
    assert main(["viz", "--workspace", str(tmp_path / "ws"), "--out", str(out)]) == 0
    open_page(driver, out)
    assert console_errors(driver) == []
    assert driver.find_elements(By.CSS_SELECTOR, "#graph g.node") == []
    assert "Content graph is empty" in driver.find_element(By.ID, "graph").text
    assert "No evolution rounds yet" in driver.find_element(By.ID, "history").text
    assert "No scored rounds yet" in driver.find_element(By.ID, "chart").text


@pytest.mark.slow
def test_names_that_shadow_javascript_builtins_render(driver, tmp_path):
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import RDF, RDFS, SKOS
    from selenium.webdriver.common.by import By

    from evoonto.namespaces import EVO

    base = "https://example.org/evoonto/x/term/s/"
    content, vocab = Graph(), Graph()
    odd_kind, odd_rel, odd_prop = URIRef(f"{EVO}constructor"), URIRef(f"{EVO}Proto"), URIRef(f"{EVO}toString")
    vocab.add((odd_rel, RDF.type, EVO.RelationType))
    vocab.add((odd_rel, RDFS.label, Literal("constructor")))
    vocab.add((odd_rel, EVO.directProperty, odd_prop))
    a, b = URIRef(base + "a"), URIRef(base + "b")
    for term, label in ((a, "__proto__"), (b, "hasOwnProperty")):
        content.add((term, RDF.type, EVO.Term))
        content.add((term, RDF.type, odd_kind))
        content.add((term, SKOS.prefLabel, Literal(label)))
    content.add((a, odd_prop, b))
    page = write_page(build_model({"content": content, "vocab": vocab}), tmp_path / "odd.html")
    open_page(driver, page)
    assert console_errors(driver) == []
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph g.node")) == 2
    edges = driver.find_elements(By.CSS_SELECTOR, "#graph line.edge.type-constructor")
    assert len(edges) == 1 and (edges[0].get_attribute("stroke") or "").startswith("#")
    assert "constructor" in driver.find_element(By.ID, "legend").text
    click_node(driver, "__proto__")
    assert record_title(driver) == "__proto__"
    assert console_errors(driver) == []


@pytest.mark.slow
def test_five_thousand_terms_render_a_bounded_neighbourhood(driver, tmp_path, screenshots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = write_page(build_model(synthetic_graphs(5000)), tmp_path / "large.html")
    open_page(driver, page)
    assert console_errors(driver) == []
    graph = driver.find_element(By.ID, "graph")
    # the start view is the entities overview (500 Entities, cut to the budget), not a hub's neighbourhood
    assert graph.get_attribute("data-mode") == "overview"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph g.node")) == DEFAULT_MAX_VISIBLE
    assert "300 of 500 entities (11,563 nodes in all)" in driver.find_element(By.ID, "view-note").text
    shot = screenshots / "viz-5000-terms.png"
    driver.save_screenshot(str(shot))
    print(f"screenshot: {shot}")
    # a Term outside the drawn neighbourhood: searching for it moves the neighbourhood there
    drawn = set(driver.execute_script(
        "return Array.from(document.querySelectorAll('#graph g.node')).map(g => g.getAttribute('aria-label'));"))
    target = next(i for i in range(4999, 0, -1) if not any(label.endswith(f" {i}") for label in drawn))
    box = driver.find_element(By.ID, "search")
    box.send_keys(f" {target}")
    box.send_keys(Keys.ENTER)
    title = record_title(driver)
    assert title.endswith(f" {target}")
    assert title in labels_with_class(driver, "selected")
    assert graph.get_attribute("data-mode") == "neighbourhood"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#graph g.node")) <= DEFAULT_MAX_VISIBLE
    assert console_errors(driver) == []
