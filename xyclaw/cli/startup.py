"""Starting a command quickly: the cyclic garbage collector held off while a big stack imports."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def bulk_imports() -> Iterator[None]:
    """Run the block (importing LangGraph and building the agents) without cyclic collections.

    Importing LangGraph makes some hundred thousand objects (classes, functions, pydantic
    models) that live as long as the process. With the collector on, the import triggers
    collections that walk everything made so far and free next to nothing: 15-35 % of the
    import's CPU time on this machine. Inside the block the collector is off; on the way
    out what the block made is frozen (:func:`gc.freeze`: left out of later collections,
    which it would survive anyway) and collection goes on as before. Reference counting
    frees everything that is not a cycle meanwhile, as always.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
