"""The library never imports the command line: the modules of `superpacket` other than the
CLI's (the superpacket.cli package) do not import any CLI module, at
the top or inside a function, by `import`, `from ... import` (relative too) or
importlib.import_module / __import__ with a literal name. An AST scan of the sources,
so a lazy import inside a function counts as much as one at the top."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "python" / "superpacket"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_cli(module: str) -> bool:
    """superpacket.cli and its modules (superpacket.cli.checks ...); a top-level cli_* module too,
    should one appear."""
    parts = module.split(".")
    return len(parts) >= 2 and parts[0] == "superpacket" and (parts[1] == "cli" or parts[1].startswith("cli_"))


def imported_modules(path: Path) -> list[tuple[int, str]]:
    return imports_in(path.read_text(), module_name(path), path.name == "__init__.py")


def imports_in(source: str, here: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) of every import in the source of module `here`: `from superpacket
    import cli_checks` gives superpacket.cli_checks (a name imported from a package may
    be a module); `from ..cli import x` in superpacket.experiments.common gives
    superpacket.cli and superpacket.cli.x."""
    package = here if is_package else here.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            out.append((node.lineno, base))
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            first = node.args[0] if node.args else None
            if name in ("import_module", "__import__") and isinstance(first, ast.Constant) \
                    and isinstance(first.value, str):
                out.append((node.lineno, first.value))
    return out


def library_files() -> list[Path]:
    return [p for p in sorted(PKG.rglob("*.py")) if not is_cli(module_name(p))]


def test_no_library_module_imports_the_cli():
    offenders = [f"{p.relative_to(PKG.parent)}:{line} imports {mod}"
                 for p in library_files() for line, mod in imported_modules(p) if is_cli(mod)]
    assert not offenders, "the library imports the command line:\n" + "\n".join(offenders)


def test_the_scan_sees_imports():
    """The scan finds what is there: the CLI's own modules import each other; relative,
    lazy and importlib imports of a CLI module are caught; the library files scanned
    include sweeps and the experiments and no CLI module."""
    cli = {m for _, m in imported_modules(PKG / "cli" / "app.py")}
    assert "superpacket.cli.checks" in cli and "superpacket.cli.sweep" in cli
    lazy = """
def f():
    from .. import cli_checks
    from ..cli_sweep import cmd_sweep
    import superpacket.cli
    importlib.import_module("superpacket.cli_checks")
"""
    found = {m for _, m in imports_in(lazy, "superpacket.experiments.common", False)}
    assert {"superpacket.cli_checks", "superpacket.cli_sweep", "superpacket.cli"} <= found, found
    assert any(is_cli(m) for _, m in imports_in("from . import cli\n", "superpacket", True))
    names = {module_name(p) for p in library_files()}
    assert {"superpacket", "superpacket.sweeps", "superpacket.seeds", "superpacket.experiments.common"} <= names
    assert not any(is_cli(n) for n in names)
    assert is_cli("superpacket.cli") and is_cli("superpacket.cli.checks") and is_cli("superpacket.cli_checks")
    assert not is_cli("superpacket.cluster")


def import_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports (at the top or inside a function). `from
    pkg import name` is an import of pkg.name when that is a module, else of pkg; a parent
    package that Python runs first is not an edge (each __init__ is scanned on its own)."""
    modules = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}
    names = set(modules) | {module_name(p) for p in PKG.rglob("*.pyi")}  # the compiled _core too
    return {name: edges_in(path.read_text(), name, path.name == "__init__.py", names) - {name}
            for name, path in modules.items()}


def edges_in(source: str, here: str, is_package: bool, modules: set[str]) -> set[str]:
    package = here if is_package else here.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - (node.level - 1)], *([base] if base else [])])
            subs = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules}
            out |= subs | ({base} if len(subs) < len(node.names) else set())
    return out & modules


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_inside_the_package():
    """No two modules of superpacket import each other, directly or round a circle, lazy
    imports inside functions included (the experiments' figures were registered by a
    7-file circle of imports once)."""
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_circle_check_sees_a_circle():
    mods = {"p", "p.a", "p.b", "p.c"}
    graph = {"p.a": edges_in("from p import b\n", "p.a", False, mods),
             "p.b": edges_in("def f():\n    from .c import x\n", "p.b", False, mods),
             "p.c": edges_in("import p.a\n", "p.c", False, mods)}
    assert graph == {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}}
    assert circles(graph) == [["p.a", "p.b", "p.c"]]
    assert circles({"p.a": {"p.b"}, "p.b": set()}) == []
    assert len(import_graph()) > 60 and "superpacket.reports.figures" in import_graph()["superpacket.reports.figure_kit"]
