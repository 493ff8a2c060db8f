"""A cluster rented on a marketplace's community host is marked so on the Clusters page and
in `xyclaw clusters` (issue 31): rented through the real engine from a RunPod server on
loopback, its node a real SSH server; a secure-cloud one is not marked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import MakeWindow, wait_for
from tests.providers_real import app
from tests.providers_real.fake_runpod import FakeRunPod, Pod
from tests.providers_real.fakehttp import FakeServer
from tests.providers_real.nodes import SimNodes
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.gui.clusters_page import ClustersPage

pytestmark = pytest.mark.gui


@pytest.fixture
def runpod_engine(runpod: str) -> Iterator[Engine]:
    """Closed after the windows made on it (it is asked for before ``make_window``)."""
    engine = app.engine("runpod", runpod, 0)
    yield engine
    engine.close()


@pytest.fixture
def runpod(tmp_path: Path) -> Iterator[str]:
    nodes = SimNodes(tmp_path / "nodes")

    def pod_node(pod: Pod, script: str) -> tuple[str, int]:
        return nodes.container_node(f"pod-{pod.id}", "RTX4090", 1, script)

    server = FakeServer(FakeRunPod(boot_s=0.2, on_running=pod_node)).start()
    yield server.url
    server.stop()
    nodes.stop()


def test_a_community_host_is_marked_on_the_clusters_page_and_in_the_cli(
    qtbot: QtBot, runpod_engine: Engine, make_window: MakeWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = runpod_engine
    community = engine.up(engine.quote_request(app.REQUESTS["runpod"])).result(60)
    secure = engine.up(
        engine.quote_request(
            UpRequest(
                provider="runpod",
                gpu="RTX4090",
                gpu_count=1,
                gpus_per_node=1,
                region="secure",
                fabric="none",
            )
        )
    ).result(60)
    assert community.host_community and not secure.host_community
    ctl = make_window(engine)
    ctl.show_page("clusters")
    page = ctl.page_widgets["clusters"]
    assert isinstance(page, ClustersPage)
    wait_for(qtbot, lambda: len(page.records) == 2, timeout=30000)
    assert page.cell(community.id, "Provider") == "runpod · community host"
    assert page.cell(secure.id, "Provider") == "runpod"
    page.select_cluster(community.id)
    first = page.info.text().splitlines()[0]
    assert first.startswith("A community host on runpod (")
    assert "its owner is not runpod and can see what runs there" in first
    page.select_cluster(secure.id)
    assert "community host" not in page.info.text()
    # `xyclaw clusters` from the same history: a line says which cluster is on such a host
    from xyclaw.cli.main import main

    capsys.readouterr()
    assert main(["clusters"]) == 0
    out = capsys.readouterr().out
    assert (
        f"{community.name} runs on a community host on runpod ({community.host}): its owner is"
        " not runpod and can see what runs there"
    ) in out
    assert f"{secure.name} runs on" not in out
    for record in (community, secure):
        engine.down(record.name).result(60)
