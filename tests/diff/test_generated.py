from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from diffchunk.diff.attributes import Attributes
from diffchunk.diff.generated import (
    GeneratedFileDetector,
    generated_by_path,
    is_binary_by_attributes,
    vendored_by_path,
)
from diffchunk.diff.gitattributes import GitattributesFile
from diffchunk.diff.model import (
    DiffKind,
    ExcludeReason,
    FileDiff,
    FileStatus,
    Hunk,
    ParsedDiff,
)

G, V = ExcludeReason.GENERATED, ExcludeReason.VENDORED


def one_file(
    path: str,
    lines: Sequence[str] = (" x",),
    *,
    status: FileStatus = FileStatus.MODIFIED,
    start: int = 1,
) -> tuple[FileDiff, ParsedDiff]:
    """A hand-built one-file diff whose single hunk holds ``lines`` (with prefixes)."""
    old = None if status is FileStatus.ADDED else path
    new = None if status is FileStatus.DELETED else path
    header = f"diff --git a/{path} b/{path}\n--- {'a/' + path if old else '/dev/null'}\n"
    header += f"+++ {'b/' + path if new else '/dev/null'}\n"
    added = sum(1 for ln in lines if ln.startswith("+"))
    removed = sum(1 for ln in lines if ln.startswith("-"))
    old_count = sum(1 for ln in lines if ln[:1] in (" ", "-"))
    new_count = sum(1 for ln in lines if ln[:1] in (" ", "+"))
    old_start = 0 if status is FileStatus.ADDED else start
    new_start = 0 if status is FileStatus.DELETED else start
    hunk_header = f"@@ -{old_start},{old_count} +{new_start},{new_count} @@\n"
    body = "".join(ln + "\n" for ln in lines)
    data = (header + hunk_header + body).encode()
    h_start = len(header.encode())
    body_start = h_start + len(hunk_header)
    hunk = Hunk(
        h_start, body_start, len(data), old_start, old_count, new_start, new_count, added, removed
    )
    file = FileDiff(
        index=0,
        start=0,
        header_end=h_start,
        end=len(data),
        kind=DiffKind.GIT,
        status=status,
        old_path=old,
        new_path=new,
        hunks=(hunk,),
        added=added,
        removed=removed,
    )
    return file, ParsedDiff(data=data, files=(file,), segments=())


def classify(
    path: str,
    lines: Sequence[str] = (" x",),
    attrs: str | None = None,
    *,
    status: FileStatus = FileStatus.MODIFIED,
    start: int = 1,
) -> tuple[ExcludeReason, str] | None:
    file, parsed = one_file(path, lines, status=status, start=start)
    source = GitattributesFile(attrs) if attrs is not None else None
    return GeneratedFileDetector(source).classify(file, parsed)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("package-lock.json", (G, "lockfile")),
        ("web/yarn.lock", (G, "lockfile")),
        ("Cargo.lock", (G, "lockfile")),
        ("poetry.lock", (G, "lockfile")),
        ("Pipfile.lock", (G, "lockfile")),
        ("go.sum", (G, "lockfile")),
        ("apps/x/pnpm-lock.yaml", (G, "lockfile")),
        ("Gemfile.lock", (G, "lockfile")),
        ("flake.lock", (G, "lockfile")),
        ("uv.lock", (G, "lockfile")),
        ("src/Packages.Lock.JSON", (G, "lockfile")),
        ("static/jquery.min.js", (G, "minified")),
        ("static/app.MIN.CSS", (G, "minified")),
        ("lib/foo-min.js", (G, "minified")),
        ("static/app.js.map", (G, "source map")),
        ("static/app.css.map", (G, "source map")),
        ("api/v1/service_pb2.py", (G, "protobuf output")),
        ("api/v1/service_pb2_grpc.py", (G, "protobuf output")),
        ("api/service.pb.go", (G, "protobuf output")),
        ("api/service_grpc.pb.go", (G, "protobuf output")),
        ("cpp/msg.pb.cc", (G, "protobuf output")),
        ("cpp/msg.pb.h", (G, "protobuf output")),
        ("ios/Msg.pb.swift", (G, "protobuf output")),
        ("web/msg_pb.js", (G, "protobuf output")),
        ("gen-py/tutorial/ttypes.py", (G, "thrift output: gen-py/")),
        ("thrift/gen-java/Foo.java", (G, "thrift output: gen-java/")),
        ("Forms/Main.Designer.cs", (G, "generated code")),
        ("lib/model.g.dart", (G, "generated code")),
        ("lib/model.freezed.dart", (G, "generated code")),
        ("src/__generated__/query.ts", (G, "generated directory: __generated__/")),
        ("src/schema.generated.ts", (G, "generated code")),
        ("packages/ui/dist/index.js", (G, "build output: dist/")),
        ("build/classes/Foo.class", (G, "build output: build/")),
        ("vendor/github.com/x/y.go", (V, "vendored tree: vendor/")),
        ("php/vendors/lib.php", (V, "vendored tree: vendors/")),
        ("src/third_party/zlib/zlib.h", (V, "vendored tree: third_party/")),
        ("third-party/x.c", (V, "vendored tree: third-party/")),
        ("web/node_modules/left-pad/index.js", (V, "vendored tree: node_modules/")),
        ("bower_components/jquery/jquery.js", (V, "vendored tree: bower_components/")),
        ("Godeps/_workspace/src/x.go", (V, "vendored tree: Godeps/_workspace/")),
        (".yarn/releases/yarn-3.6.cjs", (V, "vendored tree: .yarn/releases/")),
        ("Vendor/Lib.m", (V, "vendored tree: vendor/")),
    ],
)
def test_path_heuristics_flag_generated_and_vendored(
    path: str, expected: tuple[ExcludeReason, str]
) -> None:
    assert classify(path) == expected


