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
    # SkyPilot, RunPod, Lambda and nvidia-smi spellings of the other catalog models
    "3090": "RTX3090",
    "5090": "RTX5090",
    "V100-16G": "V100",
    "V100SXM2-16G": "V100",
    "V100SXM2-32G": "V100-32G",
    "T4-16G": "T4",
    "A10G-24G": "A10G",
    "L4-24G": "L4",
    "L40-48G": "L40",
    "A6000": "RTXA6000",
    "A5000": "RTXA5000",
    "A4000": "RTXA4000",
    "RTX6000ADA-48G": "RTX6000ADA",
    "GH200-96G": "GH200",
    "GH200-480G": "GH200",
    "B200-180G": "B200",
    "B200-192G": "B200",
    "H100-PCIE-80G": "H100-PCIE",
    "H100-NVL-94G": "H100-NVL",
}
# H100 comes in three boards the planner must tell apart (SXM, PCIe, NVL); the other
# models' form factors are dropped (an A100 PCIe is planned as its SXM twin).
_H100_BOARD = re.compile(r"^H100\b.*?\b(PCIE|NVL)\b")
_ADA = re.compile(r"[\s-]*ADA(?:[\s-]*GENERATION)?\b")


def normalise_gpu_name(name: str) -> str:
    """The catalog's name for a GPU model, whatever spelling a user or provider used."""
    text = name.strip().upper().replace("_", " ")
    previous = None
    while previous != text:
        previous = text
        text = _VENDOR_PREFIX.sub("", text)
    board = _H100_BOARD.search(text)
    if board is not None:
        return f"H100-{board.group(1)}"
    text = _ADA.sub("ADA", text)
    text = _FORM_FACTOR.sub("", text)
    text = re.sub(r"\s*-\s*", "-", text)
    text = _LETTER_SPACE_DIGIT.sub(r"\1", text)
    text = _DIGIT_SPACE_DIGIT.sub(r"\1-", text)
    text = re.sub(r"\s+", "", text)
    text = _MEMORY_SUFFIX.sub(r"\1G", text)
    return _ALIASES.get(text, text)


# Accelerators XyClaw reads in a task but will not launch on, and the wording key of why.
# AMD's MI300X/MI325X are planned (telemetry and NCCL tuning are NVIDIA-only today).
_REFUSED = (
    (re.compile(r"^(?:AMD[\s-]*)?(?:INSTINCT[\s-]*)?MI\d{2,3}[A-Z]?\b"), "amd"),
    (re.compile(r"^(?:GOOGLE[\s-]*)?TPU"), "tpu"),
    (re.compile(r"^(?:AWS[\s-]*)?(?:INFERENTIA|TRAINIUM|INF\d|TRN\d)"), "neuron"),
    (re.compile(r"^(?:INTEL[\s-]*)?GAUDI"), "gaudi"),
)


def refused_accelerator(name: str) -> str | None:
    """The reason (``amd``, ``tpu``, ``neuron``, ``gaudi``) XyClaw will not launch on this
    accelerator, or None for an NVIDIA GPU (known to the catalog or not)."""
    text = name.strip().upper().replace("_", " ")
    for pattern, reason in _REFUSED:
        if pattern.match(text):
            return reason
    return None


def same_name(left: str, right: str) -> bool:
    """Case-insensitive match for regions and providers ("xiamen" is "Xiamen")."""
    return left.strip().casefold() == right.strip().casefold()
