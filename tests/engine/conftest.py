"""The engine tests rent from the same in-process simulated cloud as the lifecycle tests."""

from tests.lifecycle.conftest import make_world

__all__ = ["make_world"]
