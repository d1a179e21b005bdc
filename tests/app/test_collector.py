"""The garbage collector after start-up: what start-up built is frozen, the young gather longer.
Checked in a process of its own, since freezing is for good."""

import subprocess
import sys

from tg_durak.ops.gc_tuning import YOUNG

PROBE = """
import gc
from tg_durak.ops.gc_tuning import settle_after_start
built = [[i] for i in range(1000)]   # start-up's objects
settle_after_start()
print(gc.get_freeze_count() >= 1000, gc.get_threshold()[0])
"""


def test_start_up_is_frozen_and_the_young_gather_longer() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", str(YOUNG)]


PAUSED = """
import gc
from tg_durak.ops.gc_tuning import paused
gc.collect()
with paused():
    built = [[i] for i in range(100_000)]   # a resume's tables
oldest = {id(o) for o in gc.get_objects(generation=2)}
print(gc.isenabled(), gc.get_count()[0] < 1000, gc.get_freeze_count(),
      all(id(b) in oldest for b in built))
"""


def test_what_was_built_while_paused_is_not_walked_by_the_next_young_collection() -> None:
    out = subprocess.run([sys.executable, "-c", PAUSED], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "True", "0", "True"]