@pytest.mark.parametrize(
    "path",
    [
        "doc/build/x.rst",
        "build/webpack.config.js",
        "build/scripts/release.py",
        "mybuild/x.c",
        "src/vendorize.py",
        "vendor.go",
        "app/models/vendor.rb",
        "lib/distance.py",
        "dist/README.md",
        "mapping.py",
        "sitemap.xml",
        "maps/level1.map",
        "admin.js",
        "cumin.js",
        "lockfile.py",
        "package-lock.json.bak",
        "yarn.lock.md",
        "protobuf.go",
        "my_pb2.txt",
        "gen-docs/make.py",
        "generated.py",
        "src/generator.py",
        "README.md",
        "min.js",
        ".min.js",
        "src/node_modules.py",
        "thirdparty.txt",
    ],
)
def test_path_heuristics_leave_ordinary_files_alone(path: str) -> None:
    assert classify(path) is None
    assert generated_by_path(path) is None
    assert vendored_by_path(path) is None


@pytest.mark.parametrize(
    ("path", "lines", "detail"),
    [
        (
            "api/types.go",
            ["+// Code generated by protoc-gen-go. DO NOT EDIT.", "+", "+package api"],
            "Code generated header",
        ),
        (
            "api/zz.go",
            ["+// Copyright 2024", "+", "+// Code generated by deepcopy-gen. DO NOT EDIT.", "+"],
            "Code generated header",
        ),
        ("x/schema.py", ["+# @generated by tool", "+X = 1"], "@generated marker"),
        (
            "x/a.js",
            ["+/* This file was automatically generated */", "+x()"],
            "generated-file header",
        ),
        (
            "x/b.py",
            ["+# -*- coding: utf-8 -*-", "+# Autogenerated by x, edit y"],
            "generated-file header",
        ),
        ("x/c.sql", ["+-- auto-generated, do not touch"], "generated-file header"),
        (
            "x/c2.ts",
            ["+// Copyright x", "+// The code is automatically generated"],
            "generated-file header",
        ),
        (
            "x/c3.rb",
            ["+# frozen_string_literal: true", "+# Helpers autogenerated from schema.yml"],
            "generated-file header",
        ),
        ("x/d.h", ["+// Generated file. DO NOT EDIT."], "generated-file header"),
        (
            "x/c4.py",
            ["+# This is an auto-generated file. Changes will be lost."],
            "generated-file header",
        ),
        ("x/c5.ts", ["+// WARNING: AUTO-GENERATED FILE"], "generated-file header"),
        ("x/c6.go", ["+// File auto-generated, changes will be lost"], "generated-file header"),
        (
            "x/e.py",
            ["+# Generated by the protocol buffer compiler.  DO NOT EDIT!"],
            "protobuf output",
        ),
        ("docs/api.md", ["+<!-- @generated by docgen -->", "+# API"], "@generated marker"),
        # A modified file whose header is an unchanged context line.
        (
            "x/f.go",
            [" // Code generated by mockgen. DO NOT EDIT.", "-a", "+b"],
            "Code generated header",
        ),
        ("static/bundle.js", ["+" + "var a=1;" * 100], "minified"),
        ("static/site.css", ["+" + ".a{b:c}" * 60, "+" + ".d{e:f}" * 60], "minified"),
        ("static/app.map", ['+{"version":3,"sources":["a.js"],"mappings":"AAAA"}'], "source map"),
    ],
)
def test_header_heuristics_flag_generated_content(path: str, lines: list[str], detail: str) -> None:
    assert classify(path, lines) == (G, detail)


