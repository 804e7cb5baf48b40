"""The automation world: a company's SaaS apps as relational services, one module per app
(every module in this package is loaded, in name order). Tables are prefixed with their app."""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
