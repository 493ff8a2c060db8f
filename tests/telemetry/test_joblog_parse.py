"""Training-log lines -> typed events."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xyclaw.parsers.joblog import (
    CheckpointEvent,
    CudaErrorEvent,
    EvalEvent,
    JobLogParser,
    NcclErrorEvent,
    NcclTimeoutEvent,
    ProcessExitEvent,
    ProgressEvent,
    TrainEndEvent,
    parse_job_line,
    parse_job_log,
)

FIX = Path(__file__).parent / "fixtures"


def _events(name: str) -> list[object]:
    return list(parse_job_log((FIX / name).read_text()))


def test_plain_progress_checkpoint_and_watchdog_timeout() -> None:
    events = _events("train_plain_watchdog.log")
    progress = [e for e in events if isinstance(e, ProgressEvent)]
    assert [p.step for p in progress] == [1, 2, 3, 4, 5]
    assert progress[0].total_steps == 1000 and progress[0].loss == 10.8731
    assert progress[0].learning_rate == 2.0e-06 and progress[0].tokens_per_s == 41022
    assert progress[0].elapsed_s == 4.1
    assert progress[3].grad_norm == 2.314 and progress[3].tokens_per_s == 48102.5
    assert progress[4].tokens_per_s == 48000 and progress[4].samples_per_s == 1488.2
    (ckpt,) = [e for e in events if isinstance(e, CheckpointEvent)]
    assert (ckpt.path, ckpt.step, ckpt.completed) == ("/shared/ckpt/llama13b/step_5", 5, True)
    (timeout,) = [e for e in events if isinstance(e, NcclTimeoutEvent)]
    assert (timeout.rank, timeout.seq_num, timeout.op_type) == (3, 1580, "ALLREDUCE")
    assert (timeout.timeout_ms, timeout.ran_for_ms) == (600000, 600060)
    assert (timeout.numel_in, timeout.numel_out) == (262144, 262144)
    assert timeout.prefix == "rank3"
    (nccl,) = [e for e in events if isinstance(e, NcclErrorEvent)]
    assert nccl.fatal and nccl.rank == 3
    (exit_,) = [e for e in events if isinstance(e, ProcessExitEvent)]
    assert (exit_.exit_code, exit_.pid) == (-6, 51236)


def test_fatal_cuda_and_nccl_lines() -> None:
    events = _events("train_errors_misc.log")
    assert [type(e).__name__ for e in events] == [
        "CudaErrorEvent",
        "NcclErrorEvent",
        "NcclErrorEvent",
        "NcclErrorEvent",
        "CudaErrorEvent",
    ]
    oom, backend, completion, advice, illegal = events
    assert isinstance(oom, CudaErrorEvent) and oom.out_of_memory and oom.rank == 0
    assert isinstance(backend, NcclErrorEvent) and backend.fatal and backend.rank == 1
    assert "unhandled system error" in backend.message
    assert isinstance(completion, NcclErrorEvent) and completion.fatal
    assert isinstance(advice, NcclErrorEvent) and not advice.fatal
    assert isinstance(illegal, CudaErrorEvent) and not illegal.out_of_memory
    assert illegal.message == "an illegal memory access was encountered"


def test_hf_trainer_lines() -> None:
    events = _events("train_hf_trainer.log")
    hf = [e for e in events if isinstance(e, ProgressEvent) and e.source == "hf"]
    assert [(p.loss, p.learning_rate, p.epoch) for p in hf] == [
        (1.9821, 1.9e-05, 0.1),
        (1.4415, 1.8e-05, 0.2),
    ]
    bars = [e for e in events if isinstance(e, ProgressEvent) and e.source == "tqdm"]
    assert [(b.step, b.total_steps, b.elapsed_s) for b in bars] == [
        (100, 1000, 151),
        (200, 1000, 302),
    ]
    assert bars[0].iteration_time_s == 1.51
    (ev,) = [e for e in events if isinstance(e, EvalEvent)]
    assert ev.loss == 1.3902 and ev.epoch == 0.2
    (ck,) = [e for e in events if isinstance(e, CheckpointEvent)]
    assert (ck.path, ck.step, ck.completed) == ("out/llama-7b-alpaca/checkpoint-200", 200, False)
    (end,) = [e for e in events if isinstance(e, TrainEndEvent)]
    assert (end.runtime_s, end.samples_per_s, end.loss) == (1512.33, 34.39, 1.5533)


def test_megatron_lines() -> None:
    events = _events("train_megatron.log")
    it = [e for e in events if isinstance(e, ProgressEvent)]
    assert [(p.step, p.total_steps, p.loss) for p in it] == [
        (10, 2000, 10.32871),
        (20, 2000, 9.118342),
    ]
    assert it[0].samples_per_s == 124.808 and it[0].tokens_per_s == 124.808 * 4096
    assert it[0].iteration_time_s == pytest.approx(4.1023) and it[0].learning_rate == 3.0e-06
    ckpts = [e for e in events if isinstance(e, CheckpointEvent)]
    assert [(c.step, c.completed) for c in ckpts] == [(20, False), (20, True)]
    (val,) = [e for e in events if isinstance(e, EvalEvent)]
    assert (val.step, val.loss, val.perplexity) == (20, 9.001234, 8107.412)


def test_stream_parser_keeps_the_last_progress() -> None:
    parser = JobLogParser()
    parser.feed("step 7 loss 3.5 tokens/s 1000")
    parser.feed("nothing to see")
    assert parser.lines == 2 and parser.events == 1
    assert parser.last_progress is not None and parser.last_progress.step == 7


def test_lines_that_are_not_progress() -> None:
    for line in (
        "Total optimization steps = 97",
        "  checkpoint_activations .......................... False",
        "step size chosen by the scheduler",
        "[WARNING] Unable to find latest file at .//checkpoint/x/latest",
        "",
    ):
        assert parse_job_line(line) is None, line


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_never_raises(line: str) -> None:
    parse_job_line(line)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**7), st.floats(0, 100, allow_nan=False), st.integers(1, 10**6))
def test_plain_form_round_trip(step: int, loss: float, tokens: int) -> None:
    ev = parse_job_line(f"step {step} loss {loss:.4f} tokens/s {tokens}")
    assert isinstance(ev, ProgressEvent)
    assert (ev.step, ev.tokens_per_s) == (step, tokens)
    assert ev.loss == float(f"{loss:.4f}")
