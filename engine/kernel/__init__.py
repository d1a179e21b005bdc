"""The search kernel: `hard`'s race compiled by numba, beside the rules' engine (issue 40).

`engine/game.py` stays the one authority on the rules; the kernel is the search's fast copy of
the state, the transitions, `normal`'s choices, the dealer and the race (`layout.py`,
`play.py`, `normal.py`, `search.py`; its playouts end in a learned network's estimate,
`network.py`), held to the engine by tests/ai/test_kernel_diff.py, which
plays both side by side and compares every step (`compare.py`).

Nothing imports numba until `loader.load()`: a process that never searches never pays for it.
`load()` compiles the kernel, or loads it from the cache (`NUMBA_CACHE_DIR`, else
~/.cache/tg-durak/numba under $XDG_CACHE_HOME or the home directory: `jit.py`), and plays one
tiny race (`warm.py`); from then on `loader.ready()` is true and `hard` races in the kernel
(`racing.py`). Until then, and whenever numba cannot be imported or DURAK_KERNEL=off switches
the kernel off, `hard` plays its Python search.
"""
