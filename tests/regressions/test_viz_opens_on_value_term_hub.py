"""Regression (issue 17, item 8): the explorer opened a large graph on the neighbourhood of the
best-connected Term, an arbitrary value Term ("107 of 1,732 nodes around 'Sale total by amount
company name'" on Northwind, "Invoice billing state" on Chinook). It now opens on the entities
(tables) overview, with the relations between them, and search as the way in."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.viz_support import synthetic_graphs
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, SKOS

from evoonto.namespaces import EVO
from evoonto.viz import build_model, write_page

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


def test_the_model_lists_the_entities_with_their_terms():
    model = build_model(synthetic_graphs(400))
    overview = model["overview"]
    nodes = model["nodes"]
    entities = {i for i, n in enumerate(nodes) if n["family"] == "term" and n["kind"] == "Entity"}
    assert overview["basis"] == "entity" and set(overview["nodes"]) == entities and overview["total"] == 40
    under = {i: 0 for i in entities}
    for edge in model["edges"]:
        if edge["type"] in ("hierarchy", "composition") and edge["target"] in under:
            under[edge["target"]] += 1
    assert overview["terms"] == [under[i] for i in overview["nodes"]]
    assert overview["terms"] == sorted(overview["terms"], reverse=True) and sum(overview["terms"]) > 0


def test_without_entities_the_overview_falls_back_to_table_level_terms():
    base = "https://example.org/evoonto/x/"
    content = Graph()
    table_term, column_term = URIRef(base + "term/db/orders"), URIRef(base + "term/db/orders.total")
    for term, label, mapping, column in ((table_term, "Orders", "mapping/db/orders", None),
                                         (column_term, "Order total", "mapping/db/orders/total", "total")):
        m = URIRef(base + mapping)
        content.add((term, RDF.type, EVO.Term))
        content.add((term, SKOS.prefLabel, Literal(label, lang="en")))
        content.add((term, EVO.hasMapping, m))
        content.add((m, RDF.type, EVO.Mapping))
        content.add((m, EVO.table, URIRef(base + "source/db/table/orders")))
        if column:
            content.add((m, EVO.column, URIRef(base + f"source/db/table/orders/column/{column}")))
    model = build_model({"content": content})
    assert model["overview"]["basis"] == "table"
    assert [model["nodes"][i]["label"] for i in model["overview"]["nodes"]] == ["Orders"]


@pytest.mark.slow
@pytest.mark.browser
def test_a_large_graph_opens_on_its_entities(tmp_path):
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip("needs /usr/bin/chromium and /usr/bin/chromedriver (apt-get install -y chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = write_page(build_model(synthetic_graphs(400)), tmp_path / "page.html")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1400,900", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        driver.get(page.as_uri())
        WebDriverWait(driver, 60).until(
            lambda d: d.find_element(By.ID, "graph").get_attribute("data-layout") == "settled")
        graph = driver.find_element(By.ID, "graph")
        assert graph.get_attribute("data-mode") == "overview"
        kinds = driver.execute_script(
            "var data = JSON.parse(document.getElementById('evoonto-data').textContent);"
            "return Array.from(document.querySelectorAll('#graph g.node'))"
            ".map(g => data.nodes[Number(g.getAttribute('data-index'))].kind);")
        assert kinds == ["Entity"] * 40
        assert driver.find_element(By.ID, "view-note").text.startswith("Overview: 40 entities")
        # "Explore from here" leaves the overview; the Overview button comes back to it
        driver.find_element(By.CSS_SELECTOR, "#graph g.node .shape").click()
        next(b for b in driver.find_elements(By.CSS_SELECTOR, "#record .actions button")
             if b.text == "Explore from here").click()
        assert graph.get_attribute("data-mode") == "neighbourhood"
        driver.find_element(By.ID, "overview").click()
        assert graph.get_attribute("data-mode") == "overview"
    finally:
        driver.quit()
