#!/usr/bin/env python3
"""The simulator crate's import graph: no circle between files, each layer importing only
from the layers below it (docs/architecture.md).

A file imports another when it names a path into it: `use crate::a::b::X`, an inline
`crate::a::b::f()`, `super::X` or `self::child::X`, or a child module it declares
(`mod child;` then `child::X`). Declaring a child module is not an import: a folder's
mod.rs may list its children without the children's imports of each other, or of the
folder's shared types, making a circle. Each path is resolved to the deepest module
that is a file of its own; inline modules (`mod tests { .. }`) belong to their file.

Usage: scripts/check_layers.py [CRATE_SRC]   (default crates/sim/src). Prints the
circles and the upward imports it finds and exits 1 if there is any; `--graph` prints
every edge.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# The layers from the bottom up: a file may import from its own layer and the ones below.
# A top-level module not listed here is an error (a new folder must say where it sits).
LAYERS = ["core", "net", "tcp", "traffic", "engine", "scenario", "output", "bench"]

# Circles tolerated for now, each file by file (none today): the check fails on any
# other circle and on one of these that has changed or gone (then shrink this list).
KNOWN_CIRCLES: list[set[str]] = []

MOD_DECL = re.compile(r'^\s*(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', re.MULTILINE)
PATH_ATTR_THEN_MOD = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;')
USE_STMT = re.compile(r"\buse\s+([^;]+);", re.DOTALL)
INLINE = re.compile(r"\b(crate|super|self)((?:::\w+)+)")


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", " ", text)


def strip(text: str) -> str:
    """Source without comments and string literals (paths named in prose do not count)."""
    text = strip_comments(text)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def expand(tree: str) -> list[list[str]]:
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]] (`as` renames dropped)."""
    tree = re.sub(r"\s+", "", tree)
    out: list[list[str]] = []

    def walk(prefix: list[str], s: str) -> None:
        i = s.find("{")
        if i < 0:
            for part in split_top(s):
                out.append(prefix + [x for x in re.sub(r"as\w+$", "", part).split("::") if x])
            return
        head = [x for x in s[:i].split("::") if x]
        inner = s[i + 1 : s.rfind("}")]
        for part in split_top(inner):
            walk(prefix + head, part)

    def split_top(s: str) -> list[str]:
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        if cur:
            parts.append(cur)
        return parts

    walk([], tree)
    return out


