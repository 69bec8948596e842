"""No import circles: the modules of ``games/`` and ``cardclub/`` import one another in one
direction only, so each can be read (and loaded) after the ones it stands on. Only imports run
when a module loads count (its top level, class bodies, ``if``/``try`` blocks); one inside a
function runs when called, and one under ``if TYPE_CHECKING:`` never runs."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source import parse

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("games", "cardclub")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def load_time_imports(tree: ast.Module):
    """The import statements that run when the module loads."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        else:
            pending.extend(
                child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)
            )


def project_files() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def imported_modules(node, name: str, path: Path, files) -> set[str]:
    """The project modules an import statement of module ``name`` loads."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(anchor + ([base] if base else []))
        # ``from pkg import sub`` loads the submodule; ``from mod import name`` the module.
        targets = [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base
            for alias in node.names
        ]
    return {target for target in targets if target in files and target != name}


def import_graph() -> dict[str, set[str]]:
    files = project_files()
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in load_time_imports(parse(path)):
            graph[name] |= imported_modules(node, name, path, files)
    return graph


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, pending = set(), [start]
    while pending:
        node = pending.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            pending.extend(graph[node])
    return False


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as the modules along it, first repeated at the end, or None."""
    state: dict[str, str] = {}  # "open" while on the path, "done" once all below are searched
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                return path[path.index(target) :] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_graph_sees_the_imports_a_module_runs_at_load_and_not_the_others():
    graph = import_graph()
    assert "games.models" in graph["games.views"]  # `from games.models import …` at the top
    assert "games.clocks" not in graph["games.models"]  # only inside Match.clock_seats


def test_the_cycle_finder_names_a_cycle_it_is_shown():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_module_of_games_or_cardclub_imports_itself_through_others():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_an_import_put_off_to_avoid_a_cycle_says_why():
    """An import inside a function that would close a cycle at load is a debt: it carries a
    comment on its line naming what it waits for, so a reader does not move it up."""
    files, graph = project_files(), import_graph()
    silent = []
    for name, path in files.items():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(parse(source)):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in imported_modules(node, name, path, files) - graph[name]:
                if reaches(graph, target, name) and "#" not in lines[node.lineno - 1]:
                    silent.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target}")
    assert not silent, "a put-off import with no comment saying why: " + "; ".join(silent)
