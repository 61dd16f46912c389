"""Sphinx configuration of schedlab's documentation site.

Build:  python -m sphinx -b html docs docs/_build/html
The notebooks of notebooks/ are executed with small parameters (SCHEDLAB_SMALL=1) and cached in
docs/_build/.jupyter_cache; SCHEDLAB_DOCS_EXECUTE=off renders them without running them (as
stored, i.e. without outputs), =force runs them again.
"""
import fnmatch
import logging
import os
import pathlib
import re

# the notebooks read these; set before any kernel starts
os.environ.setdefault("SCHEDLAB_SMALL", "1")
# figures go into the notebooks' outputs (a non-interactive backend such as Agg would drop them)
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
os.environ.setdefault("SCHEDLAB_PROGRESS", "0")

import schedlab  # noqa: E402  (the installed package: the API and CLI pages are generated from it)

project = "schedlab"
author = "the schedlab authors"
copyright = "the schedlab authors, BSD-3-Clause"
release = version = schedlab.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinxarg.ext",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "api/_templates"]
suppress_warnings = [
    "myst.header",             # pages that start below level 1 (e.g. from notebooks) are fine
    "mystnb.unknown_mime_type",
]

# Markdown (MyST) pages and notebooks
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = os.environ.get("SCHEDLAB_DOCS_EXECUTE", "cache")
nb_execution_cache_path = os.path.join(os.path.dirname(__file__), "_build", ".jupyter_cache")
nb_execution_timeout = int(os.environ.get("SCHEDLAB_DOCS_TIMEOUT", "600"))
nb_execution_raise_on_error = True
nb_merge_streams = True

# API reference from the docstrings
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True,
                           "ignore-module-all": True}  # each object on its own module's page
autodoc_typehints = "description"
autodoc_member_order = "bysource"
napoleon_google_docstring = False
napoleon_numpy_docstring = True

html_theme = "pydata_sphinx_theme"
html_title = f"schedlab {version}"
html_theme_options = {
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = []
# the pages are one level deep: no left sidebar (the top bar lists them), except in the API tree
html_sidebars = {"*": [], "notebooks/*": [], "reproduction/*": [], "api/**": ["sidebar-nav-bs"]}


class _LaterPages(logging.Filter):
    """The toctrees glob pages that later work adds (e.g. reproduction/*); a pattern that matches
    nothing yet is not an error."""

    def filter(self, record):
        return "didn't match any documents" not in record.getMessage()


def _add_unlisted_pages(app, docname, source):
    """Pages of docs/ that no toctree of the index names (e.g. a page added with a new feature)
    go into a last "More" section instead of failing the build."""
    if docname != "index":
        return
    entries = set(re.findall(r"^([\w/*.-]+)\s*$", source[0], re.M))
    pages = sorted(p.stem for p in pathlib.Path(app.srcdir).glob("*.md") if p.stem != "index")
    extra = [p for p in pages if not any(fnmatch.fnmatch(p, e) for e in entries)]
    if extra:
        source[0] += "\n```{toctree}\n:caption: More\n:maxdepth: 1\n\n" + "\n".join(extra) + "\n```\n"


def setup(app):
    for name in ("sphinx.directives.other", "sphinx.sphinx.directives.other"):
        logging.getLogger(name).addFilter(_LaterPages())
    app.connect("source-read", _add_unlisted_pages)
