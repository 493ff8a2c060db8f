"""Issue 29 point 2: the catalog knows the GPUs people rent, in every spelling, and says
why it will not launch on the accelerators it refuses."""

from __future__ import annotations

import pytest

from xyclaw.catalog import Catalog, normalise_gpu_name
from xyclaw.catalog.names import refused_accelerator
from xyclaw.errors import XyclawError
from xyclaw.jobs.spec import parse_spec
from xyclaw.wording import worded

# memory GiB, dense BF16 (FP16 where the card has no BF16) TFLOP/s, NVLink GB/s:
# the data sheets' figures, written out again by hand.
DATA_SHEET = {
    "V100": (16, 125, 300),
    "V100-32G": (32, 125, 300),
    "T4": (16, 65, 0),
    "A10": (24, 125, 0),
    "A10G": (24, 70, 0),
    "L4": (24, 121, 0),
    "L40": (48, 181.05, 0),
    "L40S": (48, 362.05, 0),
    "A100-40G": (40, 312, 600),
    "A100-80G": (80, 312, 600),
    "H100": (80, 989.4, 900),
    "H100-PCIE": (80, 756, 600),
    "H100-NVL": (94, 835.5, 600),
    "H20": (96, 148, 900),
    "H200": (141, 989.4, 900),
    "GH200": (96, 989.4, 900),
    "B200": (180, 2250, 1800),
    "RTX3090": (24, 71, 112.5),
    "RTX4090": (24, 165.2, 0),
    "RTX5090": (32, 209.5, 0),
    "RTXA4000": (16, 76.7, 0),
    "RTXA5000": (24, 111.1, 112.5),
    "RTXA6000": (48, 154.8, 112.5),
    "RTX4000ADA": (20, 81.9, 0),
    "RTX5000ADA": (32, 261.1, 0),
    "RTX6000ADA": (48, 364.2, 0),
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.builtin()


@pytest.mark.parametrize("name", sorted(DATA_SHEET))
def test_every_rented_gpu_has_its_data_sheet_figures(catalog: Catalog, name: str) -> None:
    gpu = catalog.gpu(name)
    memory, bf16, nvlink = DATA_SHEET[name]
    assert (gpu.memory_gib, gpu.bf16_tflops, gpu.nvlink_gbs) == (memory, bf16, nvlink)
    assert gpu.source.startswith(("NVIDIA", "AWS"))  # the sheet it was read from


SPELLINGS = {
    # SkyPilot's accelerator names
    "A100-80GB": "A100-80G",
    "H100-SXM": "H100",
    "H100-80GB": "H100",
    "L40S": "L40S",
    "RTX4090": "RTX4090",
    "V100-32GB": "V100-32G",
    "RTXA6000": "RTXA6000",
    "RTX6000-Ada": "RTX6000ADA",
    # providers' names
    "GeForce RTX 4090": "RTX4090",
    "RTX A6000": "RTXA6000",
    "H100 PCIe": "H100-PCIE",
    "H100_PCIe": "H100-PCIE",
    "H100 NVL": "H100-NVL",
    "A6000": "RTXA6000",
    "3090": "RTX3090",
    # nvidia-smi's names
    "NVIDIA H100 80GB HBM3": "H100",
    "NVIDIA H100 PCIe": "H100-PCIE",
    "NVIDIA H100 NVL": "H100-NVL",
    "NVIDIA A100-SXM4-80GB": "A100-80G",
    "NVIDIA A100-PCIE-40GB": "A100-40G",
    "Tesla V100-SXM2-16GB": "V100",
    "Tesla T4": "T4",
    "NVIDIA A10G": "A10G",
    "NVIDIA L4": "L4",
    "NVIDIA GeForce RTX 3090": "RTX3090",
    "NVIDIA GeForce RTX 5090": "RTX5090",
    "NVIDIA RTX 6000 Ada Generation": "RTX6000ADA",
    "NVIDIA RTX 4000 Ada Generation": "RTX4000ADA",
    "NVIDIA GH200 480GB": "GH200",
    "NVIDIA B200": "B200",
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_every_spelling_finds_the_model(catalog: Catalog, spelling: str) -> None:
    assert normalise_gpu_name(spelling) == SPELLINGS[spelling]
    assert catalog.gpu(spelling).name == SPELLINGS[spelling]


def _load(accelerators: str, *, on_cluster: bool = False) -> object:
    known = {g.name for g in Catalog.builtin().gpus}
    text = f"resources:\n  accelerators: {accelerators}\nrun: echo hi\n"
    return parse_spec(text, known_gpus=known, on_cluster=on_cluster)


@pytest.mark.parametrize(
    ("accelerators", "why"),
    [
        ("MI300X:8", "AMD GPUs are planned"),
        ("MI325X:8", "AMD GPUs are planned"),
        ("tpu-v5e-8", "TPUs are not GPUs"),
        ("tpu-v2-8:1", "TPUs are not GPUs"),
        ("Inferentia:6", "Neuron SDK"),
        ("Trainium:16", "Neuron SDK"),
        ("Gaudi:8", "Gaudi"),
    ],
)
def test_other_accelerators_are_refused_with_the_reason(accelerators: str, why: str) -> None:
    # on a named cluster too: the reason is what XyClaw drives, not what the catalog lists
    for on_cluster in (False, True):
        with pytest.raises(XyclawError) as caught:
            _load(accelerators, on_cluster=on_cluster)
        text = str(caught.value)
        assert why in text
        assert "job spec:2:" in text and "NVIDIA GPU" in text  # the line, and what to do


def test_refusal_reasons_are_worded_in_chinese_too() -> None:
    with pytest.raises(XyclawError) as caught:
        _load("MI300X:8")
    assert "AMD GPU 已在计划中" in worded(caught.value.said, "zh")


def test_nvidia_names_are_not_refused() -> None:
    for name in ("H100", "A100-80GB", "RTX4090", "L4", "T4", "GeForce RTX 4090"):
        assert refused_accelerator(name) is None


def test_a_gpu_the_catalog_lacks_runs_on_a_cluster_with_a_note(catalog: Catalog) -> None:
    with pytest.raises(XyclawError, match="not a GPU model XyClaw knows") as caught:
        _load("RTX2080Ti:2")
    assert "--cluster" in str(caught.value)
    loaded = _load("RTX2080Ti:2", on_cluster=True)
    assert loaded.spec.resources.gpu == "RTX2080TI"  # type: ignore[attr-defined]
    notes = [str(w) for w in loaded.warnings]  # type: ignore[attr-defined]
    assert any("estimates are missing" in n for n in notes)
    # a cluster named in the file itself counts too
    text = "resources:\n  accelerators: RTX2080Ti:2\n  cluster: lab\nrun: echo hi\n"
    named = parse_spec(text, known_gpus={g.name for g in catalog.gpus})
    assert any("estimates are missing" in str(w) for w in named.warnings)
