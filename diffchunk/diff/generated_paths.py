"""What a path says of a file: vendored, or generated (GitHub linguist's spirit).

Paths are matched on whole segments and real extensions, ignoring case:
vendored trees (``vendor/``, ``third_party/``, ``node_modules/``...),
lockfiles, minified files, source maps, protobuf/thrift/gRPC output and
other generator outputs (``*.designer.cs``, ``*.g.dart``,
``__generated__/``, ``*.generated.*``).

Build output directories are ambiguous (``doc/build/`` holds documentation,
``build/`` often holds build scripts), so they count only with the file types
a build writes: ``dist/`` with bundles (``.js``, ``.mjs``, ``.cjs``,
``.css``, ``.map``) and ``build/``, ``out/``, ``target/`` with compiled
artifacts (``.o``, ``.class``, ``.pyc``, ``.so``, ``.jar``...).  A directory
only counts as a whole segment: ``mybuild/`` or ``distance.py`` never do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "LOCKFILES",
    "extension",
    "generated_by_dirs",
    "generated_by_name",
    "generated_by_path",
    "vendored_by_path",
]

LOCKFILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "bun.lock",
        "deno.lock",
        "poetry.lock",
        "pipfile.lock",
        "pdm.lock",
        "uv.lock",
        "pixi.lock",
        "conda-lock.yml",
        "cargo.lock",
        "gemfile.lock",
        "composer.lock",
        "go.sum",
        "go.work.sum",
        "flake.lock",
        "podfile.lock",
        "mix.lock",
        "pubspec.lock",
        "packages.lock.json",
        "paket.lock",
        "gradle.lockfile",
        "buildscript-gradle.lockfile",
        "shard.lock",
        "cartfile.resolved",
        "package.resolved",
        "cabal.project.freeze",
        "stack.yaml.lock",
        "gopkg.lock",
        "glide.lock",
        "mint.lock",
    }
)

# Lowercased basename suffixes (the separator included, so a real extension).
_SUFFIXES: tuple[tuple[str, str], ...] = (
    (".min.js", "minified"),
    (".min.mjs", "minified"),
    (".min.cjs", "minified"),
    (".min.css", "minified"),
    ("-min.js", "minified"),
    ("-min.css", "minified"),
    (".js.map", "source map"),
    (".mjs.map", "source map"),
    (".cjs.map", "source map"),
    (".css.map", "source map"),
    (".ts.map", "source map"),
    ("_pb2.py", "protobuf output"),
    ("_pb2.pyi", "protobuf output"),
    ("_pb2_grpc.py", "protobuf output"),
    (".pb.go", "protobuf output"),
    (".pb.gw.go", "protobuf output"),
    (".pb.validate.go", "protobuf output"),
    (".pb.cc", "protobuf output"),
    (".pb.h", "protobuf output"),
    (".grpc.pb.cc", "protobuf output"),
    (".grpc.pb.h", "protobuf output"),
    (".pb.swift", "protobuf output"),
    (".grpc.swift", "protobuf output"),
    ("_pb.js", "protobuf output"),
    ("_pb.d.ts", "protobuf output"),
    ("_grpc_pb.js", "protobuf output"),
    ("_grpc_pb.d.ts", "protobuf output"),
    (".pb.dart", "protobuf output"),
    (".pbenum.dart", "protobuf output"),
    (".pbjson.dart", "protobuf output"),
    (".pbgrpc.dart", "protobuf output"),
    (".designer.cs", "generated code"),
    (".designer.vb", "generated code"),
    (".g.cs", "generated code"),
    (".g.i.cs", "generated code"),
    (".g.dart", "generated code"),
    (".freezed.dart", "generated code"),
    (".gr.dart", "generated code"),
    (".mocks.dart", "generated code"),
)
_SUFFIX_RE = re.compile(
    "(?:" + "|".join(re.escape(s) for s, _ in _SUFFIXES) + r")\Z",
)
_SUFFIX_DETAIL = dict(_SUFFIXES)
_GENERATED_NAMES = {
    ".pnp.cjs": "yarn PnP loader",
    ".pnp.js": "yarn PnP loader",
    ".pnp.loader.mjs": "yarn PnP loader",
}

# Directory segments (lowercased) -> canonical spelling for the detail text.
_VENDORED_DIRS = {
    "vendor": "vendor/",
    "vendors": "vendors/",
    "third_party": "third_party/",
    "third-party": "third-party/",
    "thirdparty": "thirdparty/",
    "3rdparty": "3rdparty/",
    "node_modules": "node_modules/",
    "bower_components": "bower_components/",
    "jspm_packages": "jspm_packages/",
}
# Two consecutive directory segments (lowercased).
_VENDORED_PAIRS = {
    ("godeps", "_workspace"): "Godeps/_workspace/",
    (".yarn", "releases"): ".yarn/releases/",
    (".yarn", "plugins"): ".yarn/plugins/",
    (".yarn", "cache"): ".yarn/cache/",
    (".yarn", "sdks"): ".yarn/sdks/",
    (".yarn", "unplugged"): ".yarn/unplugged/",
    ("carthage", "checkouts"): "Carthage/Checkouts/",
}
_THRIFT_LANGS = frozenset(
    [
        "c_glib",
        "cpp",
        "cocoa",
        "csharp",
        "d",
        "dart",
        "delphi",
        "erl",
        "go",
        "haxe",
        "hs",
        "java",
        "javame",
        "js",
        "json",
        "lua",
        "netstd",
        "nodejs",
        "ocaml",
        "perl",
        "php",
        "py",
        "rb",
        "rs",
        "st",
        "swift",
        "xml",
        "xsd",
    ]
)
_BUNDLE_EXTS = frozenset({"js", "mjs", "cjs", "css", "map"})
_ARTIFACT_EXTS = frozenset(
    {"o", "obj", "class", "pyc", "pyo", "so", "dylib", "dll", "a", "lib", "exe", "jar", "war"}
    | {"wasm", "whl", "egg"}
)
_ARTIFACT_DIRS = frozenset({"build", "out", "target", "__pycache__"})


def extension(name: str) -> str:
    dot = name.rfind(".")
    return name[dot + 1 :] if dot > 0 else ""


def vendored_by_path(path: str) -> str | None:
    """The detail (``"vendored tree: vendor/"``) when a directory segment is vendored."""
    segments = path.lower().split("/")[:-1]
    for i, seg in enumerate(segments):
        hit = _VENDORED_DIRS.get(seg)
        if hit is not None:
            return f"vendored tree: {hit}"
        if i + 1 < len(segments):
            pair = _VENDORED_PAIRS.get((seg, segments[i + 1]))
            if pair is not None:
                return f"vendored tree: {pair}"
    if path.startswith("Pods/"):  # CocoaPods, only with its own capitalisation
        return "vendored tree: Pods/"
    return None


def generated_by_path(path: str) -> str | None:
    """The detail (``"lockfile"``, ``"minified"``...) when the path looks generated."""
    lowered = path.lower()
    segments = lowered.split("/")
    name = segments[-1]
    return generated_by_name(name) or generated_by_dirs(segments[:-1], extension(name))


def generated_by_name(name: str) -> str | None:
    """The file-name part of :func:`generated_by_path` (``name`` in lower case)."""
    if name in LOCKFILES:
        return "lockfile"
    m = _SUFFIX_RE.search(name)
    if m is not None and m.start() > 0:
        return _SUFFIX_DETAIL[m.group()]
    if name in _GENERATED_NAMES:
        return _GENERATED_NAMES[name]
    gen = name.find(".generated.")
    if gen > 0 and not name.endswith(".generated."):
        return "generated code"
    return None


def generated_by_dirs(dirs: Sequence[str], ext: str) -> str | None:
    """The directory part of :func:`generated_by_path` (segments in lower case)."""
    for seg in dirs:
        if seg == "__generated__":
            return "generated directory: __generated__/"
        if seg.startswith("gen-") and seg[4:] in _THRIFT_LANGS:
            return f"thrift output: {seg}/"
        if seg == "dist" and ext in _BUNDLE_EXTS:
            return "build output: dist/"
        if seg in _ARTIFACT_DIRS and ext in _ARTIFACT_EXTS:
            return f"build output: {seg}/"
    return None
