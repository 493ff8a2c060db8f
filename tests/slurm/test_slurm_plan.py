"""Plans that know the queue, against the real two-node Slurm: with a colleague's job
filling the partition, the lab's partition is still an option that says how long it waits,
beside a rented offer that runs now; once the partition is free, it runs now."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from tests.slurm.conftest import OTHER, as_root, as_user
from xyclaw.catalog import Catalog, Offer
from xyclaw.jobs.slurm_jobs import SlurmJobs
from xyclaw.planner import PlanRequest, plan
from xyclaw.planner.report import render, side_by_side
from xyclaw.providers.slurm import SlurmProvider, expected_waits

MakeJobs = Callable[..., SlurmJobs]

LAMBDA_H100 = Offer(
    provider="lambda",
    offer_id="gpu_8x_h100_sxm5",
    region="us-east-1",
    gpu="H100",
    gpus_per_node=8,
    node_counts=(1, 2),
    fabric="ib-ndr-400",
    price_micro=2_990_000,
    currency="USD",
    kind="cluster",
)


def sixteen_gpus() -> PlanRequest:
    return PlanRequest.parse(
        task="finetune-lora", model_size="7B", tokens="1B", gpus="16", currency="USD"
    )


def test_a_full_partition_waits_beside_a_rental_that_runs_now(make_jobs: MakeJobs) -> None:
    jobs = make_jobs(currency="USD", partitions=["gpu"])
    # the colleague holds both nodes for at most 5 minutes
    other = as_user(OTHER, "sbatch", "--parsable", "-N2", "-p", "gpu", "--gres=gpu:8", "-t",
                    "5", "-o", "/dev/null", "--wrap", "sleep 300").strip()  # fmt: skip
    deadline = time.monotonic() + 30
    while "RUNNING" not in as_root("squeue", "-h", "-j", other, "-o", "%T"):
        assert time.monotonic() < deadline, "the colleague's job did not start"
        time.sleep(0.3)

    [offer] = SlurmProvider(jobs.client).offers()
    assert offer.available_gpus == 0 and offer.queued  # what sinfo says: nothing free
    waits = dict(offer.queue_waits)
    assert waits[2] is not None and 0 < waits[2] <= 6 * 60, waits  # behind a 5-min job

    result = plan(sixteen_gpus(), Catalog(Catalog.builtin().gpus, [offer, LAMBDA_H100]))
    lab = next(o for o in result.options if o.provider == "lab")
    rent = next(o for o in result.options if o.provider == "lambda")
    assert lab.gpus == 16 and not lab.runs_now and lab.wait_minutes in range(1, 7)
    assert rent.runs_now
    line = side_by_side(result.options)
    assert line is not None
    assert re.search(r"lab's 16 A800 in about [1-6] min for 0\.00 USD, or lambda's 16 H100"
                     r" now for \d+\.\d\d USD", line), line  # fmt: skip
    shown = "\n".join(render(result))
    assert "starts" in shown and re.search(r"lab/gpu .* ~[1-6] min", shown)
    # `xyclaw slurm queue`'s answer agrees: no GPU free, a wait
    [queue] = expected_waits(jobs.client, 2, 8)
    assert queue.free_gpus == 0 and queue.words.startswith("waits about")
    # and nothing of the colleague's job was shown: no id, user or name in what XyClaw keeps
    assert other not in shown and OTHER not in shown

    as_root("scancel", other)
    deadline = time.monotonic() + 30
    while as_root("squeue", "-h", "-j", other, "-o", "%T").strip():
        assert time.monotonic() < deadline
        time.sleep(0.3)
    [free] = SlurmProvider(jobs.client).offers()
    again = plan(sixteen_gpus(), Catalog(Catalog.builtin().gpus, [free, LAMBDA_H100]))
    lab = next(o for o in again.options if o.provider == "lab")
    assert free.available_gpus == 16 and lab.runs_now
    assert "lab's 16 A800 now for 0.00 USD" in (side_by_side(again.options) or "")
