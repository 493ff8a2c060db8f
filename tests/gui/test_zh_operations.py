"""Operations in a Chinese window: a real rent on the simulated cloud, followed by the
operations panel (its rows, titles and each node's steps), the status bar and the Clusters
page's node details (the bootstrap results), with no English left while it runs and after;
switched back to English, the same rows read in English. A rent that fails shows its error
in Chinese in the panel and on the cluster. The CLI's progress is printed in its language."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import httpx
import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.support.zh_words import WORD, assert_no_english, catalogue_words, english_words
from xyclaw.catalog import Offer
from xyclaw.cli.progress import follow
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import ProvisionError, UpRequest
from xyclaw.events import OperationProgress
from xyclaw.gui import i18n
from xyclaw.gui.clusters_page import BOOT_STEPS, ClustersPage, key_fingerprint, ssh_config_block
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.operations_panel import OperationView
from xyclaw.paths import AppPaths
from xyclaw.records import ClusterRecord
from xyclaw.wording import worded

pytestmark = pytest.mark.gui
CJK = re.compile(r"[\u4e00-\u9fff]")
SHOTS = os.environ.get("XYCLAW_SHOTS")  # a folder: the Chinese panel is saved there too


def two_node_offer(engine: Engine) -> Offer:
    """An InfiniBand offer of 8-GPU nodes: a 2-node cluster checks its fabric's ports."""
    return next(
        o
        for o in engine.offers()
        if o.gpus_per_node == 8 and o.fabric.startswith("ib-") and not o.price_assumed
    )


def data_of(engine: Engine, offer: Offer, *records: ClusterRecord) -> set[str]:
    """What is shown as it is in every language: names, the provider, places, GPU models."""
    # RDMA: the technical term, as InfiniBand, in Chinese text too
    out = catalogue_words() | {"sim", "local", "RDMA", offer.gpu, offer.region, offer.fabric}
    out |= set(WORD.findall(offer.fabric)) | set(WORD.findall(offer.region))
    for record in records:
        for text in (record.name, record.image or "", record.fabric, record.region or ""):
            out |= set(WORD.findall(text))
        for node in record.nodes:
            out |= set(WORD.findall(node.name))
    return out


def view_of(ctl: MainWindowController, prefix: str) -> OperationView | None:
    return next((v for v in ctl.operations.views.values() if v.title.startswith(prefix)), None)


def row_texts(ctl: MainWindowController, view: OperationView) -> list[str]:
    """The operation's row and its nodes' rows as the panel shows them."""
    item = ctl.operations._items[view.id]
    rows = [item.text(0), item.text(2)]
    for i in range(item.childCount()):
        rows += [item.child(i).text(1), item.child(i).text(2)]
    return rows


def clusters_page(ctl: MainWindowController) -> ClustersPage:
    ctl.show_page("clusters")
    page = ctl.page_widgets["clusters"]
    assert isinstance(page, ClustersPage)
    return page


def bootstrap_words(page: ClustersPage, record: ClusterRecord, data: set[str]) -> list[str]:
    """English in the selected node's details, its SSH command, config block and host key
    excepted (commands, a config file's own words, a fingerprint)."""
    node = record.nodes[page.selected_node or 0]
    details = page.node_details.toPlainText()
    block = ssh_config_block(record, node, page.identity)
    command = f"ssh -i {page.identity} -p {node.ssh_port or 22} root@{node.ssh_host}"
    fingerprint = key_fingerprint(node.host_key) or ""
    for text in (block, command, fingerprint):
        details = details.replace(text, " ")
    return english_words(details, data)


