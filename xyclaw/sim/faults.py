"""Faults on demand for a simulated node, with the effects a user of a real node would see."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from xyclaw.errors import UsageError
from xyclaw.sim.gpu import Gpu
from xyclaw.sim.kernel import XID_CUDA_ERROR, XID_TEXT, xid_line

if TYPE_CHECKING:
    from xyclaw.sim.link import LinkConditions
    from xyclaw.sim.machine import Machine
    from xyclaw.sim.nodespec import SimNodeSpec


class SimNode(Protocol):
    """What the faults reach of a :class:`~xyclaw.sim.node.SimNode`: its machine, its
    link, going down and coming back up.

    A Protocol, not an import: the node builds its :class:`SimFaults`, and the type-only
    import back of the node's class closed a circle (issue 35)."""

    machine: Machine
    spec: SimNodeSpec
    link: LinkConditions

    @property
    def is_down(self) -> bool: ...

    def _go_down(self) -> None: ...

    def _come_up(self) -> None: ...

    def _release_parked(self) -> None: ...


FAULT_KINDS = (
    "node_down",
    "hang",
    "slow_link",
    "xid",
    "thermal_throttle",
    "ecc",
    "nccl_watchdog",
    "straggler",
    "link_down",
    "slow_nic",
)


class SimFaultError(UsageError, ValueError):
    """A fault was asked for something the node does not have (a GPU index, an Xid code)."""