def test_deleted_file_header_is_read_from_the_old_side() -> None:
    lines = ["-// Code generated by stringer. DO NOT EDIT.", "-package x"]
    assert classify("x/kind_string.go", lines, status=FileStatus.DELETED) == (
        G,
        "Code generated header",
    )


@pytest.mark.parametrize(
    ("path", "lines", "kw"),
    [
        # "generated" later in a README is prose, not a header.
        ("README.md", ["+# Project", "+", "+Docs are generated from the code.", "+"], {}),
        ("README.md", ["+# Autogenerated API client", "+", "+Do not edit by hand."], {}),
        ("app/migrations/0002.py", ["+# Generated by Django 4.2 on 2024-01-01", "+"], {}),
        # Header-looking text that is not at the top of the file.
        ("x/a.go", ["+// Code generated by x. DO NOT EDIT."], {"start": 40}),
        # Not a comment.
        ("x/b.py", ['+MSG = "this is auto-generated"'], {}),
        # Comments that mention generated things without saying the file is one.
        ("app/ids.py", ['+"""Helpers for auto-generated primary keys."""', "+import uuid"], {}),
        ("lib/s.ts", ["+// Sessions: never trust automatically generated expiry dates."], {}),
        ("x/c.go", ["+// Code generated by hand, feel free to edit."], {}),
        ("static/app.js", ["+function a() {", "+  return 1;", "+}"], {}),
        ("x/long.py", ["+" + "x = 1  # " * 40, "+" + "y" * 300], {}),
        ("maps/level.map", ["+tiles 32 32", "+grass water"], {}),
    ],
)
def test_header_heuristics_negatives(path: str, lines: list[str], kw: dict[str, int]) -> None:
    assert classify(path, lines, start=kw.get("start", 1)) is None


def test_linguist_generated_attribute_wins_over_paths() -> None:
    attrs = "*.txt linguist-generated\nsrc/** linguist-vendored\n"
    assert classify("notes/a.txt", attrs=attrs) == (G, "linguist-generated")
    assert classify("src/x.py", attrs=attrs) == (V, "linguist-vendored")
    assert classify("x.py", attrs=attrs) is None


def test_false_attribute_overrides_heuristics_of_its_kind_only() -> None:
    attrs = "package-lock.json -linguist-generated\nvendor/** linguist-vendored=false\n"
    assert classify("package-lock.json", attrs=attrs) is None
    assert classify("vendor/lib.go", attrs=attrs) is None
    # Not vendored any more, but still minified.
    assert classify("vendor/x.min.js", attrs=attrs) == (G, "minified")
    go = ["+// Code generated by x. DO NOT EDIT."]
    assert classify("x/a.go", go, attrs="*.go linguist-generated=false\n") is None
    assert classify("x/a.go", go, attrs="*.go linguist-vendored=false\n") == (
        G,
        "Code generated header",
    )


def test_linguist_generated_true_string_value_counts() -> None:
    assert classify("a.py", attrs="a.py linguist-generated=true\n") == (G, "linguist-generated")


class CountingSource:
    """A real in-memory attribute source that records its calls."""

    def __init__(self, table: Mapping[str, Attributes]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        self.calls.append(list(paths))
        return {p: self.table.get(p, {}) for p in paths}


def test_prefetch_asks_the_source_once() -> None:
    source = CountingSource({"b.py": {"linguist-generated": True}})
    det = GeneratedFileDetector(source)
    det.prefetch(["a.py", "b.py", "a.py"])
    fa, pa = one_file("a.py")
    fb, pb = one_file("b.py")
    assert det.classify(fa, pa) is None
    assert det.classify(fb, pb) == (G, "linguist-generated")
    assert source.calls == [["a.py", "b.py"]]


@pytest.mark.parametrize(
    ("attrs", "binary"),
    [
        ({}, False),
        ({"diff": False}, True),
        ({"binary": True, "diff": False}, True),
        ({"diff": True}, False),
        ({"diff": "python"}, False),
        ({"binary": False}, False),
    ],
)
def test_is_binary_by_attributes(attrs: dict[str, bool | str], binary: bool) -> None:
    assert is_binary_by_attributes(attrs) is binary


def test_detector_is_binary_uses_gitattributes_file() -> None:
    det = GeneratedFileDetector(GitattributesFile("*.png binary\n*.dat -diff\n"))
    for path, expected in (("a/logo.png", True), ("x.dat", True), ("x.py", False)):
        file, _ = one_file(path)
        assert det.is_binary(file) is expected
