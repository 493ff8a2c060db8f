"""xyclaw.files: made once (one winner, the others read its file), changed under a lock
(no change lost), replaced whole (no reader sees half)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from xyclaw.files import create_private, locked, write_private


def test_of_many_makers_one_wins_and_its_file_stays(tmp_path: Path) -> None:
    path = tmp_path / "ssh" / "id_ecdsa"
    start = threading.Barrier(16)

    def make(i: int) -> bool:
        start.wait()
        return create_private(path, f"key {i}\n")

    with ThreadPoolExecutor(16) as pool:
        won = list(pool.map(make, range(16)))
    assert won.count(True) == 1
    assert path.read_text() == f"key {won.index(True)}\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert not create_private(path, "another key\n")
    assert path.read_text() == f"key {won.index(True)}\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["id_ecdsa"]  # no temporary left


def test_changes_under_the_lock_are_all_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    write_private(path, "", mode=0o644)

    def add(i: int) -> None:
        with locked(path):
            write_private(path, path.read_text() + f"line {i}\n", mode=0o644)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(add, range(40)))
    assert sorted(path.read_text().splitlines()) == sorted(f"line {i}" for i in range(40))
    assert path.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]  # the lock is gone


def test_a_reader_sees_the_old_file_or_the_new_one(tmp_path: Path) -> None:
    path = tmp_path / "guard.json"
    old, new = "a" * 200_000, "b" * 300_000
    write_private(path, old)
    seen: set[str] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            text = path.read_text()
            seen.add(text[:1] + str(len(text)))

    reader = threading.Thread(target=read)
    reader.start()
    for _ in range(30):
        write_private(path, new)
        write_private(path, old)
    stop.set()
    reader.join()
    assert seen <= {"a200000", "b300000"}
