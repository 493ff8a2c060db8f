"""Alert rules that need a training job: stragglers, power caps, a stalled collective."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from tests.telemetry_live.conftest import FAST_THRESHOLDS, Live, fast_options, wait_until
from xyclaw.remote import StreamHandle
from xyclaw.telemetry.alerts import AlertRaised


def start_training(live: Live, extra: str = "") -> list[StreamHandle]:
    """A two-node torchrun job on the simulated nodes, its log fed to the service."""
    record = live.cluster.record
    master = record.nodes[0].hostname
    access = live.parts.access()
    handles = []
    for rank, node in enumerate(record.nodes):
        live.run(rank, "echo 'print(1)' > /root/train.py")
        command = (
            f"cd /root && torchrun --nnodes 2 --node_rank {rank} --nproc_per_node 8"
            f" --master_addr {master} train.py --model llama-7b --max_steps 1000000 {extra}"
        )

        def feed(line: str) -> None:
            live.service.feed_job_log(live.cluster_id, line, job_id=None)

        access.trust(node)
        handles.append(
            access.pool.stream(access.target(record, node), command, feed, on_stderr_line=feed)
        )
    return handles


def busy(live: Live) -> bool:
    return all(
        float(c.live.series("util", last=1)[1].min()) > 80
        for c in live.service.collectors(live.cluster_id)
    )


def fault_rules(live: Live) -> set[str]:
    """The rules raised so far, but for reachability: a node's stream can pause past the
    1 s test limit on a loaded machine, and that is the reachability tests' business."""
    return {e.rule for e in live.raised() if e.rule != "node.unreachable"}


def wait_busy_then_start(live: Live) -> None:
    """Tell the service the job runs once its GPUs are busy: the model-loading phase
    (4% utilization) lasts longer than the 0.6 s test hold on a loaded machine, and would
    rightly raise 'idle during a job' before the fault under test is injected."""
    wait_until(lambda: busy(live))
    live.service.job_started(live.cluster_id, job_id=None)


def test_straggler_gpu_fires_and_clears(make_live: Callable[..., Live]) -> None:
    live = make_live()
    jobs = start_training(live)
    try:
        wait_busy_then_start(live)
        live.cluster.nodes[1].faults.straggler(gpu=6)
        raised = wait_until(lambda: live.raised("gpu.straggler"))
        assert raised[0].gpu == 6 and raised[0].node == live.cluster.nodes[1].spec.hostname
        live.cluster.nodes[1].faults.clear("straggler")
        wait_until(lambda: live.cleared("gpu.straggler"))
        assert fault_rules(live) == {"gpu.straggler"}
    finally:
        for job in jobs:
            job.cancel()


def test_power_cap_below_default_fires_and_clears(make_live: Callable[..., Live]) -> None:
    live = make_live()
    jobs = start_training(live)
    try:
        wait_busy_then_start(live)
        live.run(0, "nvidia-smi -i 4 -pl 200")
        raised = wait_until(lambda: live.raised("gpu.power_throttle"))
        assert raised[0].gpu == 4 and "200 W" in raised[0].message
        live.run(0, "nvidia-smi -i 4 -pl 400")
        wait_until(lambda: live.cleared("gpu.power_throttle"))
        assert fault_rules(live) == {"gpu.power_throttle"}  # slow, but not also a straggler
    finally:
        for job in jobs:
            job.cancel()


def test_collective_stall_collapses_traffic_then_the_nccl_watchdog_fires(
    make_live: Callable[..., Live],
) -> None:
    thresholds = dataclasses.replace(FAST_THRESHOLDS, nic_baseline_s=1.5)
    live = make_live(options=fast_options(thresholds=thresholds))
    jobs = start_training(live, extra="--ddp_timeout 120")  # a 2.4 s stall at the fast clock
    try:
        wait_busy_then_start(live)
        nic = live.service.collectors(live.cluster_id)[0].live
        wait_until(lambda: nic.nic_window().totals()[-10:].min() > 1e9)  # training traffic
        time.sleep(1.6)  # a baseline of normal traffic
        for node in live.cluster.nodes:  # the next collective hangs on every rank
            node.faults.nccl_watchdog()
        collapse = wait_until(lambda: live.raised("net.traffic_collapse"))
        assert collapse[0].node in {n.spec.hostname for n in live.cluster.nodes}
        assert collapse[0].severity == "error"
        # Eight ranks report the timeout: it joins the stall's alert and makes it critical.
        wait_until(lambda: "job.nccl_timeout" in live.open_rules(), timeout=15)
        (alert,) = live.service.open_alerts(live.cluster_id)
        assert alert.severity == "critical" and "ALLREDUCE" in alert.message
        escalated = wait_until(
            lambda: [e for e in live.published if isinstance(e, AlertRaised) and e.escalated]
        )
        assert [e.event_id for e in escalated] == [alert.event_id]
        for job in jobs:
            job.cancel()
        live.service.job_ended(live.cluster_id, job_id=None)
        cleared = wait_until(lambda: live.cleared("job.nccl_timeout"))
        assert set(cleared[0].rules) == {"net.traffic_collapse", "job.nccl_timeout"}
        assert len(live.raised()) == 1  # a stalled collective: one alert, however it shows
    finally:
        for job in jobs:
            job.cancel()


def test_a_job_that_ended_before_the_runner_noticed_is_idle_gpus_not_a_stalled_network(
    make_live: Callable[..., Live],
) -> None:
    """Issue 34's healthy runs: the job's processes exit, and the runner tells telemetry a
    moment later (seconds on a loaded machine). Traffic and GPUs go quiet together: that is
    no stalled collective (the test above: the GPUs spin, the traffic collapses), and only
    the idle-GPU rule may speak, as it does for a job whose processes are gone for good."""
    live = make_live()
    jobs = start_training(live)
    try:
        wait_busy_then_start(live)
        nic = live.service.collectors(live.cluster_id)[0].live
        wait_until(lambda: nic.nic_window().totals()[-10:].min() > 1e9)  # training traffic
        time.sleep(1.6)  # a baseline of normal traffic, as in the stall test
        for job in jobs:  # the job ends on the nodes; the service still counts it running
            job.cancel()
        wait_until(lambda: live.raised("gpu.idle_during_job"), timeout=15)
        time.sleep(1.0)  # the collapse's window and hold, twice over
        assert not live.raised("net.traffic_collapse")
        assert fault_rules(live) == {"gpu.idle_during_job"}
    finally:
        for job in jobs:
            job.cancel()
