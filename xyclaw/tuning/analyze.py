"""Reading an nccl-tests log that was run elsewhere, and judging it.

The log says most of what is needed (ranks, hosts, GPU model, the NICs NCCL
used when ``NCCL_DEBUG=INFO`` was on); what it cannot say (the fabric, a
node count hidden by identical container hostnames) comes from the caller.
Several runs of the same test in one log count as repeats (for jitter).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xyclaw.catalog import Catalog, parse_fabric
from xyclaw.errors import UsageError
from xyclaw.parsers.nccltests import (
    NcclTestRun,
    bus_factor,
    parse_nccl_tests_all,
    parse_nccl_tests_json,
    rows_table,
)
from xyclaw.tuning.expect import Expectation, expect, gpu_model
from xyclaw.tuning.verdict import Verdict, judge
from xyclaw.wording import Said, said, said_of


@dataclass(frozen=True)
class LogAnalysis:
    runs: tuple[NcclTestRun, ...]
    nodes: int | None
    gpus_per_node: int | None
    gpu: str | None
    fabric: str | None
    nics: int | None
    expectation: Expectation | None
    verdict: Verdict
    notes: tuple[str, ...] = ()
    #: The notes worded (issue 35): a view shows them in its language; ``notes`` is English.
    notes_said: tuple[Said | str, ...] = field(default=(), compare=False)

    @property
    def run(self) -> NcclTestRun:
        return self.runs[0]

    def to_json(self) -> dict[str, Any]:
        run = self.run
        return {
            "collective": run.collective,
            "runs": len(self.runs),
            "ranks": run.n_ranks,
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
            "gpu": self.gpu,
            "fabric": self.fabric,
            "nics_per_node": self.nics,
            "nccl_version": run.nccl_version,
            "nccl_tests_version": run.version,
            "transport": run.net.transport,
            "socket_fallback": run.net.socket_fallback,
            "gdr": run.net.gdr,
            "net_devices": [f"{d.name}:{d.port}/{d.link}" for d in run.net.devices],
            "rows": rows_table(run.rows),
            "peak_busbw_gbs": run.peak_busbw,
            "avg_busbw_gbs": run.avg_busbw,
            "avg_busbw_recomputed_gbs": _round(run.recomputed_avg_busbw),
            "out_of_bounds": run.out_of_bounds,
            "out_of_bounds_ok": run.out_of_bounds_ok,
            "truncated": run.truncated,
            "verdict": self.verdict.to_json(),
            "notes": list(self.notes),
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _parse(text: str) -> list[NcclTestRun]:
    if text.lstrip().startswith("{"):
        return [parse_nccl_tests_json(text)]
    return parse_nccl_tests_all(text)


def _check_busbw(run: NcclTestRun, notes: list[Said | str]) -> None:
    """busbw = algbw x 2(n-1)/n for all-reduce; a log that disagrees was edited or mislabeled."""
    n = run.n_ranks
    if not run.collective or not n or n < 2:
        return
    factor = bus_factor(n, run.collective)
    off = [
        r.size
        for r in run.rows
        if r.in_algbw >= 0.1 and abs(r.in_algbw * factor - r.in_busbw) > 0.02 * r.in_busbw + 0.02
    ]
    if off:
        notes.append(
            said(
                "op.note.busbw_off",
                count=len(off),
                factor=f"{factor:.3f}",
                collective=run.collective,
                n=n,
                size=off[0],
            )
        )


def analyze_log(
    text: str,
    *,
    nodes: int | None = None,
    gpus_per_node: int | None = None,
    fabric: str | None = None,
    gpu: str | None = None,
    nics: int | None = None,
    catalog: Catalog | None = None,
) -> LogAnalysis:
    """Rows, peak and average bus bandwidth, transport and verdict of a log.

    Raises ParseError for text that is not nccl-tests output, UsageError for bad options.
    """
    for name, value in (("--nodes", nodes), ("--gpus-per-node", gpus_per_node), ("--nics", nics)):
        if value is not None and value < 1:
            raise UsageError(said("error.tune.at_least_one", name=name, value=value))
    if fabric is not None:
        try:
            fabric = parse_fabric(fabric).name
        except ValueError as exc:
            raise UsageError(said_of(exc), hint=said("error.tune.fabric_hint")) from exc
    runs = _parse(text)
    first = runs[0]
    same = [
        r
        for r in runs
        if r.rows and r.collective == first.collective and r.n_ranks == first.n_ranks
    ]
    runs_used = same or [first]
    notes: list[Said | str] = []
    if len(runs) > len(runs_used):
        notes.append(said("op.note.other_tests", count=len(runs) - len(runs_used)))
    ranks = first.n_ranks
    log_nodes = first.n_nodes
    n_nodes = nodes or log_nodes
    if nodes and log_nodes and nodes != log_nodes:
        notes.append(said("op.note.nodes_differ", log_nodes=log_nodes, nodes=nodes))
    per_node = gpus_per_node
    if per_node is None and ranks and n_nodes:
        per_node = max(1, ranks // n_nodes)
    if n_nodes is None and ranks and per_node:
        n_nodes = max(1, ranks // per_node)
    device_name = first.ranks[0].name if first.ranks else None
    model = gpu_model(gpu or device_name, catalog)
    used_nics = {d.name for d in first.net.devices if d.link in ("IB", "RoCE")}
    nic_count = nics or (len(used_nics) if used_nics else None)
    expectation = None
    if n_nodes is not None and per_node is not None:
        if n_nodes > 1 and fabric is None:
            notes.append(said("op.note.pass_fabric"))
        else:
            expectation = expect(
                nodes=n_nodes, gpus_per_node=per_node, gpu=model, fabric=fabric, nic_count=nic_count
            )
            if expectation is None and n_nodes == 1:
                notes.append(said("op.note.unknown_gpu"))
    else:
        notes.append(said("op.note.nodes_unknown"))
    rdma_expected = None
    if fabric is not None:
        rdma_expected = parse_fabric(fabric).rdma
    elif first.net.transport in ("ib", "roce"):
        rdma_expected = True
    for r in runs_used:
        _check_busbw(r, notes)
    if first.avg_busbw is not None and first.rows:
        recomputed = first.recomputed_avg_busbw or 0.0
        if abs(recomputed - first.avg_busbw) > max(0.01, 0.005 * first.avg_busbw):
            notes.append(
                said(
                    "op.note.footer_differs",
                    footer=f"{first.avg_busbw:g}",
                    rows=f"{recomputed:.3f}",
                )
            )
    verdict = judge(runs_used, expectation, rdma_expected=rdma_expected, nodes=n_nodes)
    return LogAnalysis(
        runs=tuple(runs_used),
        nodes=n_nodes,
        gpus_per_node=per_node,
        gpu=model.name if model else device_name,
        fabric=fabric,
        nics=nic_count,
        expectation=expectation,
        verdict=verdict,
        notes=tuple(str(note) for note in notes),
        notes_said=tuple(notes),
    )