def test_a_rent_in_a_chinese_window_shows_no_english_while_it_runs_and_after(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, tmp_path: Path
) -> None:
    offer = two_node_offer(sim_engine)
    quote = sim_engine.quote_request(
        UpRequest("sim", offer.gpu, 16, region=offer.region, gpus_per_node=8)
    )
    ctl = make_window(sim_engine)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        qtbot.waitUntil(lambda: ctl.status.operations.text() == "操作", timeout=5000)
        bar = ctl.window.statusBar()  # the start's message, worded again (its path is data)
        assert bar.currentMessage().startswith("数据："), bar.currentMessage()
        data = data_of(sim_engine, offer)
        handle = sim_engine.up(quote)
        ctl.operations.track(handle)

        # While it runs: a row with its nodes' steps, all in Chinese.
        def running_with_steps() -> bool:
            view = view_of(ctl, "rent")
            return view is not None and not view.finished and bool(view.steps)

        qtbot.waitUntil(running_with_steps, timeout=60000)
        view = view_of(ctl, "rent")
        assert view is not None
        names = set(view.steps)  # the nodes' names, as the provider gave them
        data |= {w for n in names for w in WORD.findall(n)}
        assert_no_english(
            ctl.operations, data, "the operations panel while renting", strict_cells=True
        )
        assert_no_english(ctl.window.statusBar(), data, "the status bar while renting")
        assert "运行中" in ctl.status.operations.text()
        shot = Path(SHOTS or tmp_path) / "zh-operations-panel-renting.png"
        assert ctl.operations_dock.isVisible()
        assert ctl.operations_dock.grab().save(str(shot))

        record = handle.result(180)
        data |= data_of(sim_engine, offer, record)
        qtbot.waitUntil(lambda: view.finished, timeout=10000)
        rows = row_texts(ctl, view)
        assert rows[0] == f"租用 16 x {offer.gpu}（sim）", rows
        assert rows[1].startswith("完成"), rows
        steps = rows[3::2]
        assert steps and all(CJK.search(s) for s in steps), rows  # worded, not "setup ok (...)"
        assert any("设置正常" in s or "条设置命令" in s for s in steps), rows
        assert_no_english(
            ctl.operations, data, "the operations panel after renting", strict_cells=True
        )

        # The Clusters page: each node's bootstrap, step by step, in Chinese.
        page = clusters_page(ctl)
        qtbot.waitUntil(lambda: record.id in page.records, timeout=30000)
        qtbot.waitUntil(lambda: page.node_cell(0, "Bootstrap").startswith("✓"), timeout=30000)
        assert page.node_cell(0, "Bootstrap") == f"✓ 全部 {len(BOOT_STEPS)} 步通过"
        shown = page.records[record.id]
        details = page.node_details.toPlainText()
        for word in ("驱动", "CUDA", "SSH 已连通", "可用", "条设置命令", "个活动的"):
            assert word in details, details
        assert bootstrap_words(page, shown, data) == [], details
        if SHOTS:  # to look at: the node's details as a Chinese user sees them
            assert ctl.window.grab().save(str(Path(SHOTS) / "zh-clusters-node-details.png"))
        assert_no_english(page.nodes, data, "the node table", strict_cells=True)

        # Released, still in Chinese.
        released = sim_engine.down(str(record.id))
        ctl.operations.track(released)
        released.result(120)
        qtbot.waitUntil(lambda: (v := view_of(ctl, "release")) is not None and v.finished)
        release_view = view_of(ctl, "release")
        assert release_view is not None
        assert row_texts(ctl, release_view)[0] == f"释放 {record.name}"
        assert_no_english(ctl.operations, data, "the panel after releasing", strict_cells=True)

        # Back to English: the same rows in English, at run time.
        i18n.install("en")
        qtbot.waitUntil(lambda: row_texts(ctl, view)[0].startswith("rent 16 x"), timeout=5000)
        rows = row_texts(ctl, view)
        assert rows[0] == f"rent 16 x {offer.gpu} from sim"
        assert rows[1].startswith("done")
        assert any(s.endswith(": setup ok (2 setup commands)") for s in rows[3::2]), rows
        assert row_texts(ctl, release_view)[0] == f"release {record.name}"
        qtbot.waitUntil(lambda: "SSH answers" in page.node_details.toPlainText(), timeout=5000)
        english = page.node_details.toPlainText()
        assert "driver: driver ok (driver " in english and "GiB free" in english
        assert "setup: setup ok (2 setup commands)" in english
    finally:
        i18n.install("en")


def _fail_next_nodes(paths: AppPaths, count: int) -> None:
    """The simulated cloud's next cluster has ``count`` nodes that fail (docs/sim-api.md)."""
    from xyclaw.sim.cloud import launcher

    found = launcher.status(paths.data_dir / "sim")
    assert found.endpoint is not None, "the simulated cloud is not running"
    reply = httpx.post(
        f"{found.endpoint.url}/_faults",
        json={"fail_nodes": count},
        headers={"Authorization": f"Bearer {found.endpoint.token}"},
        timeout=10,
    )
    reply.raise_for_status()


