"""The one registry of secrets (issue 26): longest first, short values skipped, streams masked
across pieces, bytes masked at the same length, errors and log records masked."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import ormsgpack

from xyclaw.errors import UsageError
from xyclaw.logsetup import configure_logging
from xyclaw.secrets import (
    MASK,
    SecretRegistry,
    StreamMasker,
    register_environment,
    register_secret,
)


def test_the_longest_secret_is_masked_first_and_short_values_are_skipped() -> None:
    registry = SecretRegistry()
    assert not registry.register("abc123")  # < 8 characters: would rewrite ordinary words
    registry.register("token-1234")
    registry.register("token-1234-extended")
    assert registry.mask("a token-1234-extended b token-1234 c abc123") == (
        f"a {MASK} b {MASK} c abc123"
    )
    assert registry.mask_value({"k": ["token-1234", ("x", 3)], "n": 5}) == {
        "k": [MASK, ("x", 3)],
        "n": 5,
    }


def test_a_stream_split_inside_a_secret_never_shows_it() -> None:
    registry = SecretRegistry()
    registry.register("sk-stream-secret-42")
    text = "before sk-stream-secret-42 after, and sk-stream again"
    for size in range(1, 12):
        masker = StreamMasker(registry)
        shown = [masker.feed(text[i : i + size]) for i in range(0, len(text), size)]
        shown.append(masker.flush())
        assert "".join(shown) == f"before {MASK} after, and sk-stream again", size
        assert all("secret-42" not in piece for piece in shown)


def test_bytes_keep_their_length_so_msgpack_still_reads() -> None:
    registry = SecretRegistry()
    registry.register("hf_abcdefghijklmnop")
    packed = ormsgpack.packb({"messages": ["token hf_abcdefghijklmnop here"], "n": 2**40})
    masked = registry.mask_bytes(packed)
    assert len(masked) == len(packed) and b"hf_abcdefghijklmnop" not in masked
    assert ormsgpack.unpackb(masked) == {"messages": ["token ******************* here"], "n": 2**40}


def test_registration_is_thread_safe() -> None:
    registry = SecretRegistry()
    values = [f"secret-value-{i:04d}" for i in range(400)]

    def add(part: list[str]) -> None:
        for value in part:
            registry.register(value)
            registry.mask(value)

    threads = [threading.Thread(target=add, args=(values[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(registry) == 400
    assert registry.mask(" ".join(values)) == " ".join([MASK] * 400)


def test_errors_and_log_records_are_masked(tmp_path: Path) -> None:
    register_environment({"HF_TOKEN": "hf_planted_token_for_errors"})
    error = UsageError("the server said: bad token hf_planted_token_for_errors")
    assert "hf_planted" not in str(error) and MASK in error.message
    register_secret("planted-log-secret-77")
    log_file = tmp_path / "xyclaw.log"
    configure_logging(log_file, "DEBUG")
    logging.getLogger("xyclaw.test").info("sending %s", "planted-log-secret-77")
    logging.getLogger("paramiko.transport").warning("auth with planted-log-secret-77 failed")
    for handler in logging.getLogger("xyclaw").handlers:
        handler.flush()
    text = log_file.read_text()
    assert "planted-log-secret-77" not in text and f"sending {MASK}" in text
