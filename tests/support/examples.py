"""How many examples a property test draws: a share of its thorough count.

The count written beside a hypothesis test (``examples(300)``) is what the thorough
run draws (``HYPOTHESIS_PROFILE=thorough make unit``, hypothesis' own 100 for a test
that names none); the normal run (``make test``) draws a quarter of it, and never
fewer than :data:`FEWEST`.  The profiles are registered and loaded by
``tests/conftest.py`` before a test module is imported; the long property runs
(``make fuzz``, ``make fuzz-files``) draw far more than either.
"""

from __future__ import annotations

import os

from hypothesis import settings

# The profile a run takes (HYPOTHESIS_PROFILE): "normal" unless told "thorough".
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "normal")
# Hypothesis' own default count: what the thorough run draws for a test naming none.
THOROUGH_EXAMPLES = 100
# The normal run's share of a thorough count: a quarter of the examples, which drew
# about a minute of CPU of the suite's four (the property tests' remaining examples
# find what they find in the thorough run).
NORMAL_EXAMPLES = THOROUGH_EXAMPLES // 4
# Fewer examples than this prove little of a property: the floor of a scaled count.
FEWEST = 10


def register_profiles() -> None:
    """Register the normal and thorough profiles and load the one ``PROFILE`` names
    (hypothesis refuses a name it does not know, naming the ones it does)."""
    settings.register_profile("normal", max_examples=NORMAL_EXAMPLES)
    settings.register_profile("thorough", max_examples=THOROUGH_EXAMPLES)
    settings.load_profile(PROFILE)


def examples(thorough: int) -> int:
    """The examples to draw of a test whose thorough run draws ``thorough``."""
    share = settings().max_examples / THOROUGH_EXAMPLES
    return max(min(FEWEST, thorough), round(thorough * share))
