"""One spelling of a GPU model everywhere: what hosts.toml says matches what a user types."""

from __future__ import annotations

from pathlib import Path

from xyclaw.catalog import normalise_gpu_name
from xyclaw.providers.own_hosts import load_hosts


def test_a_host_written_h100_sxm_matches_gpu_h100_sxm(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts.toml"
    hosts.write_text(
        '[[host]]\nname = "box"\nhost = "10.0.0.5"\ngpu = "H100 SXM"\ngpus = 8\n'
        '[[host]]\nname = "p100box"\nhost = "10.0.0.6"\ngpu = "Tesla P100-PCIE-16GB"\ngpus = 2\n',
        encoding="utf-8",
    )
    loaded = {h.name: h.gpu for h in load_hosts(hosts)}
    assert loaded["box"] == normalise_gpu_name("H100 SXM") == normalise_gpu_name("h100")
    assert loaded["p100box"] == normalise_gpu_name("p100-pcie-16gb")
