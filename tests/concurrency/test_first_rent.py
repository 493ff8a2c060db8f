"""Issue 23: a new user's first rentals, each in a new data folder with the background guard
starting in the same moment, are all ready (bench/first_rent_bench.py does 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.concurrency.first_rent import first_rental

RENTALS = 3


@pytest.mark.slow
@pytest.mark.timeout(RENTALS * 150)
def test_first_rentals_beside_a_starting_guard_are_ready(tmp_path: Path) -> None:
    outcomes = [
        first_rental(tmp_path / f"user{i}" / "home", provision_delay_s=1.0) for i in range(RENTALS)
    ]
    assert [o.detail for o in outcomes] == ["ready"] * RENTALS