def test_a_rent_that_fails_shows_its_error_in_chinese_in_the_panel_and_on_the_cluster(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    offer = two_node_offer(sim_engine)
    quote = sim_engine.quote_request(
        UpRequest("sim", offer.gpu, 16, region=offer.region, gpus_per_node=8)
    )
    _fail_next_nodes(AppPaths.from_environment(), 1)
    ctl = make_window(sim_engine)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        handle = sim_engine.up(quote)
        ctl.operations.track(handle)
        with pytest.raises(ProvisionError) as failed:
            handle.result(180)
        assert failed.value.message.startswith("cluster ")  # English for the log and the CLI
        qtbot.waitUntil(lambda: (v := view_of(ctl, "rent")) is not None and v.finished)
        view = view_of(ctl, "rent")
        assert view is not None and view.state == "failed"
        [record] = sim_engine.clusters(include_released=True)
        assert record.error_said is not None and record.error
        # The provider's own words (its node's failure) are data; everything around is ours.
        data = data_of(sim_engine, offer, record)
        why = record.error_said.figures.get("why")
        data |= set(WORD.findall(str(why or "")))
        row = row_texts(ctl, view)[1]
        assert (
            row.startswith("失败：集群") and "未能启动" in row and "个节点中有 1 个失败" in row
        ), row
        assert_no_english(ctl.operations, data, "a failed rent's row", strict_cells=True)

        page = clusters_page(ctl)
        page.show_released.setChecked(True)
        qtbot.waitUntil(lambda: record.id in page.records, timeout=30000)
        page.table.selectRow(page.row_of(record.id))
        qtbot.waitUntil(lambda: "错误：" in page.info.text(), timeout=10000)
        assert "个节点中有 1 个失败" in page.info.text()
        assert english_words(page.info.text(), data) == [], page.info.text()

        i18n.install("en")
        qtbot.waitUntil(lambda: row_texts(ctl, view)[1].startswith("failed: cluster "))
        qtbot.waitUntil(lambda: "Error: 1 of 2 nodes failed" in page.info.text(), timeout=5000)
    finally:
        i18n.install("en")


def test_the_cli_prints_an_operations_progress_in_its_language(sim_engine: Engine) -> None:
    offer = two_node_offer(sim_engine)
    quote = sim_engine.quote_request(UpRequest("sim", offer.gpu, 8, region=offer.region))
    chinese = io.StringIO()
    record = follow(sim_engine, lambda: sim_engine.up(quote), chinese, language="zh")
    data = data_of(sim_engine, offer, record)
    lines = chinese.getvalue().splitlines()
    assert any("正在向 sim 申请 8 x" in line for line in lines), lines
    assert all(CJK.search(line) for line in lines), lines
    assert english_words(chinese.getvalue(), data) == [], chinese.getvalue()
    english = io.StringIO()
    follow(sim_engine, lambda: sim_engine.down(str(record.id)), english)
    assert f"releasing {record.name}" in english.getvalue()
    assert f"{record.name} released" in english.getvalue()


def test_tuning_in_a_chinese_window_words_its_steps_and_its_decision(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    offer = two_node_offer(sim_engine)
    quote = sim_engine.quote_request(
        UpRequest("sim", offer.gpu, 16, region=offer.region, gpus_per_node=8)
    )
    record = sim_engine.up(quote).result(180)
    ctl = make_window(sim_engine)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        # every step, as the panel words it (the bridge hands it the latest of a quick run)
        messages: list[str] = []
        heard = sim_engine.subscribe(
            OperationProgress,
            lambda e: (
                messages.append(worded(e.said or e.message, "zh"))
                if e.title.startswith("tune")
                else None
            ),
        )
        handle = sim_engine.tune(str(record.id))
        ctl.operations.track(handle)
        result = handle.result(300)
        heard.unsubscribe()
        qtbot.waitUntil(lambda: (v := view_of(ctl, "tune")) is not None and v.finished)
        view = view_of(ctl, "tune")
        assert view is not None and view.state == "succeeded"
        assert row_texts(ctl, view)[0] == f"调优 {record.name}"
        data = data_of(sim_engine, offer, record)
        assert_no_english(ctl.operations, data, "the panel after tuning", strict_cells=True)
        assert result.decision_said is not None
        assert any(m.startswith("预期：每节点 4 x 200 Gb/s") for m in messages), messages
        assert any(m.startswith("已更改 NCCL_IB_TIMEOUT=22：队列对") for m in messages), messages
        assert any(m.startswith("保留") or m.startswith("保持现状") for m in messages), messages
        # the fabric's technical terms and NCCL's own words, as Chinese documentation keeps them
        data |= {"HCA", "NVLink", "GID", "ROCE", "roce", "RoCE", "tests", "all_reduce_perf"}
        data |= {"INFO", "DSCP", "ECN", "PFC", "ECMP", "IPv", "RDMA", "GPUDirect", "mlx", "CPU"}
        data |= {"PIX", "PXB", "PHB", "docker"}  # PCIe distances, a program's name
        for setting in result.recommended.settings:  # NCCL's variables and values, as set
            data |= set(WORD.findall(f"{setting.name} {setting.value}"))
        leftover = {m: english_words(m, data) for m in messages if english_words(m, data)}
        assert not leftover, leftover
    finally:
        i18n.install("en")
