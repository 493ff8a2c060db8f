"""The progress reader on the line shapes that trainers print (checked in the frameworks'
sources, docs/jobs.md "Progress lines"), on the real logs in ../shared/fixtures/real, the
ETA after warm-up, and time linear in a line's length."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from xyclaw.parsers.joblog import (
    MAX_SEGMENT_CHARS,
    CheckpointEvent,
    EtaEstimator,
    EvalEvent,
    JobLogParser,
    NcclTimeoutEvent,
    ProgressEvent,
    TrainEndEvent,
    parse_job_events,
    parse_job_line,
    parse_job_log,
    split_prefix,
    strip_ansi,
)


def progress(line: str) -> ProgressEvent:
    ev = parse_job_line(line)
    assert isinstance(ev, ProgressEvent), (line, ev)
    return ev


# --- Hugging Face Trainer ------------------------------------------------------------------


def test_hf_trainer_dict_transformers_5_quotes_values() -> None:
    ev = progress(
        "{'loss': '1.497', 'grad_norm': '1.273', 'learning_rate': '1e-06', 'epoch': '0.01'}"
    )
    assert (ev.loss, ev.grad_norm, ev.learning_rate, ev.epoch) == (1.497, 1.273, 1e-06, 0.01)
    assert ev.source == "hf" and ev.step is None


def test_hf_trainer_dict_older_unquoted_and_tensor_values() -> None:
    ev = progress("{'loss': 2.9859, 'grad_norm': tensor(0.97, device='cuda:0'), 'epoch': 0.16}")
    assert (ev.loss, ev.grad_norm, ev.epoch) == (2.9859, 0.97, 0.16)
    ev = progress("{'loss': 'nan', 'learning_rate': '2e-05', 'epoch': '1.5'}")
    assert ev.loss is not None and ev.loss != ev.loss  # NaN is kept: a diverged run
    assert ev.learning_rate == 2e-05


def test_hf_trainer_eval_and_summary_quoted() -> None:
    ev = parse_job_line("{'eval_loss': '1.3902', 'eval_runtime': '21.4', 'epoch': '0.2'}")
    assert isinstance(ev, EvalEvent) and (ev.loss, ev.epoch) == (1.3902, 0.2)
    end = parse_job_line(
        "{'train_runtime': '1512.33', 'train_samples_per_second': '34.39', "
        "'train_steps_per_second': '0.661', 'train_loss': '1.5533', 'epoch': '1.0'}"
    )
    assert isinstance(end, TrainEndEvent)
    assert (end.runtime_s, end.samples_per_s, end.loss) == (1512.33, 34.39, 1.5533)


def test_dicts_that_are_not_trainer_logs() -> None:
    for line in (
        "WORLD INFO DICT: {'vm-07-05': [0, 1, 2, 3], 'vm-07-14': [0, 1, 2, 3]}",
        "{'train_batch_size': 8, 'loss_scale': 0, 'fp16': {'enabled': True}}",
        "config = {'lr': 0.001}",
    ):
        assert parse_job_line(line) is None, line


# --- tqdm and Lightning ---------------------------------------------------------------------


def test_tqdm_bar_it_per_s() -> None:
    ev = progress("  6%|▌         | 73/1300 [00:48<13:26,  1.52it/s]")
    assert (ev.step, ev.total_steps, ev.elapsed_s, ev.remaining_s) == (73, 1300, 48, 806)
    assert ev.iteration_time_s == pytest.approx(1 / 1.52) and ev.source == "tqdm"


def test_tqdm_bar_s_per_it_hours_and_question_marks() -> None:
    ev = progress("100%|█████████| 800/800 [1:33:26<00:00,  7.01s/it]")
    assert (ev.step, ev.elapsed_s, ev.iteration_time_s) == (800, 5606, 7.01)
    ev = progress("  0%|          | 0/1300 [00:00<?, ?it/s]")
    assert (ev.step, ev.total_steps, ev.iteration_time_s, ev.remaining_s) == (0, 1300, None, None)
    ev = progress("73it [00:48,  1.52it/s]")  # no total known
    assert (ev.step, ev.total_steps) == (73, None)


def test_tqdm_redraws_split_on_carriage_returns() -> None:
    bars = "".join(
        f"\r{p:3d}%|{'█' * (p // 10):<10}| {p * 13}/1300 [00:{p:02d}<01:00,  1.50it/s]"
        for p in range(1, 40)
    )
    events = parse_job_events(bars + "\n")
    assert [(e.step, e.total_steps) for e in events if isinstance(e, ProgressEvent)] == [
        (39 * 13, 1300)
    ]
    # the Trainer's dict written between two drawings is kept, after the newest drawing
    mixed = (
        "\r 10%|█         | 100/1000 [02:31<22:40,  1.51s/it]\r                    "
        "\r{'loss': '1.9821', 'learning_rate': '1.9e-05', 'epoch': '0.1'}"
    )
    kinds = [(e.source, e.step) for e in parse_job_events(mixed) if isinstance(e, ProgressEvent)]
    assert kinds == [("tqdm", 100), ("hf", None)]


@pytest.mark.parametrize(
    "line",
    [
        "Map: 100%|██████████| 52002/52002 [00:05<00:00, 9000.12 examples/s]",
        "Loading checkpoint shards: 100%|██████████| 4/4 [00:10<00:00,  2.50s/it]",
        "Validation DataLoader 0:  50%|█████     | 5/10 [00:00<00:00, 20.00it/s]",
        "Downloading data: 100%|██████████| 1.2G/1.2G [00:30<00:00, 40.0MB/s]",
        "Running tokenizer on dataset:  12%|█▏        | 6000/52002 [00:01<00:09, 5000.00 ba/s]",
    ],
)
def test_bars_of_other_work_are_not_progress(line: str) -> None:
    assert parse_job_line(line) is None


def test_lightning_bar_with_metrics() -> None:
    ev = progress(
        "Epoch 3:  45%|████▌     | 450/1000 [02:15<02:45,  3.33it/s, v_num=0, train_loss=0.123]"
    )
    assert ev.source == "lightning" and (ev.step, ev.total_steps) == (450, 1000)
    assert ev.epoch == pytest.approx(3.45) and ev.loss == 0.123
    assert ev.iteration_time_s == pytest.approx(1 / 3.33)
    ev = progress(
        "Epoch 0:   2%|▏         | 20/1000 [00:05<04:05,  4.00it/s, v_num=1, "
        "train_loss_step=2.34e+00, train_loss_epoch=nan, lr=1e-4]"
    )
    assert (ev.loss, ev.learning_rate, ev.epoch) == (2.34, 1e-4, 0.02)


# --- DeepSpeed, Megatron, torchtitan ------------------------------------------------------


def test_deepspeed_step_and_timer_lines() -> None:
    ev = progress(
        "[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, "
        "skipped=0, lr=[0.0001, 0.0001], mom=[(0.9, 0.95), (0.9, 0.95)]"
    )
    assert (ev.step, ev.learning_rate, ev.rank, ev.source) == (10, 0.0001, 0, "deepspeed")
    ev = progress(
        "[2024-05-01 10:00:01,000] [INFO] [timer.py:260:stop] epoch=0/micro_step=20/"
        "global_step=20, RunningAvgSamplesPerSec=95.2, CurrSamplesPerSec=96.1, "
        "MemAllocated=13.1GB, MaxMemAllocated=20.5GB"
    )
    assert (ev.step, ev.samples_per_s, ev.epoch) == (20, 96.1, 0)


def test_megatron_iteration_from_the_last_rank() -> None:
    ev = progress(
        "[default15]: [2026-08-22 15:22:22.123456] iteration       10/   50000 | consumed "
        "samples:         5120 | elapsed time per iteration (ms): 1234.5 | learning rate: "
        "3.000E-06 | global batch size:   512 | lm loss: 1.043863E+01 | loss scale: 1.0 | "
        "grad norm: 4.123 | number of skipped iterations:   0 |"
    )
    assert (ev.step, ev.total_steps, ev.loss, ev.learning_rate) == (10, 50000, 10.43863, 3e-06)
    assert ev.rank == 15 and ev.prefix == "default15" and ev.source == "megatron"
    assert ev.iteration_time_s == pytest.approx(1.2345)
    assert ev.samples_per_s == pytest.approx(512 / 1.2345)


TITAN = (
    "[rank0]:[titan] 2025-01-30 20:10:00,123 - root - INFO - \x1b[31mstep: 10  \x1b[32mloss:"
    "  7.1234  \x1b[38;2;180;60;0mgrad_norm:  1.2345  \x1b[33mmemory: 14.67GiB(18.53%)  "
    "\x1b[34mtps: 1,234  \x1b[36mtflops: 56.78  \x1b[35mmfu: 12.34%\x1b[39m"
)


def test_torchtitan_with_colours_and_commas() -> None:
    ev = progress(TITAN)
    assert (ev.step, ev.loss, ev.grad_norm, ev.tokens_per_s) == (10, 7.1234, 1.2345, 1234)
    assert (ev.source, ev.rank, ev.prefix) == ("torchtitan", 0, "rank0")
    # padded single-digit step, no prefix: "step" must not be taken for a host name
    ev = progress("\x1b[31mstep:  1  \x1b[32mloss: 12.2500  \x1b[34mtps: 12,345,678\x1b[39m")
    assert (ev.step, ev.loss, ev.tokens_per_s, ev.prefix) == (1, 12.25, 12345678, None)
    ev = progress("step:  5  loss:  9.8000  memory:  3.10GiB(4.00%)  wps: 8,192  mfu: 3.10%")
    assert ev.tokens_per_s == 8192


# --- the simulated trainer and plain scripts ------------------------------------------------


def _sim_line(step: int, steps: int, loss: float, lr: float, grad: float, tps: float) -> str:
    # the f-string of xyclaw/sim/training.py's trainer, kept in step with it by hand
    return (
        f"step {step}/{steps} | loss {loss:.4f} | lr {lr:.3e} | "
        f"grad_norm {grad:.3f} | tokens/s {tps:.1f} | "
        f"step_time {0.5:.3f}s | mem {20.0:.1f}GiB"
    )


def test_the_simulated_trainers_lines() -> None:
    ev = progress(_sim_line(120, 1000, 2.3456, 1e-4, 0.5, 48211.0))
    assert (ev.step, ev.total_steps, ev.loss, ev.learning_rate) == (120, 1000, 2.3456, 1e-4)
    assert (ev.grad_norm, ev.tokens_per_s, ev.iteration_time_s) == (0.5, 48211.0, 0.5)
    ck = parse_job_line("checkpoint saved: /shared/checkpoints/run/step_000120 (step 120)")
    assert isinstance(ck, CheckpointEvent)
    assert (ck.path, ck.step, ck.completed) == ("/shared/checkpoints/run/step_000120", 120, True)
    end = parse_job_line("training finished: 1000 steps, final loss 2.1000, 95.2s")
    assert isinstance(end, TrainEndEvent) and (end.runtime_s, end.loss) == (95.2, 2.1)


@pytest.mark.parametrize(
    ("line", "step", "extra"),
    [
        ("step=4 loss=9.8804 lr=8.0e-06 tokens_per_sec=48102.5", 4, {"tokens_per_s": 48102.5}),
        ("Step 5 | loss: 9.5121 | 48,000 tok/s | 1488.2 samples/s", 5, {"samples_per_s": 1488.2}),
        (
            "global_step: 77, train_loss: 1.25, epoch 2, step_time 850ms",
            77,
            {"epoch": 2.0, "iteration_time_s": 0.85},
        ),
    ],
)
def test_plain_forms(line: str, step: int, extra: dict[str, float]) -> None:
    ev = progress(line)
    assert ev.step == step and ev.source == "plain"
    for name, value in extra.items():
        assert getattr(ev, name) == pytest.approx(value), name


# --- launcher prefixes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "prefix", "rank"),
    [
        ("[default0]:step 1 loss 2.0", "default0", 0),
        ("[rank3]:step 1 loss 2.0", "rank3", 3),
        ("[trainer12]:step 1 loss 2.0", "trainer12", 12),
        ("[1,5]<stdout>:step 1 loss 2.0", "1,5", 5),
        ("7: step 1 loss 2.0", "7", 7),
        ("node-2:  step 1 loss 2.0", "node-2", None),
        ("node-2: [default9]:[rank9]: step 1 loss 2.0", "node-2", 9),
        ("step 1 loss 2.0", None, None),
    ],
)
def test_rank_prefixes_are_stripped_and_the_rank_kept(
    line: str, prefix: str | None, rank: int | None
) -> None:
    ev = progress(line)
    assert (ev.prefix, ev.rank, ev.step, ev.loss) == (prefix, rank, 1, 2.0)


def test_split_prefix_and_strip_ansi_alone() -> None:
    assert split_prefix("[default3]:[W301 10:12:44] x") == ("default3", 3, "[W301 10:12:44] x")
    assert split_prefix("RuntimeError: CUDA error") == (None, None, "RuntimeError: CUDA error")
    assert strip_ansi("\x1b[1;31mred\x1b[0m \x1b[2K\x1b[Adone") == "red done"


def test_failures_carry_the_prefix_rank() -> None:
    ev = parse_job_line(
        "[default5]:[E301 10:12:44 ProcessGroupNCCL.cpp:616] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=4, NumelOut=4, "
        "Timeout(ms)=600000) ran for 600042 milliseconds before timing out."
    )
    assert isinstance(ev, NcclTimeoutEvent) and (ev.rank, ev.seq_num) == (5, 9)


# --- real logs ------------------------------------------------------------------------------

# name -> (progress events, (first step, last step), sources)
REAL = {
    "train_hf_trainer_esm2_2node_slurm.txt": (10, (18, 80), {"hf", "tqdm"}),
    "train_hf_trainer_deepspeed_final_summary_alpaca.txt": (2, (800, 800), {"hf", "tqdm"}),
    "train_megatron_deepspeed_gpt6.7b_2node_16gpu.log": (14, (0, 5), {"megatron", "deepspeed"}),
    "train_megatron_lm_gpt2_4dp_single_node.txt": (13, (100, 5000), {"megatron"}),
    "train_megatron_tr1_13B_loss_spike.txt": (8, (29020, 29090), {"megatron"}),
}


def test_every_real_training_log(real_fixtures: Path) -> None:
    logs = sorted(p for p in real_fixtures.iterdir() if p.name.startswith("train_"))
    assert logs
    for path in logs:
        events = parse_job_log(path.read_text())
        prog = [e for e in events if isinstance(e, ProgressEvent)]
        assert prog, path.name
        assert all(e.loss is None or e.loss > 0 for e in prog), path.name
        if path.name in REAL:
            count, (first, last), sources = REAL[path.name]
            steps = [e.step for e in prog if e.step is not None]
            assert (len(prog), steps[0], max(steps)) == (count, first, last), path.name
            assert {e.source for e in prog} == sources, path.name


def test_real_logs_that_are_not_training_give_no_progress(real_fixtures: Path) -> None:
    others = [p for p in real_fixtures.iterdir() if p.suffix in (".txt", ".log", ".csv")]
    for path in others:
        if path.name.startswith("train_"):
            continue
        events = parse_job_log(path.read_text(errors="replace"))
        assert not [e for e in events if isinstance(e, ProgressEvent)], path.name


def test_real_hf_log_merges_into_one_progress_state(real_fixtures: Path) -> None:
    path = real_fixtures / "train_hf_trainer_esm2_2node_slurm.txt"
    if not path.is_file():
        pytest.skip("fixture absent")
    parser = JobLogParser(eta=EtaEstimator(warmup_steps=10, warmup_s=60, min_intervals=2))
    for line in path.read_text().splitlines():
        ev = parse_job_line(line)
        t = ev.elapsed_s if isinstance(ev, ProgressEvent) and ev.elapsed_s else None
        parser.feed(line, t)
    s = parser.state
    # step and total from the bar, loss, learning rate and epoch from the Trainer's dict
    assert (s.step, s.total_steps, s.loss, s.epoch) == (80, 97, 2.6591, 0.82)
    assert s.learning_rate == pytest.approx(8.762886597938144e-06)
    est = parser.eta.estimate()
    # the bar's clock: 6.39 s a step, 17 steps left
    assert est.reason == "ok" and est.eta_s == pytest.approx(17 * 6.35, rel=0.03)


def test_real_megatron_eta_from_its_own_iteration_times(real_fixtures: Path) -> None:
    path = real_fixtures / "train_megatron_tr1_13B_loss_spike.txt"
    if not path.is_file():
        pytest.skip("fixture absent")
    eta = EtaEstimator(warmup_steps=20, warmup_s=1e9, min_intervals=3)
    t = 0.0
    last_step = None
    times = []
    for ev in parse_job_log(path.read_text()):
        assert isinstance(ev, ProgressEvent) and ev.step is not None and ev.iteration_time_s
        if last_step is not None:
            t += (ev.step - last_step) * ev.iteration_time_s
            times.append(ev.iteration_time_s)
        last_step = ev.step
        eta.feed(ev, t)
    est = eta.estimate()
    assert est.reason == "ok" and est.remaining_steps == 311541 - 29090
    assert est.eta_s == pytest.approx((311541 - 29090) * 22.13, rel=0.01)


# --- ETA after warm-up ----------------------------------------------------------------------


def _run(
    eta: EtaEstimator,
    steps: range,
    step_s: Callable[[int], float],
    total: int,
    t: float = 1_000_000.0,
) -> float:
    """Steps that take ``step_s(step)`` seconds each, from time ``t``; the time after."""
    for step in steps:
        t += step_s(step)
        eta.observe(step, t, total)
    return t


def test_no_eta_during_warm_up_and_the_noisy_first_steps_do_not_count() -> None:
    eta = EtaEstimator(warmup_steps=20, warmup_s=1e9, window=30, min_intervals=3)
    # step 1 compiles for 90 s, steps 2-5 are slow, then 2 s a step
    noisy: Callable[[int], float] = lambda s: 90.0 if s == 1 else 6.0 if s <= 5 else 2.0  # noqa: E731
    t = _run(eta, range(1, 21), noisy, 1000)
    assert eta.estimate().eta_s is None and eta.estimate().reason == "warming up"
    _run(eta, range(21, 25), lambda s: 2.0, 1000, t)
    est = eta.estimate()
    assert est.reason == "ok" and est.steps_per_s == pytest.approx(0.5)
    assert est.eta_s == pytest.approx((1000 - 24) * 2.0)


def test_warm_up_also_ends_after_some_seconds() -> None:
    eta = EtaEstimator(warmup_steps=1000, warmup_s=60, min_intervals=3)
    t = _run(eta, range(1, 8), lambda s: 15.0, 100)  # 15 s a step: warm at step 5
    assert eta.estimate().reason == "warming up"  # 2 intervals since, 3 needed
    t = _run(eta, range(8, 9), lambda s: 15.0, 100, t)
    est = eta.estimate()
    assert est.reason == "ok" and est.steps_per_s == pytest.approx(1 / 15)
    assert eta.estimate(now=t + 30).eta_s == pytest.approx(92 * 15 - 30)  # counts down


def test_a_checkpoint_pause_does_not_move_the_rate() -> None:
    eta = EtaEstimator(warmup_steps=5, warmup_s=1e9, window=20, min_intervals=3)
    _run(eta, range(1, 40), lambda s: 120.0 if s == 30 else 1.0, 1000)
    assert eta.estimate().steps_per_s == pytest.approx(1.0)


def test_a_restart_warms_up_again_and_a_lagging_rank_is_ignored() -> None:
    eta = EtaEstimator(warmup_steps=5, warmup_s=1e9, min_intervals=3)
    t = _run(eta, range(1, 30), lambda s: 1.0, 100)
    assert eta.estimate().reason == "ok"
    eta.observe(27, t + 0.1, 100, rank=3)  # another rank, a little behind: not a restart
    assert eta.estimate().reason == "ok" and eta.restarts == 0
    eta.observe(21, t + 60, 100)  # the same rank goes back: attempt 2 from a checkpoint
    assert eta.restarts == 1 and eta.estimate().reason == "warming up"
    eta.reset()
    assert eta.estimate().reason == "no progress yet"


def test_unknown_total_and_done() -> None:
    eta = EtaEstimator(warmup_steps=2, warmup_s=1e9, min_intervals=2)
    _run(eta, range(1, 10), lambda s: 1.0, 0)
    assert eta.estimate().reason == "total steps unknown" and eta.estimate().steps_per_s == 1.0
    eta.observe(50, 2e6, 50)
    assert eta.estimate().reason == "done" and eta.estimate().eta_s == 0


def test_lightning_epochs_are_not_restarts() -> None:
    parser = JobLogParser(eta=EtaEstimator(warmup_steps=5, warmup_s=1e9, min_intervals=3))
    t = 0.0
    for epoch in range(3):
        for step in range(10, 101, 10):
            t += 5.0
            parser.feed(
                f"Epoch {epoch}:  {step}%|#| {step}/100 [00:01<00:01,  2.00it/s, train_loss=1.0]",
                t,
            )
    assert parser.eta.restarts == 0
    assert parser.eta.estimate().steps_per_s == pytest.approx(2.0)


def test_an_eval_bar_does_not_move_the_progress_state() -> None:
    parser = JobLogParser()
    parser.feed(" 10%|█         | 100/1000 [02:31<22:40,  1.51s/it]", 1.0)
    parser.feed("100%|██████████| 30/30 [00:05<00:00,  5.60it/s]", 2.0)  # evaluation batches
    assert (parser.state.step, parser.state.total_steps) == (100, 1000)
    parser.feed(" 20%|██        | 200/1000 [05:02<20:09,  1.51s/it]", 3.0)
    assert parser.state.step == 200 and parser.state.updated_at == 3.0


# --- linear time ---------------------------------------------------------------------------

JUNK: dict[str, Callable[[int], str]] = {
    "spaces after a key": lambda n: "step" + " " * n + "x",
    "keys": lambda n: "step " * (n // 5),
    "digits": lambda n: "1" * n,
    "comma numbers": lambda n: "1," * (n // 2) + " tok/s",
    "dict openers": lambda n: "{'loss': " * (n // 9),
    "dict items": lambda n: "{" + "'loss': '1', " * (n // 13),
    "bars": lambda n: "1%|" * (n // 3),
    "bar body": lambda n: "1%|" + "█" * n,
    "iterations": lambda n: "iteration 1/ 2 x" * (n // 16),
    "watchdogs": lambda n: "Watchdog caught collective operation timeout: WorkNCCL(" * (n // 55),
    "checkpoint colons": lambda n: "checkpoint saved " + ":" * n,
    "checkpoint slashes": lambda n: "checkpoint saved at " + "a/" * (n // 2),
    "pg ranks": lambda n: "NCCL " + "[PG " * (n // 4),
    "warn peers": lambda n: "NCCL WARN " + "completion from peer " * (n // 21),
    "epochs": lambda n: "Epoch 1: " * (n // 9) + "50%|",
    "escapes": lambda n: "\x1b[" * (n // 2),
    "prefixes": lambda n: "[default0]:" * (n // 11),
    "equals": lambda n: "=" * n + "step",
    "exit codes": lambda n: "exit (exitcode: 1)" * (n // 18),
    "carriage returns": lambda n: "\r" * n + "step 1 loss 2",
    "mixed": lambda n: "step: 1 loss: x tps: 1, it [00:0 %| {'a': " * (n // 40),
}


def _cost(line: str) -> float:
    """CPU seconds one read of ``line`` takes: the best of 5 rounds of enough reads to
    last 5 ms, so that other processes on the machine do not count."""
    runs = 1
    while True:
        start = time.process_time()
        for _ in range(runs):
            parse_job_events(line)
        spent = time.process_time() - start
        if spent >= 0.005 or runs >= 1 << 12:
            break
        runs *= 2
    best = spent
    for _ in range(4):
        start = time.process_time()
        for _ in range(runs):
            parse_job_events(line)
        best = min(best, time.process_time() - start)
    return best / runs


@pytest.mark.parametrize("shape", list(JUNK), ids=lambda s: re.sub(r"\W+", "-", s))
def test_a_ten_times_longer_junk_line_costs_about_ten_times(shape: str) -> None:
    make = JUNK[shape]
    short, long = make(1_500), make(15_000)
    assert len(long) <= MAX_SEGMENT_CHARS + 100  # the reader's own patterns, not the cap
    ratio = _cost(long) / _cost(short)
    assert ratio < 25, f"{shape}: 10x longer took {ratio:.0f}x"


def test_a_huge_line_is_read_in_bounded_time() -> None:
    for make in JUNK.values():
        start = time.perf_counter()
        parse_job_events(make(1_000_000))
        assert time.perf_counter() - start < 2.0
