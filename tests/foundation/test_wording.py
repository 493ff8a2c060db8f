"""The core's messages: every catalogue entry is worded in both languages with the same
figures, and a message survives being stored and read back, nested or not."""

from __future__ import annotations

import json
import logging

import pytest

from xyclaw.errors import RemoteError, XyclawError
from xyclaw.wording import Said, fields_of, said, worded
from xyclaw.wording.catalogue import CATALOGUE


@pytest.mark.parametrize("key", sorted(CATALOGUE))
def test_every_entry_has_both_languages_with_the_same_figures(key: str) -> None:
    english, chinese = CATALOGUE[key]
    assert english.strip() and chinese.strip(), f"{key}: both languages are needed"
    assert fields_of(chinese) == fields_of(english), (
        f"{key}: the Chinese uses {sorted(fields_of(chinese))}, the English"
        f" {sorted(fields_of(english))}"
    )
    areas = {"common", "op", "job", "alert", "agent", "error", "cli", "plan", "provider"}
    assert key.split(".")[0] in areas, key


def test_a_message_is_worded_in_each_language_and_nests() -> None:
    state = said("common.list_sep")
    message = Said("common.list_sep", {})
    assert state == message
    assert message.in_language("zh") == "、" and str(message) == ", "


def test_a_stored_message_reads_back_equal_with_its_nested_figures() -> None:
    inner = Said("common.list_sep", {})
    outer = Said("no.such.key", {"why": inner, "count": 3, "ratio": 0.5, "none": None})
    back = Said.from_json(json.loads(json.dumps(outer.to_json())))
    assert back == outer


def test_an_unknown_key_or_damaged_figures_never_fail_a_view(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        assert Said("op.from.a.newer.version", {"n": 2}).in_language("zh") == (
            "op.from.a.newer.version (n=2)"
        )
    assert Said.from_json({"figures": {}}) is None and Said.from_json("text") is None
    assert worded(None, "zh") == "" and worded("a node's own words", "zh") == "a node's own words"
    with pytest.raises(KeyError, match=r"add it to a xyclaw\.wording catalogue"):
        said("op.not.in.the.catalogue")


def test_an_error_keeps_its_english_and_words_itself_in_chinese() -> None:
    error = RemoteError(Said("common.list_sep", {}), host="gpu1", hint="try again")
    assert isinstance(error, XyclawError)
    assert error.message == ", " and error.in_language("zh") == ("、", "try again")
    plain = XyclawError("plain", hint="do this")
    assert plain.in_language("zh") == ("plain", "do this") and str(plain) == "plain\n  -> do this"
