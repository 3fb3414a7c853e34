"""``python -m tests.property.fuzz_atheris``: see :mod:`tests.property.fuzz_atheris.cli`."""

import sys

from .cli import main

sys.exit(main())
