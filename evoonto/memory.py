"""Process memory helpers shared by the layers that allocate in bulk.

Python's cyclic garbage collector rescans every container it tracks each time enough new ones were
allocated. Code that builds hundreds of thousands of small acyclic containers and frees none of them
(the browse index, the explorer's model, the rdflib copy of a build that pyshacl validates) pays for
those rescans many times over without reclaiming anything; it pauses the collector for the block with
:func:`paused_cyclic_gc`. Reference counting still frees every object that is not in a cycle.
(A process-wide policy after a load, :func:`evoonto.server.freeze_loaded_objects`, is the server's.)
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def paused_cyclic_gc(*, collect_young: bool = False) -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block; restored afterwards, also on error.

    Args:
        collect_young: on leaving the block, collect the youngest generation once before the
            collector is restored. Every container allocated inside the block is still in that
            generation (a paused collector promotes nothing), so reference cycles the block made and
            dropped (an rdflib graph and its store refer to each other) are freed now, without the
            full collection that would rescan every older object of the process.

    Only the collector's state at entry is restored: a collector that was already disabled stays
    disabled. Cyclic garbage the block leaves behind without ``collect_young`` is collected by a
    later collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if collect_young:
            gc.collect(0)
    finally:
        if enabled:
            gc.enable()
