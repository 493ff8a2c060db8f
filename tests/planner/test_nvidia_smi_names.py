"""The names nvidia-smi prints map to the catalog's models (bootstrap checks rely on it)."""

from __future__ import annotations

import pytest

from xyclaw.catalog import Catalog, normalise_gpu_name


@pytest.mark.parametrize(
    ("printed", "model"),
    [
        ("NVIDIA A800-SXM4-80GB", "A800"),
        ("NVIDIA A100-SXM4-40GB", "A100-40G"),
        ("NVIDIA A100-SXM4-80GB", "A100-80G"),
        ("NVIDIA A100 80GB PCIe", "A100-80G"),
        ("NVIDIA H100 80GB HBM3", "H100"),
        ("NVIDIA H100 PCIe", "H100-PCIE"),  # its own model since issue 29
        ("NVIDIA H100 NVL", "H100-NVL"),
        ("NVIDIA H800", "H800"),
        ("NVIDIA H20", "H20"),
        ("NVIDIA H200", "H200"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA A10", "A10"),
        ("NVIDIA GeForce RTX 4090", "RTX4090"),
    ],
)
def test_printed_name_is_a_catalog_model(printed: str, model: str) -> None:
    assert normalise_gpu_name(printed) == model
    assert Catalog.builtin().gpu(model).name == model
