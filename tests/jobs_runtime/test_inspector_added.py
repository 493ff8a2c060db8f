"""XyClaw adds NCCL's Inspector to the train jobs it launches (issue 34, b34): where a node
has the plugin library, its ranks load it and write their collectives' bus bandwidth where
the telemetry reads it; where a node has none, nothing changes; the spec turns it off."""

from __future__ import annotations

import json
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import TORCHRUN, finished, write_spec
from xyclaw.engine import Engine
from xyclaw.jobs.environment import INSPECTOR_DUMP_DIR, INSPECTOR_LIBRARY
from xyclaw.records.jobs import JobState

SCRIPT = "# sim: model=llama-0.5b seq_len=512 micro_batch=1 steps=12 save_every=100000\n"


def _spec(folder: Path, name: str, env: str = ""):  # type: ignore[no-untyped-def]
    ckpt = f"/shared/ckpt/{name}"
    run = TORCHRUN.format(ckpt=ckpt)
    text = f"name: {name}\nworkdir: work\ncheckpoint_dir: {ckpt}\nrun: {run}\n{env}"
    return write_spec(folder, text, script=SCRIPT)


def _records(root: Path) -> list[dict]:  # type: ignore[type-arg]
    folder = root / INSPECTOR_DUMP_DIR.lstrip("/")
    return [json.loads(line) for f in folder.glob("*.log") for line in f.read_text().splitlines()]


def test_the_inspector_is_loaded_where_the_node_has_the_plugin(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    with_plugin, without = (n.machine.root for n in cluster.nodes)
    library = with_plugin / "usr" / "local" / "lib" / INSPECTOR_LIBRARY
    library.parent.mkdir(parents=True, exist_ok=True)
    library.write_bytes(b"\x7fELF")
    card = [str(s) for s in engine.launch_additions(_spec(tmp_path, "probe"))]
    assert any(s.startswith("XyClaw loads NCCL's Inspector plugin") for s in card)
    job = engine.launch(_spec(tmp_path, "insp"), cluster=cluster.name).result(60)
    assert finished(engine, job.id, timeout=90).state is JobState.SUCCEEDED
    records = _records(with_plugin)
    assert len(records) >= 10  # a record per step's all-reduce, from the node's first rank
    assert {r["coll_perf"]["coll"] for r in records} == {"AllReduce"}
    assert all(r["coll_perf"]["coll_busbw_gbs"] > 0 for r in records)
    assert _records(without) == []  # no plugin there: the job ran as it would have

    off = _spec(tmp_path / "off", "off", env='env:\n  XYCLAW_NCCL_INSPECTOR: "0"\n')
    (with_plugin / INSPECTOR_DUMP_DIR.lstrip("/")).rename(tmp_path / "first-run")
    job = engine.launch(off, cluster=cluster.name).result(60)
    assert finished(engine, job.id, timeout=90).state is JobState.SUCCEEDED
    assert _records(with_plugin) == []
