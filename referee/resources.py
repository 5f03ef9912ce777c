"""Where the bundled folders are: ``templates/``, ``static/``, ``seeds/`` and
``scripts/`` (of which a wheel carries only ``check_match.py``, issue 27).

They live at the top of the repository, next to ``referee/``. A wheel carries
them inside the package, as ``referee/_bundled/<name>`` (pyproject.toml maps
them there at build time), so an installed server finds them without the
checkout. A checkout, and an editable install of one, has no ``_bundled``
folder and uses the repository's own.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

Bundled = Literal["templates", "static", "seeds", "scripts"]

_CHECKOUT = Path(__file__).resolve().parents[1]


def bundled_dir(name: Bundled) -> Path:
    """The folder ``name`` of the running copy of the referee: the one a wheel
    installed inside the package, else the checkout's."""
    packaged = files("referee") / "_bundled" / name
    # a wheel is always unpacked on disk: Flask and the loaders need real paths
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    checkout = _CHECKOUT / name
    if checkout.is_dir():
        return checkout
    raise RuntimeError(
        f"the bundled folder {name}/ is missing: looked in {packaged} and {checkout}"
    )
