"""Simulated GPU nodes behind the fake clouds: real SSH servers on loopback.

A fake Lambda hands each instance an address 127.0.0.N (one port for all, as port
22 would be); a fake AutoDL hands each container a port, as its ssh_command does.
The node trusts exactly the key the cloud was given: for Lambda the registered
SSH key, for AutoDL what the container's start command wrote into
authorized_keys when run in a real bash.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from tests.providers_real.conftest import authorized_keys_from, free_port
from tests.providers_real.fake_autodl import Container
from tests.providers_real.fake_lambda import Instance
from xyclaw.remote.node_access import parse_public_key
from xyclaw.sim.node import SimNode
from xyclaw.sim.nodespec import SimNodeSpec


class SimNodes:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()  # the "port 22" of every Lambda node
        self.nodes: list[SimNode] = []
        self._lock = threading.Lock()

    def _start(
        self, hostname: str, gpu: str, gpus: int, keys: list[str], host: str, port: int
    ) -> SimNode:
        node = SimNode(
            SimNodeSpec(
                hostname=hostname, gpu_model=gpu, gpu_count=gpus, fabric="eth-25", nic_count=0
            ),
            root=self.root / hostname,
            authorized_keys=[parse_public_key(k) for k in keys],
        )
        node.start(host=host, port=port)
        with self._lock:
            self.nodes.append(node)
        return node

    def lambda_node(self, instance: Instance, public_key: str) -> str:
        host = f"127.0.0.{int(instance.id) + 1}"
        gpus = 8 if instance.type_name.startswith("gpu_8x") else 1
        gpu = "H100" if "h100" in instance.type_name else "A10"
        self._start(f"lambda-{instance.id}", gpu, gpus, [public_key], host, self.port)
        return host

    def autodl_node(self, container: Container, cmd: str) -> tuple[str, int]:
        gpu = {"RTX 4090": "RTX4090", "A800": "A800"}[container.gpu_name]
        node = self._start(
            f"autodl-{container.uuid[-6:]}", gpu, container.gpu_num, authorized_keys_from(cmd),
            "127.0.0.1", 0,
        )  # fmt: skip
        return node.address

    def container_node(self, name: str, gpu: str, gpus: int, script: str) -> tuple[str, int]:
        """A Vast.ai instance or RunPod pod: its start script's key is the one it trusts (the
        key is read from the script, not run: the script would start a real sshd)."""
        keys = re.findall(r"printf '%s\\n' '([^']+)' > /root/.ssh/authorized_keys", script)
        node = self._start(name, gpu, gpus, keys, "127.0.0.1", 0)
        return node.address

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
