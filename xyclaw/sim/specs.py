"""Hardware tables for the simulated node: GPU models and network fabrics.

Figures are public board specs (memory, power limit, clocks) and the bus
bandwidths people report (docs/reference-figures.md). The catalog keeps its
own table; the simulator does not depend on it so it can run on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

DRIVER_VERSION = "550.127.08"
CUDA_VERSION = "12.4"
NCCL_VERSION = "2.21.5"
NCCL_TESTS_VERSION = "2.17.8"
KERNEL_RELEASE = "5.15.0-122-generic"


@dataclass(frozen=True)
class GpuModel:
    """One GPU model as nvidia-smi and the physics model see it."""

    key: str
    name: str  # what nvidia-smi prints
    memory_mib: int
    power_limit_w: float
    power_min_w: float
    idle_power_w: float
    sm_clock_max: int
    sm_clock_idle: int
    mem_clock: int
    mem_clock_idle: int
    bf16_tflops: float
    compute_cap: str
    architecture: str
    hbm: bool  # HBM reports a memory temperature; GDDR does not
    has_fan: bool
    ecc: bool
    nvlink: int  # NVLinks between each pair in `topo -m` (0: PCIe only)
    intra_busbw: float  # all_reduce bus bandwidth inside one 8-GPU node, GB/s
    pci_device_id: str
    vbios: str
    consumer: bool = False  # GeForce: P8 when idle, P2 under compute


# fmt: off
GPU_MODELS: dict[str, GpuModel] = {
    m.key: m
    for m in (
        GpuModel("RTX4090", "NVIDIA GeForce RTX 4090", 24564, 450.0, 150.0, 21.0, 2520, 210,
                 10501, 405, 165.0, "8.9", "Ada Lovelace", False, True, False, 0, 11.0,
                 "0x268410DE", "95.02.3C.40.D5", consumer=True),
        GpuModel("A10", "NVIDIA A10", 23028, 150.0, 100.0, 16.0, 1695, 210, 6251, 405, 125.0,
                 "8.6", "Ampere", False, False, True, 0, 18.0, "0x223610DE", "94.02.5C.00.02"),
        GpuModel("L40S", "NVIDIA L40S", 46068, 350.0, 100.0, 34.0, 2520, 210, 9001, 405, 362.0,
                 "8.9", "Ada Lovelace", False, False, True, 0, 21.0, "0x26B910DE",
                 "95.02.66.00.02"),
        GpuModel("A100-40G", "NVIDIA A100-SXM4-40GB", 40960, 400.0, 100.0, 55.0, 1410, 210,
                 1215, 1215, 312.0, "8.0", "Ampere", True, False, True, 12, 230.0,
                 "0x20B010DE", "92.00.45.00.03"),
        GpuModel("A100-80G", "NVIDIA A100-SXM4-80GB", 81920, 400.0, 100.0, 60.0, 1410, 210,
                 1593, 1593, 312.0, "8.0", "Ampere", True, False, True, 12, 230.0,
                 "0x20B210DE", "92.00.45.00.06"),
        GpuModel("A800", "NVIDIA A800-SXM4-80GB", 81920, 400.0, 100.0, 60.0, 1410, 210, 1593,
                 1593, 312.0, "8.0", "Ampere", True, False, True, 8, 155.0, "0x20F310DE",
                 "92.00.99.00.01"),
        GpuModel("H100", "NVIDIA H100 80GB HBM3", 81559, 700.0, 200.0, 70.0, 1980, 345, 2619,
                 2619, 989.0, "9.0", "Hopper", True, False, True, 18, 480.0, "0x233010DE",
                 "96.00.89.00.01"),
        GpuModel("H800", "NVIDIA H800", 81559, 700.0, 200.0, 70.0, 1980, 345, 2619, 2619,
                 989.0, "9.0", "Hopper", True, False, True, 8, 190.0, "0x232410DE",
                 "96.00.51.00.0E"),
        GpuModel("H20", "NVIDIA H20", 97871, 500.0, 200.0, 65.0, 1980, 345, 2619, 2619, 148.0,
                 "9.0", "Hopper", True, False, True, 18, 450.0, "0x232910DE", "96.00.A0.00.02"),
        GpuModel("H200", "NVIDIA H200", 143771, 700.0, 200.0, 75.0, 1980, 345, 3201, 3201,
                 989.0, "9.0", "Hopper", True, False, True, 18, 480.0, "0x233510DE",
                 "96.00.A5.00.03"),
    )
}
# fmt: on

# HBM/GDDR bandwidth of each model, GB/s (public board specs): what LLM decoding is bound by.
MEMORY_BANDWIDTH_GBS: dict[str, float] = {
    "RTX4090": 1008.0,
    "A10": 600.0,
    "L40S": 864.0,
    "A100-40G": 1555.0,
    "A100-80G": 2039.0,
    "A800": 2039.0,
    "H100": 3350.0,
    "H800": 3350.0,
    "H20": 4000.0,
    "H200": 4800.0,
}


@dataclass(frozen=True)
class Fabric:
    """One inter-node network as the RDMA tools and NCCL see it."""

    key: str
    rdma: bool
    link_layer: str  # "InfiniBand" or "Ethernet"
    rate_gbps: int
    sysfs_rate: str
    ca_type: str
    vendor_part_id: int
    fw_ver: str
    board_id: str
    efficiency: float  # share of line rate NCCL reaches when the fabric is used right
    latency_us: float  # small-message all_reduce latency across nodes


# fmt: off
FABRICS: dict[str, Fabric] = {
    f.key: f
    for f in (
        Fabric("ib-hdr-200", True, "InfiniBand", 200, "200 Gb/sec (4X HDR)", "MT4123", 4123,
               "20.39.1002", "MT_0000000223", 0.92, 28.0),
        Fabric("ib-ndr-400", True, "InfiniBand", 400, "400 Gb/sec (4X NDR)", "MT4129", 4129,
               "28.39.1002", "MT_0000000838", 0.92, 24.0),
        Fabric("roce-100", True, "Ethernet", 100, "100 Gb/sec (4X EDR)", "MT4125", 4125,
               "22.39.1002", "MT_0000000359", 0.88, 45.0),
        Fabric("roce-200", True, "Ethernet", 200, "200 Gb/sec (4X HDR)", "MT4129", 4129,
               "28.39.1002", "MT_0000000838", 0.88, 40.0),
        Fabric("eth-25", False, "Ethernet", 25, "", "", 0, "", "", 0.75, 250.0),
    )
}
# fmt: on

# Management Ethernet of every node (bootstrap, SSH, NCCL's socket fallback).
MGMT_RATE_GBPS = 25


@dataclass(frozen=True)
class HostShape:
    """CPU and RAM of a node that carries a given GPU model."""

    cpus: int
    ram_gib: int
    disk_gib: int


def host_shape(gpu: GpuModel, gpu_count: int) -> HostShape:
    """A typical server for this GPU: 16 threads and 128-256 GiB of RAM per GPU."""
    per_gpu_cpus = 12 if gpu.consumer else 16
    per_gpu_ram = 64 if gpu.consumer else 256 if gpu.hbm else 128
    return HostShape(
        cpus=max(8, per_gpu_cpus * gpu_count),
        ram_gib=max(64, per_gpu_ram * gpu_count),
        disk_gib=3840 if gpu.hbm else 1920,
    )
