"""Which module-level names of the project's code are reachable from its entry points (for tests/test_docs.py).

The code is read, not run: each module-level name (a function, a class with all its methods, an assignment) and
each module's own top-level code is a node. A node uses the names its code mentions: a name of its module, a name
imported from another module of the project (``from m import x``, ``import m as k`` then ``k.x``), a
``"module:Name"`` string (how the registries name the classes they import lazily), or a ``"module"`` string (the
command line imports its commands by name: every public name of that module counts as used). A node is reachable
when a chain of uses leads to it from an entry point; using a name also runs its module's top-level code. A name
defined in one module and used only under the same name in another module that defines its own copy is not
reached: the copy is.

It errs towards reachable (a local variable with the name of a module-level one counts as a use; a class's methods
all count as used once the class is): it finds names nothing uses, not every unused line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

MODULE_CODE = ""
"""The node name of a module's own top-level code (imports, registrations, ``if __name__ == "__main__":``)."""
_SPEC = re.compile(r"^([A-Za-z_][\w.]*):([A-Za-z_]\w*)$")


@dataclass
class Module:
    name: str
    defs: dict[str, list[ast.AST]] = field(default_factory=dict)
    """Module-level name → the statements that define it (``MODULE_CODE`` → the other top-level statements)."""
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Local name → (module, name) it was imported as; name ``MODULE_CODE`` for ``import m as k``."""


class Project:
    """The modules of the packages ``packages`` under ``root`` and the uses between their names."""

    def __init__(self, root: Path, packages: Iterable[str]):
        files = {}
        for package in packages:
            for path in sorted((root / package).rglob("*.py")):
                parts = path.relative_to(root).with_suffix("").parts
                files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path, parts[-1] == "__init__"
        self.modules: dict[str, Module] = {name: Module(name) for name in files}
        for name, (path, is_package) in files.items():
            self._read(self.modules[name], ast.parse(path.read_text(encoding="utf-8")),
                       package=name if is_package else name.rpartition(".")[0])

    def _read(self, module: Module, tree: ast.Module, package: str) -> None:
        for node in tree.body:
            for defined in _defined(node) or [MODULE_CODE]:
                module.defs.setdefault(defined, []).append(node)
        for node in ast.walk(tree):  # imports anywhere, function-local (lazy) ones too
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        module.imports[alias.asname] = (alias.name, MODULE_CODE)
                    else:  # ``import a.b.c`` binds ``a``; attribute chains are resolved in _dotted
                        module.imports.setdefault(alias.name.split(".")[0], (alias.name.split(".")[0], MODULE_CODE))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: ``from . import x``, ``from ..m import x``
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    module.imports[alias.asname or alias.name] = ((sub, MODULE_CODE) if sub in self.modules
                                                                  else (base, alias.name))

    # ----- uses ----------------------------------------------------------------------------------------------------
    def resolve(self, module: str, name: str, seen: frozenset = frozenset()) -> tuple[str, str] | None:
        """The node ``name`` of ``module`` stands for, following re-exports (``None`` outside the project)."""
        if module not in self.modules or (module, name) in seen:
            return None
        mod = self.modules[module]
        if name == MODULE_CODE or name in mod.defs:
            return module, name
        if name in mod.imports:
            return self.resolve(*mod.imports[name], seen | {(module, name)})
        if f"{module}.{name}" in self.modules:
            return f"{module}.{name}", MODULE_CODE
        return None

    def _dotted(self, module: Module, node: ast.AST) -> tuple[str, str] | None:
        """The node an expression ``a.b.c`` names, ``a`` a name of ``module`` (``None`` if it names none)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        target = self.resolve(module.name, node.id)
        if target is None and node.id in module.imports and module.imports[node.id][0] in self.modules:
            target = (module.imports[node.id][0], MODULE_CODE)  # ``import a.b.c`` then ``a.b.c.x``
        for attr in reversed(parts):
            if target is None or target[1] != MODULE_CODE:
                return target
            target = self.resolve(target[0], attr) or (
                (f"{target[0]}.{attr}", MODULE_CODE) if f"{target[0]}.{attr}" in self.modules else None)
        return target

    def uses(self, module: str, name: str) -> set[tuple[str, str]]:
        """The nodes that node ``name`` of ``module`` uses (its module's top-level code included)."""
        mod = self.modules[module]
        out = {(module, MODULE_CODE)}
        for statement in mod.defs.get(name, []):
            for node in ast.walk(statement):
                if isinstance(node, (ast.Name, ast.Attribute)):
                    target = self._dotted(mod, node)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in self.modules:
                    out |= self.public(node.value)  # imported by name: any of its public names may be looked up
                    continue
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _SPEC.match(node.value):
                    target = self.resolve(*_SPEC.match(node.value).groups())
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                            else [mod.imports[a.asname or a.name][0] for a in node.names])
                    out |= {(m, MODULE_CODE) for m in mods if m in self.modules}
                    continue
                else:
                    continue
                if target is not None:
                    out.add(target)
        out.discard((module, name))
        return out

    def public(self, module: str) -> set[tuple[str, str]]:
        """The nodes of ``module``'s own public names (not starting with ``_``) and its top-level code."""
        return {(module, n) for n in self.modules[module].defs if not n.startswith("_")} | {(module, MODULE_CODE)}

    def attributes(self, module: str, name: str) -> set[str]:
        """The attribute names node ``name`` of ``module`` reads or calls (``x.attr``, whatever ``x`` is)."""
        return {node.attr for statement in self.modules[module].defs.get(name, []) for node in ast.walk(statement)
                if isinstance(node, ast.Attribute)}

    def reachable(self, roots: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """Every node a chain of uses leads to from ``roots`` (which must exist)."""
        todo = []
        for root in roots:
            node = self.resolve(*root)
            assert node is not None, f"no such entry point {root}"
            todo.append(node)
        seen = set(todo)
        while todo:
            for node in self.uses(*todo.pop()):
                if node not in seen:
                    seen.add(node)
                    todo.append(node)
        return seen

    def unused(self, roots: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The module-level names no chain of uses from ``roots`` reaches."""
        live = self.reachable(roots)
        return sorted((m, n) for m, mod in self.modules.items() for n in mod.defs
                      if n != MODULE_CODE and (m, n) not in live)


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []
