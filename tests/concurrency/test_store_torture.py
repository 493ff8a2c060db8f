"""Issue 23: one minute of the window's store, the guard and a stream of commands on one
data folder, with kill -9 of any of them at random: both SQLite files stay sound, the WAL
is never removed under an open store, and every committed row is there
(tests/concurrency/torture.py says what runs; bench/store_torture_bench.py runs it longer)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.concurrency.torture import Torture

SECONDS = float(os.environ.get("XYCLAW_TORTURE_SECONDS", "60"))


@pytest.mark.slow
@pytest.mark.timeout(int(SECONDS) + 180)
def test_the_history_survives_a_minute_of_kill_9(xyclaw_home: Path) -> None:
    figures = Torture(xyclaw_home, seed=23).run(SECONDS)
    print(json.dumps(figures.to_json()))
    assert figures.failures == []
    assert figures.integrity_failures == 0
    assert figures.lost_rows == 0
    assert figures.wal_violations == 0
    # and it was a torture: things were killed, committed, read, backed up
    assert figures.kills >= SECONDS / 6
    assert figures.committed_plans > 0 and figures.committed_checkpoints > 0
    assert figures.commands_ok > 0