class Crate:
    def __init__(self, src: Path):
        self.src = src
        self.files: dict[tuple[str, ...], Path] = {}  # module path -> file
        self.children: dict[Path, dict[str, tuple[str, ...]]] = {}
        self.module_of: dict[Path, tuple[str, ...]] = {}
        self._load((), src / "lib.rs")
        # modules a macro declares (tcp/cc's `registry!`) are not seen as `mod` lines:
        # every other file of the tree is a module by its path
        for f in sorted(src.rglob("*.rs")):
            if f in self.module_of or "bin" in f.relative_to(src).parts:
                continue
            parts = f.relative_to(src).with_suffix("").parts
            module = parts[:-1] if parts[-1] == "mod" else parts
            if module in self.files or f.stem.endswith("_tests"):
                continue
            self._load(tuple(module), f)
            parent = self.files.get(tuple(module[:-1]))
            if parent is not None:
                self.children[parent][module[-1]] = tuple(module)

    def _load(self, module: tuple[str, ...], file: Path) -> None:
        self.files[module] = file
        self.module_of[file] = module
        self.children[file] = {}
        text = strip_comments(file.read_text())
        # a file's children live beside it (lib.rs, mod.rs) or in a folder of its name
        base = file.parent if file.name in ("lib.rs", "mod.rs") else file.parent / file.stem
        paths = {m.group(2): m.group(1) for m in PATH_ATTR_THEN_MOD.finditer(text)}
        for m in MOD_DECL.finditer(text):
            name = m.group(2)
            if name in paths:
                child = file.parent / paths[name]
            elif (base / f"{name}.rs").exists():
                child = base / f"{name}.rs"
            else:
                child = base / name / "mod.rs"
            self.children[file][name] = module + (name,)
            self._load(module + (name,), child)

    def resolve(self, path: tuple[str, ...]) -> Path | None:
        """The file of the deepest module on `path`."""
        for n in range(len(path), -1, -1):
            if path[:n] in self.files:
                return self.files[path[:n]]
        return None

    def imports(self, file: Path) -> set[Path]:
        module = self.module_of[file]
        text = strip(file.read_text())
        children = self.children[file]
        found: list[list[str]] = []
        # inline modules (`mod tests { .. }`): a `super::` inside one starts from the file
        # test modules (`#[cfg(test)] mod tests { .. }`) are left out: a test may build
        # a whole scenario to check a low layer's piece
        inline = []
        for m in re.finditer(r"(#\[cfg\(test\)\]\s*)?\bmod\s+\w+\s*\{", text):
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += (text[i] == "{") - (text[i] == "}")
                i += 1
            if m.group(1):
                text = text[: m.start()] + " " * (i - m.start()) + text[i:]
            else:
                inline.append((m.start(), i))

        def depth_at(pos: int) -> int:
            return sum(a <= pos < b for a, b in inline)

        found: list[tuple[list[str], int]] = []
        for m in USE_STMT.finditer(text):
            found += [(p, depth_at(m.start())) for p in expand(m.group(1))]
        for m in INLINE.finditer(text):
            found.append(([m.group(1)] + m.group(2).split("::")[1:], depth_at(m.start())))
        for name in children:
            for m in re.finditer(rf"(?<![\w:]){name}((?:::\w+)+)", text):
                found.append(([name] + m.group(1).split("::")[1:], 0))
        # the module a `super::` or `self::` path starts from: a file's own module, or for
        # a non-mod.rs file its parent (`super` of a/b.rs is a)
        out: set[Path] = set()
        for p, depth in found:
            if not p:
                continue
            if p[0] == "crate":
                target = tuple(p[1:])
            elif p[0] in ("super", "self"):
                base = module + ("<inline>",) * depth
                rest = list(p)
                while rest and rest[0] in ("super", "self"):
                    if rest.pop(0) == "super":
                        base = base[:-1]
                target = tuple(x for x in base if x != "<inline>") + tuple(rest)
            elif p[0] in children:
                target = children[p[0]] + tuple(p[1:])
            else:
                continue
            f = self.resolve(target)
            if f is not None and f != file:
                out.add(f)
        return out


def circles(graph: dict[Path, set[Path]]) -> list[list[Path]]:
    """Strongly connected components of more than one file (Tarjan)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on: set[Path] = set()
    out: list[list[Path]] = []
    sys.setrecursionlimit(10000)

    def visit(v: Path) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    src = Path(args[0] if args else "crates/sim/src")
    crate = Crate(src)
    graph = {f: crate.imports(f) for f in crate.module_of}
    rel = lambda f: str(f.relative_to(src))
    if "--graph" in argv:
        for f in sorted(graph):
            for g in sorted(graph[f]):
                print(f"{rel(f)} -> {rel(g)}")
    bad = 0
    found = circles(graph)
    known = [set(k) for k in KNOWN_CIRCLES]
    for c in found:
        if {rel(f) for f in c} in known:
            continue
        bad += 1
        print(f"import circle of {len(c)} files:")
        for f in c:
            inside = sorted(rel(g) for g in graph[f] if g in c)
            print(f"  {rel(f)} -> {', '.join(inside)}")
    for k in known:
        if not any({rel(f) for f in c} == k for c in found):
            bad += 1
            print(f"a known circle changed or is gone (update KNOWN_CIRCLES): {sorted(k)}")
    if "--layers" in argv or "--graph" not in argv:
        for f, targets in sorted(graph.items()):
            mod = crate.module_of[f]
            if not mod:
                continue  # lib.rs re-exports from every layer
            if mod[0] not in LAYERS:
                bad += 1
                print(f"{rel(f)}: module `{mod[0]}` is in no layer (scripts/check_layers.py LAYERS)")
                continue
            for g in sorted(targets):
                gm = crate.module_of[g]
                if gm and gm[0] in LAYERS and LAYERS.index(gm[0]) > LAYERS.index(mod[0]):
                    bad += 1
                    print(f"{rel(f)} ({mod[0]}) imports from a layer above it: {rel(g)} ({gm[0]})")
    if bad:
        return 1
    print(
        f"{len(graph)} files, {sum(map(len, graph.values()))} imports: every layer imports from below; "
        + (
            f"no circle but the {len(known)} known {'one' if len(known) == 1 else 'ones'} ({sum(map(len, known))} files)"
            if known
            else "no import circle"
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
