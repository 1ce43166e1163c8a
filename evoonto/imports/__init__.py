"""Import knowledge a team already has as Content patches (``evoonto import …``).

- :mod:`evoonto.imports.skos`: a SKOS glossary (concepts, labels, definitions, hierarchy).

Each importer returns a :class:`~evoonto.patch.Patch` on the content level plus a summary; the CLI
commits it (``Workspace.commit`` validates the touched nodes with the shapes first), so an import is
one reviewable, revertible step in the history (``evoonto log``, ``evoonto rollback``).
"""
