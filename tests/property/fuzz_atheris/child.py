"""The fuzzing child process: instrument the diff engine, hand the target to libFuzzer."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import types
from pathlib import Path

from tests.property.fuzz_diff import checks

from .inputs import Recorder

INSTRUMENTED = "diffchunk.diff"


def instrument(prefix: str = INSTRUMENTED) -> int:
    """Add atheris coverage and comparison tracing to every loaded function of ``prefix``."""
    import atheris

    count = 0
    for obj in gc.get_objects():
        if not isinstance(obj, types.FunctionType):
            continue
        module = getattr(obj, "__module__", None) or ""
        if module == prefix or module.startswith(prefix + "."):
            atheris.instrument_func(obj)
            count += 1
    return count


def run_child(args: argparse.Namespace) -> int:
    import atheris

    checks.TIME_LIMIT = args.time_limit * args.slack
    # warnings about fuzzed inputs (a bad .gitattributes pattern...) are expected
    logging.disable(logging.WARNING)
    print(f"INFO: instrumented {instrument()} functions of {INSTRUMENTED}", flush=True)
    recorder = Recorder(
        Path(args.crash_dir),
        Path(args.failure_log) if args.failure_log else None,
        keep=args.keep,
        stop_on_crash=args.stop_on_crash,
    )
    flags = [
        f"-max_len={args.max_len}",
        f"-timeout={args.hang_timeout}",
        f"-artifact_prefix={Path(args.crash_dir)}{os.sep}",
        "-print_final_stats=1",
        f"-seed={args.seed}",
    ]
    if args.runs:
        flags.append(f"-runs={args.runs}")
    if args.seconds:
        flags.append(f"-max_total_time={args.seconds}")
    if args.dict:
        flags.append(f"-dict={args.dict}")
    flags += args.libfuzzer
    atheris.Setup([sys.argv[0], *flags, args.corpus_dir], recorder.run_one)
    atheris.Fuzz()
    return 0  # not reached: libFuzzer ends the process
