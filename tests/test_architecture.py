"""rlfw's imports flow one way: no import cycle anywhere in the package (imports inside functions
included), and each room imports only itself and the rooms below it (docs/design.md, "Layout")."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PACKAGE = ROOT / "rlfw"
# Low to high. A module belongs to the longest prefix listed; it may import its own layer and lower ones.
LAYERS = [
    ["rlfw.errors", "rlfw.values", "rlfw.machine", "rlfw.batch", "rlfw.clock", "rlfw.registry", "rlfw.plugins"],  # core
    # parts (a dataset's reading among them: the dataset replay holds what it read)
    [
        "rlfw.env",
        "rlfw.network",
        "rlfw.explore",
        "rlfw.replay",
        "rlfw.target",
        "rlfw.loss",
        "rlfw.optim",
        "rlfw.dataset.read",
    ],
    ["rlfw.state"],  # checkpoints and resume
    ["rlfw.config", "rlfw.plugins.search_path", "rlfw.pbt"],  # everything before training (a PBT search's own)
    ["rlfw.loggers"],
    ["rlfw.run"],  # the training loop
    ["rlfw.agent"],  # using what was trained
    [
        "rlfw.play",
        "rlfw.export",
        "rlfw.compare",
        "rlfw.dataset",
        "rlfw.testing",
        "rlfw.plugins.listing",
        "rlfw.plugins.__main__",
        "rlfw.__main__",
        "rlfw",
    ],  # tools
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(name: str) -> set[str]:
    """The rlfw modules ``name`` imports, anywhere in its file; ``from rlfw.x import y`` counts as
    ``rlfw.x.y`` when that is a module, else as ``rlfw.x``."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            targets = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("rlfw") and target != name:
                found.add(target)
    return found


GRAPH = {name: imports(name) for name in MODULES}


def layer(name: str) -> int:
    prefixes = [(p, i) for i, names in enumerate(LAYERS) for p in names if name == p or name.startswith(p + ".")]
    assert prefixes, f"{name} is in no layer of tests/test_architecture.py: put it in one"
    return max(prefixes, key=lambda pair: len(pair[0]))[1]


def cycles() -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    assert cycles() == []


def test_the_cycle_finder_finds_a_cycle():
    GRAPH["rlfw.errors"].add("rlfw.registry")  # registry imports errors: this closes a loop
    try:
        assert any({"rlfw.errors", "rlfw.registry"} <= set(cycle) for cycle in cycles())
    finally:
        GRAPH["rlfw.errors"].discard("rlfw.registry")


def test_each_room_imports_only_its_own_layer_and_lower_ones():
    upward = [
        f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})" for a in GRAPH for b in GRAPH[a] if layer(b) > layer(a)
    ]
    assert upward == []


def test_nothing_imports_the_command_line():
    assert [a for a in GRAPH if "rlfw.__main__" in GRAPH[a]] == []


def test_new_modules_go_into_rooms():
    """The top level holds the rooms and only the few modules that everything imports or users call."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == [
        "__init__.py",
        "__main__.py",
        "batch.py",
        "clock.py",
        "errors.py",
        "export.py",
        "machine.py",
        "play.py",
        "registry.py",
        "testing.py",
        "values.py",
    ]


def test_checking_a_config_and_loading_an_agent_do_not_import_lightning():
    """Lightning's import takes seconds (5 of a config error's 9 on a 2-core AMD EPYC): a bad key is
    answered, and a trained agent loads, without it."""
    code = (
        "import sys, rlfw.config.preflight, rlfw.agent.load; print(sorted(m for m in sys.modules if 'lightning' in m))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("bad", ["seed=abc", "optim=sgd", "+eval.nosuchkey=1", "gamma=1.5"])
def test_a_config_error_found_before_the_parts_are_built_does_not_import_torch(tmp_path, bad):
    """torch's import is most of a config error's time (2-3 s of 3-5 s, 2-core AMD EPYC): a wrong type,
    option, key or range, found before any part is built, is answered in about a second without it."""
    code = (
        "import atexit, sys; atexit.register(lambda: print('torch' in sys.modules));"
        f"sys.argv = ['rlfw', {bad!r}, 'hydra.run.dir={tmp_path / 'run'}']; from rlfw.__main__ import main; main()"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.startswith("rlfw: config error: "), result.stderr
    assert result.stdout.strip() == "False"