class SimFaults:
    """The fault API of one node (used by tests and the simulated cloud)."""

    def __init__(self, node: SimNode) -> None:
        self._node = node

    @property
    def _machine(self) -> Machine:
        return self._node.machine

    def _gpu(self, index: int) -> Gpu:
        gpus = self._machine.gpus.gpus
        if not 0 <= index < len(gpus):
            raise SimFaultError(
                f"simulated node {self._node.spec.hostname} has no GPU {index}",
                hint=f"use a GPU index from 0 to {len(gpus) - 1}",
            )
        return gpus[index]

    # -- the node as a whole -------------------------------------------------------------------

    def node_down(self) -> None:
        """The machine dies: its sshd stops (connections drop, new ones are refused)."""
        self._node._go_down()

    def node_up(self) -> None:
        """The machine boots again on the same address; processes and GPU faults are gone."""
        self._node._come_up()

    def hang(self) -> None:
        """The machine stops answering: TCP connects, but nothing comes back."""
        self._node.link.set_hung(True)

    def slow_link(self, delay_s: float, loss: float = 0.0) -> None:
        """Replies from the node arrive `delay_s` later; `loss` is the share of lost segments."""
        if delay_s < 0 or not 0.0 <= loss < 1.0:
            raise SimFaultError(
                f"slow_link({delay_s}, loss={loss}) is out of range",
                hint="use delay_s >= 0 and 0 <= loss < 1",
            )
        self._node.link.set_slow(delay_s, loss)

    def slow_nic(self, nic: int, factor: float) -> None:
        """One RDMA port carries only ``factor`` of its share of the job's traffic (a link
        that trained down, PFC pauses): its counters grow slower than its siblings'."""
        nics = self._machine.net.nics
        if not 0 <= nic < len(nics) or not 0.0 < factor <= 1.0:
            raise SimFaultError(
                f"slow_nic({nic}, {factor}) is out of range",
                hint=f"use a NIC index below {len(nics)} and 0 < factor <= 1",
            )
        self._machine.net.advance()
        nics[nic].speed = factor

    def pfc_pauses(self, nic: int, factor: float) -> None:
        """The switch pauses one RDMA port (PFC) so that it carries only ``factor`` of its
        share (issue 34): its ``port_xmit_wait`` counter grows while it waits."""
        self.slow_nic(nic, factor)
        self._machine.net.nics[nic].paused = 1.0 - factor

    def flap_link(self, nic: int) -> None:
        """One RDMA port's link goes down and retrains every few seconds (issue 34): its
        ``link_downed`` and ``link_error_recovery`` counters grow and it carries half."""
        self.slow_nic(nic, 0.5)
        port = self._machine.net.nics[nic]
        port.flapping = True
        port.link_downed += 1  # it starts by going down
        port.link_error_recovery += 1

    def link_down(self, nic: int) -> None:
        """One RDMA port goes down (NCCL stops using it; ibstat shows it Down)."""
        nics = self._machine.net.nics
        if not 0 <= nic < len(nics):
            raise SimFaultError(
                f"simulated node {self._node.spec.hostname} has no RDMA NIC {nic}",
                hint=f"it has {len(nics)}; use an index below that",
            )
        self._machine.net.advance()
        nics[nic].up = False
        nics[nic].link_downed += 1
        self._machine.kernel.write(
            f"mlx5_core 0000:{0x30 + nic:02x}:00.0 {nics[nic].name}: Port: 1 Link DOWN", "info"
        )

    # -- GPUs ----------------------------------------------------------------------------------

    def xid(self, code: int, gpu: int, kills: bool = True) -> None:
        """The GPU driver reports an Xid: a kernel log line and what it does to the GPU.

        ``kills=False``: the processes on the GPU are not told their CUDA context died (a
        GPU that fell off the bus in the middle of a kernel often leaves its process stuck
        in a CUDA call rather than failed); with ``nccl_watchdog(hung_rank=...)`` that
        rank's peers then wait for it in a collective (issue 34)."""
        if code not in XID_TEXT:
            raise SimFaultError(
                f"Xid {code} is not simulated", hint=f"use one of {sorted(XID_TEXT)}"
            )
        board = self._machine.gpus
        target = self._gpu(gpu)
        kernel = self._machine.kernel
        with board.lock:
            board.advance()
            load = next(iter(target.loads.values()), None)
            pid = load.pid if load is not None else None
            process = load.process_name.rsplit("/", 1)[-1] if load is not None else None
            if code == 79:
                kernel.write(f"NVRM: GPU at PCI:{target.pci_short}: {target.uuid}")
                kernel.write(f"NVRM: GPU Board Serial Number: {target.serial}")
            kernel.write(xid_line(target.pci_short, code, pid, process))
            if code == 48:
                target.ecc_uncorrected_volatile += 1
                target.ecc_uncorrected_aggregate += 1
                target.remap_uncorrectable += 1
                target.remap_pending = True
                kernel.write(xid_line(target.pci_short, 63, pid, process))
            elif code in (94, 95):
                target.ecc_uncorrected_volatile += 1
                target.ecc_uncorrected_aggregate += 1
            elif code == 63:
                target.remap_pending = True
                target.remap_correctable += 1
            elif code == 64:
                target.remap_failure = True
            elif code == 92:
                target.ecc_corrected_volatile += 100
                target.ecc_corrected_aggregate += 100
            if code == 79:
                target.lost = True
                kernel.write(f"NVRM: GPU {target.pci_short}.0: GPU has fallen off the bus.")
        message = XID_CUDA_ERROR.get(code)
        if message is not None and kills:
            board.fail_processes(gpu, message)
        if code == 79:
            with board.lock:
                target.loads.clear()
                target.util = 0.0
                target.power_w = 0.0

    def ecc_uncorrectable(self, gpu: int) -> None:
        """A double-bit ECC error: counters, Xid 48 (and 63, row remap pending), the app dies."""
        self.xid(48, gpu)

    def thermal_throttle(self, gpu: int) -> None:
        """The GPU overheats: temperature climbs, clocks drop, thermal slowdown reasons are set."""
        board = self._machine.gpus
        with board.lock:
            board.advance()
            self._gpu(gpu).thermal_fault = True

    def straggler(self, gpu: int) -> None:
        """The GPU runs slow: lower utilization and power; synchronous jobs wait for it."""
        board = self._machine.gpus
        with board.lock:
            board.advance()
            self._gpu(gpu).straggler = True

    def nccl_watchdog(self, hung_rank: int | None = None, at: int | None = None) -> None:
        """The next collective of a training job never completes; the watchdog aborts it.

        With ``hung_rank`` that global rank never enters the collective: it prints no
        timeout of its own, and its Flight Recorder dump ends one collective earlier than
        its peers'. With ``at``, the job runs on to that collective (the default group's
        sequence number; four per step, the step's last is ``4 * step + 3``) and hangs
        there. Give both alike to every node of the job, as a real hang is the job's."""
        if hung_rank is not None and hung_rank < 0:
            raise SimFaultError(f"rank {hung_rank} is not valid", hint="ranks count from 0")
        if at is not None and (at < 3 or at % 4 != 3):
            raise SimFaultError(
                f"collective {at} is not a step's all_reduce", hint="use 4 * step + 3"
            )
        faults = self._machine.faults
        faults.hung_rank, faults.hung_at = hung_rank, at
        faults.nccl_watchdog = True

    # -- undo ----------------------------------------------------------------------------------

    def clear(self, *kinds: str) -> None:
        """Undo faults (all of them when no kind is named); see FAULT_KINDS."""
        unknown = [k for k in kinds if k not in FAULT_KINDS]
        if unknown:
            raise SimFaultError(
                f"unknown fault kind(s) {', '.join(unknown)}",
                hint=f"use some of {', '.join(FAULT_KINDS)}",
            )
        wanted = set(kinds or FAULT_KINDS)
        machine = self._machine
        board = machine.gpus
        if "hang" in wanted:
            self._node.link.set_hung(False)
            self._node._release_parked()
        if "slow_link" in wanted:
            self._node.link.set_slow(0.0, 0.0)
        with board.lock:
            board.advance()
            for gpu in board.gpus:
                if "thermal_throttle" in wanted:
                    gpu.thermal_fault = False
                if "straggler" in wanted:
                    gpu.straggler = False
                if "xid" in wanted:
                    gpu.lost = False
                    gpu.remap_failure = False
                if "ecc" in wanted or "xid" in wanted:
                    gpu.ecc_uncorrected_volatile = 0
                    gpu.remap_pending = False
        if "nccl_watchdog" in wanted:
            machine.faults.nccl_watchdog = False
            machine.faults.hung_rank = machine.faults.hung_at = None
        if "link_down" in wanted:
            for nic in machine.net.nics:
                nic.up = True
        if "slow_nic" in wanted:  # PFC pauses and a flapping link are slowed NICs too
            machine.net.advance()
            for nic in machine.net.nics:
                nic.speed = 1.0
                nic.paused = 0.0
                nic.flapping = False
        if "node_down" in wanted and self._node.is_down:
            self._node._come_up()

    def active(self) -> list[str]:
        """The faults in effect now, as short descriptions."""
        out: list[str] = []
        node = self._node
        if node.is_down:
            out.append("node_down")
        if node.link.hung:
            out.append("hang")
        if node.link.delay_s or node.link.loss:
            out.append(f"slow_link(delay_s={node.link.delay_s}, loss={node.link.loss})")
        for gpu in self._machine.gpus.gpus:
            if gpu.lost:
                out.append(f"xid79(gpu={gpu.index})")
            if gpu.thermal_fault:
                out.append(f"thermal_throttle(gpu={gpu.index})")
            if gpu.straggler:
                out.append(f"straggler(gpu={gpu.index})")
            if gpu.ecc_uncorrected_volatile:
                out.append(f"ecc(gpu={gpu.index}, uncorrected={gpu.ecc_uncorrected_volatile})")
        if self._machine.faults.nccl_watchdog:
            f = self._machine.faults
            out.append(f"nccl_watchdog(hung_rank={f.hung_rank}, at={f.hung_at})")
        for nic in self._machine.net.nics:
            if not nic.up:
                out.append(f"link_down(nic={nic.index})")
            if nic.flapping:
                out.append(f"flap_link(nic={nic.index})")
            elif nic.paused:
                out.append(f"pfc_pauses(nic={nic.index}, factor={nic.speed})")
            elif nic.speed != 1.0:
                out.append(f"slow_nic(nic={nic.index}, factor={nic.speed})")
        return out
