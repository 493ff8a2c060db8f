"""bulk_imports(): the collector is off only inside the block; cycles made later are freed."""

from __future__ import annotations

import gc
import weakref

from xyclaw.cli.startup import bulk_imports


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_collection_is_held_inside_and_goes_on_after() -> None:
    assert gc.isenabled()
    try:
        with bulk_imports():
            assert not gc.isenabled()
            inside = _cycle()
        assert gc.isenabled()
        after = _cycle()
        gc.collect()
        assert after() is None  # garbage made after the block is collected as ever
        assert inside() is not None  # what the block made is frozen, as its imports are
    finally:
        gc.unfreeze()


def test_a_collector_switched_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with bulk_imports():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
