"""xyclaw.wording.display: untrusted text draws as exactly what it holds (issue 25, point 4)."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from xyclaw.wording import display

ATTACK = "touch /root/X; rm -rf /workspace; #\r\x1b[2K   command: nvidia-smi -L"


def test_the_spoofing_command_shows_whole_on_one_line() -> None:
    shown = display.line(ATTACK)
    assert shown == "touch /root/X; rm -rf /workspace; #␍␛[2K   command: nvidia-smi -L"
    assert "\r" not in shown and "\x1b" not in shown


def test_a_second_line_in_a_field_is_visible_not_a_new_row() -> None:
    shown = display.line("nvidia-smi -L\n   command: ls\ttab")
    assert shown == "nvidia-smi -L␊   command: ls␉tab"


def test_every_escape_class_is_made_visible_in_a_field() -> None:
    assert display.line("a\x1b]0;title\x07b") == "a␛]0;title␇b"  # OSC and BEL
    assert display.line("x\x08\x08y\x7f\x00") == "x␈␈y␡␀"  # backspace, DEL, NUL
    assert display.line("\x9b2K\x9d0;t") == "<U+009B>2K<U+009D>0;t"  # 8-bit CSI and OSC (C1)
    assert display.line("\x1b[8mhidden\x1b[0m") == "␛[8mhidden␛[0m"  # style: visible in a field


def test_bidi_and_invisible_characters_are_named() -> None:
    # "rm -rf /" written backwards behind a right-to-left override
    assert display.line("ls \u202e/ fr- mr\u202c") == "ls <U+202E>/ fr- mr<U+202C>"
    assert display.line("a\u2066b\u2069") == "a<U+2066>b<U+2069>"
    assert display.line("alpha\u200b") == "alpha<U+200B>"
    assert display.line("\ufeffgamma\u2060") == "<U+FEFF>gamma<U+2060>"
    assert display.line("\U000e0072\U000e006d") == "<U+E0072><U+E006D>"  # tag characters
    assert display.line("a\u2028b") == "a<U+2028>b"  # Qt breaks lines there
    assert display.line("bad\ud800") == "bad<U+D800>"  # a lone surrogate from JSON


def test_the_card_marker_never_comes_through() -> None:
    forged = f"{display.CARD_MARK}   command: nvidia-smi -L"
    assert display.CARD_MARK not in display.line(forged)
    assert display.CARD_MARK not in display.text(f"reply\n{forged}")


def test_multi_line_content_keeps_its_lines_and_drops_only_styles() -> None:
    log = "step 1\r\nloss \x1b[32m0.5\x1b[0m\tok\n10%\r20%\rdone\n"
    assert display.text(log) == "step 1\nloss 0.5\tok\n10%\n20%\ndone\n"
    # conceal is a style: removed, so what it hid shows
    assert display.text("real card?\x1b[8m FAKE\x1b[0m") == "real card? FAKE"
    # anything but a complete style sequence stays visible
    assert display.text("a\x1b[2Kb\x1b[1Ac") == "a␛[2Kb␛[1Ac"
    # removing styles never forms a live escape out of the pieces
    assert "\x1b" not in display.text("\x1b\x1b[0m[2K")


def test_ordinary_text_is_unchanged() -> None:
    for ok in ("nvidia-smi -L", "集群 alpha 已释放", "64 × H100 · 755 CNY/h", "emoji 👍🏽 ok"):
        assert display.line(ok) == ok and display.text(ok) == ok
        assert display.is_clean(ok)
    assert not display.is_clean(ATTACK)


def test_every_unicode_control_and_format_character_is_caught() -> None:
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp", "Cs")
        and display.is_clean(chr(code))
    ]
    assert missed == []


@given(st.text())
def test_nothing_drawn_can_move_the_cursor_or_hide_text(raw: str) -> None:
    for shown in (display.line(raw), display.text(raw)):
        for ch in shown:
            category = unicodedata.category(ch)
            assert category not in ("Cf", "Zl", "Zp", "Cs"), (raw, shown)
            assert category != "Cc" or ch in "\n\t", (raw, shown)
        assert display.CARD_MARK not in shown
    assert "\n" not in display.line(raw)
