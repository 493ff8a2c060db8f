"""Canonical spellings of GPU models and regions, so every source matches every other.

GPU models are upper case with spaces removed (``RTX4090``, ``A100-80G``,
``H100``): "NVIDIA GeForce RTX 4090", "rtx 4090" and "4090" all become
``RTX4090``; "A100 80GB" becomes ``A100-80G``.
"""

from __future__ import annotations

import re

_VENDOR_PREFIX = re.compile(r"^(?:NVIDIA|GEFORCE|TESLA)[\s-]*")
_LETTER_SPACE_DIGIT = re.compile(r"([A-Z])[\s-]+(?=\d)")
_DIGIT_SPACE_DIGIT = re.compile(r"(\d)\s+(?=\d)")
_MEMORY_SUFFIX = re.compile(r"(\d)GB$")
# Form factors and memory kinds that nvidia-smi names carry but the catalog does not.
_FORM_FACTOR = re.compile(r"[\s-]*\b(?:SXM\d*|PCIE|HBM3E?|NVL)\b")

# Spellings that the rules above leave different from the catalog's names.
_ALIASES = {
    "4090": "RTX4090",
    "RTX4090-24G": "RTX4090",
    "A10-24G": "A10",
    "L40S-48G": "L40S",
    "A800-80G": "A800",
    "A800SXM": "A800",
    "A800-SXM": "A800",
    "H100-80G": "H100",
    "H100SXM": "H100",
    "H100-SXM": "H100",
    "H100SXM5": "H100",
    "H100-SXM5": "H100",
    "H800-80G": "H800",
    "H800SXM": "H800",
    "H800-SXM": "H800",
    "H20-96G": "H20",
    "H200-141G": "H200",
    "H200SXM": "H200",
    "H200-SXM": "H200",
    "A100SXM4-40G": "A100-40G",
    "A100SXM4-80G": "A100-80G",
}


def normalise_gpu_name(name: str) -> str:
    """The catalog's name for a GPU model, whatever spelling a user or provider used."""
    text = name.strip().upper().replace("_", " ")
    previous = None
    while previous != text:
        previous = text
        text = _VENDOR_PREFIX.sub("", text)
    text = _FORM_FACTOR.sub("", text)
    text = re.sub(r"\s*-\s*", "-", text)
    text = _LETTER_SPACE_DIGIT.sub(r"\1", text)
    text = _DIGIT_SPACE_DIGIT.sub(r"\1-", text)
    text = re.sub(r"\s+", "", text)
    text = _MEMORY_SUFFIX.sub(r"\1G", text)
    return _ALIASES.get(text, text)


def same_name(left: str, right: str) -> bool:
    """Case-insensitive match for regions and providers ("xiamen" is "Xiamen")."""
    return left.strip().casefold() == right.strip().casefold()
