"""Chinese numerals, full-width forms and English number words, as the brain reads them."""

from __future__ import annotations

from decimal import Decimal

import pytest

from xyclaw.agent.rules import detect_language
from xyclaw.agent.rules.numbers import chinese_number, prepare


@pytest.mark.parametrize(
    ("run", "value"),
    [
        ("八", 8),
        ("十", 10),
        ("十二", 12),
        ("二十五", 25),
        ("一百零五", 105),
        ("一百五", 150),
        ("两千五百", 2500),
        ("两千五", 2500),
        ("一万五", 15000),
        ("一万五千", 15000),
        ("1.5万", 15000),
        ("1万5千", 15000),
        ("七十亿", 7_000_000_000),
        ("130亿", 13_000_000_000),
        ("一千亿", 100_000_000_000),
        ("两万亿", 2_000_000_000_000),
        ("三点五", Decimal("3.5")),
        ("二零二六", 2026),
        ("俩", 2),
    ],
)
def test_chinese_numerals(run: str, value: int | Decimal) -> None:
    assert chinese_number(run) == value


@pytest.mark.parametrize(
    ("text", "prepared"),
    [
        ("八张卡", " 8 张卡"),
        ("７０亿参数", " 7b 参数"),  # full-width digits
        ("1000亿token", " 100b token"),
        ("预算１．５万", "预算 1.5w "),
        ("五百元", " 500 元"),
        ("第一个", "第 1 个"),
        ("千万不要释放", "千万不要释放"),  # "by all means": no number in it
        ("A800", "a800"),
        ("eight GPUs", "8 gpus"),
        ("one GPU", "1 gpu"),
        ("the second one", "the second one"),
        ("rent option two", "rent option 2"),
    ],
)
def test_prepare(text: str, prepared: str) -> None:
    assert prepare(text) == prepared


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("rent option 2", "en"),
        ("租方案2", "zh"),
        ("帮我plan一个7B的finetune", "zh"),
        ("plan a 7B fine-tune on 8 A800 in 厦门", "en"),
        ("rent option 2 谢谢", "zh"),
        ("", "en"),
        ("１２３", "en"),
    ],
)
def test_language_of_the_request(text: str, language: str) -> None:
    assert detect_language(text) == language
