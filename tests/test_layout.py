"""The house's layout holds: every import runs down the layers (schema at the bottom, tools, world,
seeds, episode, agents, grader, the live episode the doors share, then the doors), no module imports
itself back through others, and a world's code lives in its own folders (``schema/<world>/``,
``tools/<world>/``, ``seeds/<world>/``) where no engine module reaches into it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from simtenant.tools import REGISTRY
from simtenant.world import worlds

PACKAGE = Path(__file__).parent.parent / "simtenant"
LAYERS = [  # low to high; a module may import its own layer's package and any lower layer
    {"errors", "facts", "db"},
    {"schema", "task", "responder"},
    {"migrations", "tools"},
    {"world"},
    {"seeds"},
    {"episode"},
    {"agents"},
    {"grader"},
    {"live"},
    {"evaluation", "serve", "integrations"},
    {"cli"},
]
LAYER = {name: level for level, names in enumerate(LAYERS) for name in names}
ENGINE = {"schema": {"base", "harness"}, "tools": {"engine"}}  # the engine's own rooms in the world layers


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    found = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {m: p for m, p in found.items() if ".migrations.versions" not in m}


def imports(path: Path) -> set[str]:
    """The simtenant modules a file imports, at any depth of the file (lazy imports too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    known = modules()
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:  # "from . import x" imports the module x
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {t for t in found if t.split(".")[0] == "simtenant"}


def room(module: str) -> str:
    """The top-level room of a module: simtenant.grader.diff -> grader."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


GRAPH = {name: imports(path) for name, path in modules().items()}


def test_every_room_of_the_package_has_a_layer():
    rooms = {room(m) for m in GRAPH if room(m)}
    assert rooms == set(LAYER), "a new top-level module needs a layer in LAYERS"


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_run_down_the_layers(module):
    here = room(module)
    upward = [
        target
        for target in GRAPH[module]
        if room(target) and here and room(target) != here and LAYER[room(target)] >= LAYER[here]
    ]
    assert upward == [], f"{module} imports up (or across) the layers: {upward}"


def test_no_module_imports_itself_back_through_others():
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in GRAPH.get(node, ()):
            if target not in GRAPH:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    assert cycles == []


def test_a_worlds_code_lives_in_its_own_folders():
    packages = {w.schema for w in worlds().values()}
    for layer in ("schema", "tools"):
        rooms = {p.name.removesuffix(".py") for p in (PACKAGE / layer).iterdir() if p.name != "__pycache__"}
        assert rooms - {"__init__"} == packages | ENGINE[layer], f"{layer}/ holds more than the engine and the worlds"
    assert {p.name for p in (PACKAGE / "seeds").iterdir() if p.is_dir() and p.name != "__pycache__"} == set(worlds())
    for world in worlds().values():  # (a world's tables are its schema package's by construction)
        for tool in world.tools:
            where = tool.fn.__module__
            assert where.startswith(f"simtenant.tools.{world.schema}.") or where.startswith(
                "simtenant.tools.engine."
            ), f"{world.name}'s tool {tool.name} is defined in {where}"
    engine_tools = {t.name for t in REGISTRY.values() if t.fn.__module__.startswith("simtenant.tools.engine.")}
    assert engine_tools == {"finish", "send_message_to_user", "api_search", "api_fetch", "base64_encode"}


def world_of(module: str) -> str | None:
    """The world package a module belongs to (simtenant.tools.itsm.cmdb -> itsm), if any."""
    parts = module.split(".")
    packages = {w.schema for w in worlds().values()}
    return parts[2] if len(parts) > 2 and parts[1] in ("schema", "tools") and parts[2] in packages else None


def test_no_engine_module_reaches_into_a_world():
    """Only a world's own modules import it (and the package inits that load every world)."""
    reached = [
        (module, target)
        for module, targets in GRAPH.items()
        for target in targets
        if world_of(target)
        and world_of(module) != world_of(target)
        and module not in ("simtenant.schema", "simtenant.tools")
    ]
    assert reached == []
