"""Render the Sphinx roles of ranklens' docstrings as links in the API reference.

The docstrings follow numpydoc and cross-reference with Sphinx roles (``:func:`roc_auc```,
``:class:`~ranklens.compare.ComparisonResult```). mkdocstrings renders Markdown, where a role
would show as raw text. This griffe extension rewrites each role once the package is loaded:

* a target that names a public object of the package (every part of its path without a leading
  underscore) becomes an autorefs link, ``[roc_auc][ranklens.targeting.roc_auc]``;
* anything else (a private helper, the standard library, a module constant) becomes inline code.

A short target (``roc_auc``) is looked up in the docstring's own module first, then among the
names ``ranklens`` exports; the ``~`` prefix shows only the last part, as in Sphinx.

A public function a module makes at import rather than writes (``lift_at_5 = _register_at_depth(
...)``, one factory for a family of measures) reads to the static analysis as an attribute without
a docstring, which the reference would leave out; it is presented as the function it is, as the
imported module holds it (its signature and its docstring), at the place of its assignment.

Before that, a docstring that holds a shared paragraph's marker line (``%(input_errors)s``,
``%(sample_weight)s``, filled when the module is imported, see ``ranklens._foundation.docstrings``)
takes the text the imported object carries, so the reference shows what ``help()`` shows.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

from ranklens._foundation.docstrings import MARKER

ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|obj|exc):`(~?)([^`]+)`")


def _public(path: str) -> bool:
    return all(not part.startswith("_") for part in path.split("."))


class SphinxRoles(griffe.Extension):
    """Rewrite ``:role:`target``` in every docstring of the package as a link or code."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        self._package = pkg
        for module in [obj for obj in _walk(pkg) if obj.is_module]:
            _present_made_functions(module)
        for obj in _walk(pkg):
            if not obj.is_module and obj.docstring and MARKER.search(obj.docstring.value):
                obj.docstring.value = _imported_docstring(obj)
            if obj.docstring is not None:
                obj.docstring.value = ROLE.sub(
                    lambda match, owner=obj: self._render(match, owner), obj.docstring.value
                )

    def _resolve(self, target: str, owner: griffe.Object) -> str | None:
        candidates = [target]
        if not target.startswith("ranklens"):
            module = owner if owner.is_module else owner.module
            candidates += [f"{module.path}.{target}", f"ranklens.{target}"]
        for path in candidates:
            try:
                found = self._package.modules_collection.get_member(path)
            except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError):
                continue
            try:
                shown_at = _documented_at(found)
                documented = found.docstring is not None
            except griffe.AliasResolutionError:  # an alias to outside the package (math, numpy)
                return None
            if shown_at is not None and documented:
                return shown_at
        return None

    def _render(self, match: re.Match[str], owner: griffe.Object) -> str:
        short, target = match.group(1), match.group(2).strip().rstrip("()")
        shown = target.rsplit(".", 1)[-1] if short else target
        identifier = self._resolve(target, owner)
        if identifier is None:
            return f"`{shown}`"
        return f"[`{shown}`][{identifier}]"


def _present_made_functions(module: griffe.Module) -> None:
    """Replace each public attribute of ``module`` without a docstring that the imported module
    holds as a function of its own, made under that name, by the function as griffe inspects it."""
    inspected = None
    for name, member in list(module.members.items()):
        if name.startswith("_") or member.is_alias or not member.is_attribute or member.docstring:
            continue
        value = getattr(importlib.import_module(module.path), name, None)
        if not (
            inspect.isfunction(value)
            and value.__module__ == module.path
            and value.__name__ == name
            and value.__doc__
        ):
            continue
        inspected = inspected or griffe.inspect(module.path)
        function = inspected.members[name]
        function.lineno, function.endlineno = member.lineno, member.endlineno
        if function.docstring is not None and module.docstring is not None:  # parsed as the rest
            function.docstring.parser = module.docstring.parser
            function.docstring.parser_options = module.docstring.parser_options
        module.set_member(name, function)


def _documented_at(found: Any) -> str | None:
    """The public path under which the reference documents an object: its own, or, for an
    object defined in a private module and presented by a public one (``ranklens.relevance``
    presents ``ranklens._measures.relevance_functions.SigmoidRelevance``), the last public path on
    the way from the name to the definition. None when no path on the way is public."""
    paths = [str(found.path)]
    while found.is_alias:
        found = found.target
        paths.append(str(found.path))
    public = [path for path in paths if _public(path)]
    return public[-1] if public else None


def _imported_docstring(obj: griffe.Object) -> str:
    """The docstring of the imported object at ``obj``'s path, its shared paragraphs filled."""
    owner: Any = importlib.import_module(obj.module.path)
    for part in obj.path[len(obj.module.path) + 1 :].split("."):
        owner = getattr(owner, part)
    doc = inspect.getdoc(owner)
    if doc is None or MARKER.search(doc):
        raise RuntimeError(f"{obj.path}: the shared paragraph was not filled in on import")
    return doc


def _walk(obj: griffe.Object) -> Any:
    yield obj
    for member in obj.members.values():
        if member.is_alias:
            continue
        yield from _walk(member)
