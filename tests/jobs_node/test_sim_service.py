"""An inference service on a simulated node: launched as a job, reached through a port forward.

`vllm serve` (and vLLM's api_server module) started with the job launch
string answer the OpenAI API on the node's port; the openai client talks to
it through PortForward over the node's SSH connection.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import openai
import paramiko
import pytest

from tests.jobs_node.nodes import SimShellNode
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.node_status import NodeProcessState, parse_cancel, parse_launch, parse_status
from xyclaw.remote.forward import PortForward

MODEL = "meta-llama/Llama-2-7b-chat-hf"


def transport_to(node: SimShellNode, key: paramiko.PKey) -> paramiko.Transport:
    host, port = node.node.address
    client = paramiko.SSHClient()
    client.get_host_keys().add(f"[{host}]:{port}", node.node.host_key.get_name(),
                               node.node.host_key)  # fmt: skip
    client.connect(host, port=port, username="root", pkey=key, allow_agent=False,
                   look_for_keys=False, timeout=10)  # fmt: skip
    transport = client.get_transport()
    assert transport is not None
    return transport


def wait_ready(url: str, timeout: float = 20.0) -> float:
    """Poll GET /health as a readiness check does; seconds until it answered 200."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return time.monotonic() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"{url} did not become ready")


@pytest.fixture
def served(
    make_sim_node: Callable[..., SimShellNode], client_key: paramiko.PKey
) -> Iterator[Callable[..., tuple[SimShellNode, PortForward, nc.NodeTask]]]:
    forwards: list[PortForward] = []

    def serve(
        command: str,
        *,
        gpu_model: str = "A800",
        hostname: str = "node-0",
        port: int = 8000,
        time_scale: float = 0.1,
    ) -> tuple[SimShellNode, PortForward, nc.NodeTask]:
        node = make_sim_node(hostname, gpu_model=gpu_model, time_scale=time_scale)
        task = nc.NodeTask("svc", 1, 0)
        launched = parse_launch(node.run(nc.launch(task, command, workdir="~", env={})).out)
        assert launched.started
        forward = PortForward(transport_to(node, client_key), port, host_label=hostname).start()
        forwards.append(forward)
        return node, forward, task

    yield serve
    for forward in forwards:
        forward.close()


def test_vllm_serve_answers_the_openai_api_through_the_forwarded_port(served) -> None:
    node, forward, task = served(f"vllm serve {MODEL} --port 8000 --served-model-name llama")
    wait_ready(forward.url)
    client = openai.OpenAI(base_url=f"{forward.url}/v1", api_key="none", max_retries=0)

    assert [m.id for m in client.models.list().data] == ["llama"]
    ask = [{"role": "user", "content": "Is the cluster up?"}]
    first = client.chat.completions.create(model="llama", messages=ask)
    again = client.chat.completions.create(model="llama", messages=ask)
    text = first.choices[0].message.content
    assert text and text == again.choices[0].message.content  # deterministic
    assert first.object == "chat.completion" and first.choices[0].finish_reason == "stop"
    assert first.usage is not None and first.usage.completion_tokens == len(text.split())
    short = client.chat.completions.create(model="llama", messages=ask, max_tokens=3)
    assert short.choices[0].finish_reason == "length"
    assert short.usage is not None and short.usage.completion_tokens == 3

    stream = client.chat.completions.create(
        model="llama", messages=ask, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == text
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == first.usage.completion_tokens
    with client.chat.completions.stream(model="llama", messages=ask) as events:
        assert events.get_final_completion().choices[0].message.content == text

    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="gpt-4", messages=ask)
    metrics = httpx.get(f"{forward.url}/metrics").text
    assert 'vllm:request_success_total{model_name="llama"} 5.0' in metrics

    # the node's GPU holds the model while it serves; the log has uvicorn's lines
    assert node.node.gpus[0].memory_used_mib > 60000
    log = node.read(task.path(".log")[2:])
    assert "Uvicorn running on http://0.0.0.0:8000" in log
    assert '"POST /v1/chat/completions HTTP/1.1" 200 OK' in log
    # a readiness check on the node itself works too
    ran = node.run("curl -s -o /dev/null -w '%{http_code}' http://localhost:8000/health")
    assert (ran.status, ran.out) == (0, "200")

    outcome = parse_cancel(node.run(nc.cancel(task, grace_s=5)).out)
    assert outcome.signal == "TERM" and outcome.clean
    status = parse_status(node.run(nc.status(task)).out)
    assert status.state is NodeProcessState.EXITED and status.exit_code == 0
    assert "Application shutdown complete." in node.read(task.path(".log")[2:])
    assert node.node.gpus[0].memory_used_mib == 0
    with pytest.raises(openai.APIConnectionError):
        client.models.list()
    assert node.run("curl -sf http://127.0.0.1:8000/health").status == 7


def test_api_server_module_and_token_speed_follow_the_gpu(served) -> None:
    command = (
        f"python -m vllm.entrypoints.openai.api_server --model {MODEL} --port 9000 "
        "--tensor-parallel-size 1"
    )
    fast_node, fast, _ = served(command, gpu_model="H100", hostname="h100", port=9000)
    _, slow, _ = served(command, gpu_model="A10", hostname="a10", port=9000)

    def stream_seconds(url: str) -> tuple[float, str]:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="none", max_retries=0)
        first_token = None
        text = ""
        for chunk in client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "count"}], stream=True
        ):
            if chunk.choices and chunk.choices[0].delta.content:
                first_token = first_token or time.monotonic()
                text += chunk.choices[0].delta.content
        assert first_token is not None
        return time.monotonic() - first_token, text

    wait_ready(fast.url)
    wait_ready(slow.url)
    fast_s, fast_text = stream_seconds(fast.url)
    slow_s, slow_text = stream_seconds(slow.url)
    assert fast_text == slow_text  # same request, same words, on any GPU
    # decoding is memory bound: 3350 GB/s (H100) against 600 GB/s (A10)
    assert slow_s > 2.0 * fast_s
    assert "vLLM API server version" in fast_node.read(".xyclaw/jobs/svc/1/rank0.log")


def test_a_model_too_big_for_the_gpu_fails_the_job(served) -> None:
    node, _, task = served(
        "vllm serve meta-llama/Llama-2-70b-hf", gpu_model="L40S", time_scale=0.01
    )
    deadline = time.monotonic() + 20
    while not parse_status(node.run(nc.status(task)).out).finished:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    status = parse_status(node.run(nc.status(task)).out)
    assert status.exit_code == 1
    assert "No available memory for the cache blocks" in node.run(nc.tail_log(task, 3)).out
