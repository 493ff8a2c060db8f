"""The launch card names what XyClaw adds to a train job (issue 34, b34): the per-rank step
timer and PyTorch's Flight Recorder, or says each is off when the spec's env turned it off;
the card is worded in the request's language. The same words come from
Engine.launch_additions, which the Jobs page's launch dialog shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import make_engine
from xyclaw.agent.tools import ToolContext, all_tools
from xyclaw.engine import Engine

TRAIN = "name: t\nrun: torchrun --nproc_per_node 8 train.py\n"


@pytest.fixture
def engine() -> Iterator[Engine]:
    built = make_engine()
    yield built
    built.close()


def _card(engine: Engine, spec: Path, language: str = "en") -> dict:  # type: ignore[type-arg]
    tool = all_tools()["launch_job"]
    assert tool.gate is not None
    ctx = ToolContext(engine=engine, conversation_id=1, language=language)
    return tool.gate(ctx, {"spec": str(spec)}).details


def test_the_card_names_the_step_timer_and_the_flight_recorder(
    engine: Engine, tmp_path: Path
) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(TRAIN)
    timer, recorder, inspector = _card(engine, spec)["adds"]
    assert timer.startswith("XyClaw adds a per-rank step timer: a sitecustomize")
    assert inspector.startswith("XyClaw loads NCCL's Inspector plugin where a node has it")
    assert 'XYCLAW_NCCL_INSPECTOR: "0"' in inspector
    assert "every 20 steps" in timer and 'XYCLAW_STEP_TIMES: "0"' in timer
    assert recorder.startswith("XyClaw adds PyTorch's Flight Recorder variables")
    zh_timer, _, zh_inspector = _card(engine, spec, "zh")["adds"]
    assert "Inspector 插件" in zh_inspector
    assert "逐进程步长计时" in zh_timer


def test_the_card_says_when_the_spec_turned_them_off(engine: Engine, tmp_path: Path) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(
        TRAIN + 'env:\n  XYCLAW_STEP_TIMES: "0"\n  XYCLAW_FLIGHT_RECORDER: "off"\n'
        '  XYCLAW_NCCL_INSPECTOR: "no"\n'
    )
    timer, recorder, inspector = _card(engine, spec)["adds"]
    assert timer == 'the per-rank step timer is off (the spec\'s env sets XYCLAW_STEP_TIMES to "0")'
    assert recorder.startswith("PyTorch's Flight Recorder is off") and '"off"' in recorder
    assert inspector.startswith("NCCL's Inspector is off") and '"no"' in inspector
    said = [str(s) for s in engine.launch_additions(str(spec))]
    assert said == [timer, recorder, inspector]


def test_a_service_s_card_adds_nothing(engine: Engine, tmp_path: Path) -> None:
    spec = tmp_path / "svc.yaml"
    spec.write_text("name: s\nkind: service\nrun: vllm serve m\nservice:\n  port: 8000\n")
    assert "adds" not in _card(engine, spec)


def test_the_card_names_the_secrets_it_sends_apart_from_plain_variables(
    engine: Engine, tmp_path: Path
) -> None:
    """Issue 31: a user sees which of their secrets a host would get before saying yes; the
    yes binds the names, secrets apart from variables, so a spec that later asks for one
    more secret needs a new yes."""
    from xyclaw.engine.approvals import Action

    spec = tmp_path / "job.yaml"
    spec.write_text(TRAIN + "env:\n  HF_TOKEN:\n  WANDB_API_KEY:\n  EPOCHS: '3'\n")
    card = _card(engine, spec)
    secrets, variables = card["sends"]
    assert secrets.startswith("Sends these secrets from this machine to every node: ")
    assert "HF_TOKEN, WANDB_API_KEY" in secrets and "EPOCHS" not in secrets
    assert variables == "Sets the spec's own variables: EPOCHS"
    zh_secrets, _ = _card(engine, spec, "zh")["sends"]
    assert zh_secrets.startswith("会把本机的这些密钥发送到每个节点：HF_TOKEN, WANDB_API_KEY")
    tool = all_tools()["launch_job"]
    assert tool.gate is not None
    gate = tool.gate(ToolContext(engine=engine, conversation_id=1), {"spec": str(spec)})
    action = Action.from_json(gate.action)
    assert action.secret_names == ("HF_TOKEN", "WANDB_API_KEY")
    assert action.env_names == ("EPOCHS",)
    assert ("secrets", ["HF_TOKEN", "WANDB_API_KEY"]) in action.rows()
    assert action.to_json()["secret_names"] == ["HF_TOKEN", "WANDB_API_KEY"]


def test_a_job_that_names_no_secret_is_said_to_send_none(engine: Engine, tmp_path: Path) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(TRAIN)
    assert _card(engine, spec)["sends"] == [
        "Sends no secret from this machine (the spec names none)"
    ]
