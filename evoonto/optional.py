"""Optional dependencies: one place that imports them and says how to install a missing one.

The core (RDF store, SHACL, browse/resolve, builder, MCP server, SQLite/DuckDB/SQLAlchemy sources)
installs with ``pip install evoonto``. Four features need extra packages, declared as extras in
``pyproject.toml`` and all installed by ``pip install 'evoonto[all]'`` (the README's ``[test]``
install includes them):

==========  ==================  ==================================================
extra       package             feature
==========  ==================  ==================================================
``llm``     ``anthropic``       Claude proposer, evolver and data agent (``anthropic:MODEL``)
``owl``     ``owlready2``       ``evoonto validate --owl`` (HermiT consistency check, needs Java)
``remote``  ``SPARQLWrapper``   :class:`evoonto.remote.RemoteSparqlStore` and ``evoonto push``
``dbt``     ``PyYAML``          dbt ``schema.yml`` documentation (build), semantic models (``evoonto import dbt``)
``dbt``     ``dbt-semantic-     dbt semantic models and metrics parsed as dbt parses them (``evoonto import dbt``)
            interfaces``
==========  ==================  ==================================================
"""

from __future__ import annotations

import importlib
from types import ModuleType

from evoonto.errors import ConfigurationError

#: import name -> (extra that installs it, feature that needs it)
OPTIONAL: dict[str, tuple[str, str]] = {
    "anthropic": ("llm", "the Claude proposer, evolver and agent (anthropic:MODEL)"),
    "owlready2": ("owl", "the OWL consistency check (validate --owl)"),
    "SPARQLWrapper": ("remote", "remote SPARQL endpoints (RemoteSparqlStore, push)"),
    "yaml": ("dbt", "reading dbt YAML (schema.yml documentation, semantic models, metrics)"),
    "dbt_semantic_interfaces": ("dbt", "parsing dbt semantic models and metrics (evoonto import dbt)"),
}


def require(module: str) -> ModuleType:
    """Import the optional package ``module`` (a key of :data:`OPTIONAL`, or a submodule of one).

    Returns:
        the imported module.

    Raises:
        ConfigurationError: the package is not installed; the one-line message names the feature
            and the ``pip install 'evoonto[EXTRA]'`` command that installs it.
        KeyError: ``module`` is not one of evoonto's optional packages (a programming error).
    """
    extra, feature = OPTIONAL[module.split(".", 1)[0]]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise ConfigurationError(
            f"{feature} needs the optional package {exc.name!r}: pip install 'evoonto[{extra}]'"
        ) from exc


__all__ = ["OPTIONAL", "require"]
