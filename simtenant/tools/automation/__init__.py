"""The automation world's apps, one module per app (every module in this package is loaded, in
name order); each operation is an ordinary tool, also reachable through api_search / api_fetch."""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "common":
        importlib.import_module(f"{__name__}.{_module}")
