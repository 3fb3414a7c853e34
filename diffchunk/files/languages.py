"""Which tree-sitter grammar a file uses, and loading that grammar.

Languages are named by short strings (``python``, ``typescript``, ``tsx``...).
Grammars come from the ``tree_sitter_<lang>`` wheels and are imported lazily
the first time they are needed; a missing or broken grammar yields ``None``
so callers simply go without an outline.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import re
from typing import Any

from ..limits import LANGUAGE_SNIFF_BYTES

logger = logging.getLogger(__name__)

#: Every language an outline can be built for.
LANGUAGES = (
    "python",
    "javascript",
    "typescript",
    "tsx",
    "go",
    "rust",
    "java",
    "c",
    "cpp",
    "csharp",
    "ruby",
    "php",
    "markdown",
)

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    # C++ headers commonly use .h; the C++ grammar also reads plain C headers.
    ".h": "cpp",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".tpp": "cpp",
    ".inl": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".phtml": "php",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
}

_FILENAMES: dict[str, str] = {
    "rakefile": "ruby",
    "gemfile": "ruby",
    "guardfile": "ruby",
    "vagrantfile": "ruby",
}

# Interpreter names found on a ``#!`` line (version digits stripped).
_VERSION_SUFFIX = re.compile(r"[0-9.]+$")
_INTERPRETERS = {
    "python": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "deno": "typescript",
    "ruby": "ruby",
    "php": "php",
}

# language -> (module, function returning the grammar pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "markdown": ("tree_sitter_markdown", "language"),
}


def language_for_path(path: str, head: bytes | None = None) -> str | None:
    """The outline language of ``path`` (by extension, then by name), or None.

    ``head`` -- the first bytes of the file, if the caller has them -- lets a
    ``#!`` line decide for files without a known extension.
    """
    name = os.path.basename(path)
    _, ext = os.path.splitext(name)
    lang = _EXTENSIONS.get(ext.lower())
    if lang is not None:
        return lang
    lang = _FILENAMES.get(name.lower())
    if lang is not None:
        return lang
    if head:
        return _language_for_shebang(head)
    return None


def _language_for_shebang(head: bytes) -> str | None:
    if not head.startswith(b"#!"):
        return None
    words = head[2:LANGUAGE_SNIFF_BYTES].split(b"\n", 1)[0].decode("latin-1").split()
    if not words:
        return None
    program = os.path.basename(words[0])
    if program == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        if not rest:
            return None
        program = os.path.basename(rest[0])
    return _INTERPRETERS.get(_VERSION_SUFFIX.sub("", program).lower())


@functools.cache
def load_language(language: str) -> Any | None:
    """The ``tree_sitter.Language`` for ``language``, or None when unavailable.

    Never raises: a grammar wheel that is missing, or built for an
    incompatible tree-sitter, only means no outline for that language.
    """
    spec = _GRAMMARS.get(language)
    if spec is None:
        return None
    module_name, func_name = spec
    try:
        from tree_sitter import Language

        module = importlib.import_module(module_name)
        return Language(getattr(module, func_name)())
    except Exception as exc:  # ImportError, ABI mismatch (ValueError), ...
        logger.info("no %s grammar available (%s): outlines disabled for it", language, exc)
        return None


def grammar_available(language: str) -> bool:
    """True when the grammar of ``language`` can be loaded."""
    return load_language(language) is not None
