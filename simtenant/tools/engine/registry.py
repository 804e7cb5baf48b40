"""The tool registry: a decorator that turns a typed function into a tool.

A tool's signature and docstring are its interface: the arguments model
(and so the JSON Schema) is generated from the type hints, the description
from the docstring. Nothing is written twice.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Annotated, Any, get_type_hints

from pydantic import BaseModel, ConfigDict, StringConstraints, create_model

Method = str  # "GET" reads, anything else writes

# Free text that must say something: surrounding blanks are dropped, then it may not be empty.
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


@dataclass(frozen=True)
class Tool:
    name: str
    service: str
    method: Method
    path: str
    description: str
    fn: Callable[..., Any]
    declared: Callable[..., Any]  # the function whose typed parameters are the arguments (``fn``, unless wrapped)
    ends: bool = False  # a successful call ends the episode
    schema: dict[str, Any] | None = None  # the published arguments, when they differ from the model's (api_fetch)

    @cached_property
    def arguments(self) -> type[BaseModel]:
        """The arguments model, from the function's type hints, made when first asked for: the worlds have
        hundreds of tools, an episode calls a few, and making them all was a quarter of a second at start."""
        return _arguments_model(self.declared)

    @property
    def writes(self) -> bool:
        return self.method != "GET"

    @property
    def harness(self) -> bool:
        return self.service == "harness"

    def json_schema(self) -> dict[str, Any]:
        """The published arguments (shared: read it, do not change it)."""
        return self.schema if self.schema is not None else _arguments_schema(self.arguments)

    def openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.json_schema(),
            },
        }

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "service": self.service,
            "method": self.method,
            "path": self.path,
            "description": self.description,
            "parameters": self.json_schema(),
        }


class _Registry(dict[str, Tool]):
    """Tools by name; ``version`` moves with every tool set or removed, so what is derived from the
    tools can be kept until they change (``tools_of``)."""

    version = 0

    def __setitem__(self, name: str, found: Tool) -> None:
        super().__setitem__(name, found)
        self.version += 1

    def __delitem__(self, name: str) -> None:
        super().__delitem__(name)
        self.version += 1


REGISTRY: _Registry = _Registry()


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def tool(
    service: str, method: Method, path: str, ends: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn(ctx, **args)`` as a tool of ``service`` at route ``method path``.

    A tool with ``ends`` ends the episode when it succeeds (it calls ``ctx.finish``)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if fn.__name__ in REGISTRY:
            raise ValueError(f"tool {fn.__name__} is registered twice")
        REGISTRY[fn.__name__] = Tool(
            name=fn.__name__,
            service=service,
            method=method,
            path=path,
            description=inspect.cleandoc(fn.__doc__ or "").strip(),
            fn=fn,
            declared=fn,
            ends=ends,
        )
        return fn

    return register


@cache
def _arguments_model(fn: Callable[..., Any]) -> type[BaseModel]:
    """``fn(ctx, **args)``'s arguments as a model: its parameters after the context, typed by their hints."""
    hints = get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    for name, parameter in list(inspect.signature(fn).parameters.items())[1:]:
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (hints[name], default)
    return create_model(f"{fn.__name__}_arguments", __base__=_Arguments, **fields)


def tools_of(services: Iterable[str]) -> list[Tool]:
    """The tools of the given services, service by service in the order given."""
    key = (tuple(services), REGISTRY.version)  # every episode asks: found once while the tools stay
    if key not in _BY_SERVICES:
        order = {service: position for position, service in enumerate(key[0])}
        found = [t for t in REGISTRY.values() if t.service in order]
        _BY_SERVICES[key] = sorted(found, key=lambda t: order[t.service])  # stable within a service
    return list(_BY_SERVICES[key])


_BY_SERVICES: dict[tuple[tuple[str, ...], int], list[Tool]] = {}


@cache
def _arguments_schema(arguments: type[BaseModel]) -> dict[str, Any]:
    return _strip_titles(arguments.model_json_schema())  # pydantic builds it anew on every call: slow


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        # pydantic's generated titles are noise; a property named "title" is kept
        return {k: _strip_titles(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema
