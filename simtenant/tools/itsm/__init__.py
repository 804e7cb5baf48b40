"""ITSM tools, one module per service (every module in this package is loaded, in name order)."""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module != "common":
        importlib.import_module(f"{__name__}.{_module}")
