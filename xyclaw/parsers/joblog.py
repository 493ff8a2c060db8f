"""Typed events from a training job's log: progress, checkpoints, failures; and an ETA.

A job log mixes many writers behind launcher prefixes (torchrun's
``[default3]:``, PyTorch's ``[rank3]:``, srun's ``0: ``, pdsh's ``host: ``,
Open MPI's ``[1,0]<stdout>:``). The reader strips the prefixes (keeping the
rank), ANSI colours and tqdm's ``\\r`` redraws, then looks for the few line
shapes that matter:

- Hugging Face Trainer dicts, quoted (transformers 5: ``{'loss': '1.497',
  ...}``) or not; the eval and end-of-training dicts;
- tqdm bars (``it/s``, ``s/it``, ``?it/s``) and PyTorch Lightning's bar
  (``Epoch 3:  45%|...| 450/1000 [..., train_loss=0.123]``);
- DeepSpeed's ``step=N, skipped=..., lr=[...]`` and ``RunningAvgSamplesPerSec``;
- Megatron-LM's ``iteration N/ M | ... | lm loss: ...`` (printed by the last
  rank) and its validation lines;
- torchtitan's ``step: 10  loss: 7.1234  ...  tps: 1,234`` (colours, commas);
- the plain form of the simulated node's trainer and most custom scripts::

    step 120/1000 | loss 2.3456 | lr 1.000e-04 | tokens/s 48211.0 | step_time 0.500s
    checkpoint saved: /shared/ckpt/run/step_000120 (step 120)

It never raises, whatever the line, and its time is linear in the line's
length: every pattern is anchored at a literal or bounded, and a segment is
read up to :data:`MAX_SEGMENT_CHARS`. :class:`EtaEstimator` turns progress
into an ETA that is shown only after warm-up.
"""

from __future__ import annotations

import logging
import math
import re
import statistics
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import ClassVar

log = logging.getLogger(__name__)

MAX_SEGMENT_CHARS = 16_384  # no progress line is longer; junk past it is not read
MAX_PREFIXES = 3  # "host: [default3]:[rank3]: ..." is the most seen stacked


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    kind: ClassVar[str] = "progress"
    step: int | None
    total_steps: int | None = None
    loss: float | None = None
    learning_rate: float | None = None
    grad_norm: float | None = None
    epoch: float | None = None
    tokens_per_s: float | None = None  # as printed (torchtitan's tps is per GPU)
    samples_per_s: float | None = None
    iteration_time_s: float | None = None
    elapsed_s: float | None = None
    source: str = "plain"  # hf, megatron, deepspeed, tqdm, lightning, torchtitan, plain
    line: str = ""
    prefix: str | None = None
    rank: int | None = None  # from the launcher prefix or a "[Rank N]" in the line
    remaining_s: float | None = None  # the bar's own estimate (tqdm), not XyClaw's ETA


@dataclass(frozen=True, slots=True)
class EvalEvent:
    kind: ClassVar[str] = "eval"
    step: int | None
    loss: float | None
    perplexity: float | None = None
    split: str = "val"
    epoch: float | None = None
    source: str = "plain"
    line: str = ""
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class TrainEndEvent:
    kind: ClassVar[str] = "train_end"
    runtime_s: float | None
    samples_per_s: float | None = None
    steps_per_s: float | None = None
    loss: float | None = None
    epoch: float | None = None
    line: str = ""
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class CheckpointEvent:
    kind: ClassVar[str] = "checkpoint"
    path: str | None
    step: int | None
    completed: bool = True
    line: str = ""
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class NcclTimeoutEvent:
    """PyTorch's ProcessGroupNCCL watchdog gave up on a collective: a rank is
    dead, hung or the network stalled."""

    kind: ClassVar[str] = "nccl_timeout"
    rank: int | None
    seq_num: int | None
    op_type: str | None
    timeout_ms: int | None
    ran_for_ms: int | None
    numel_in: int | None = None
    numel_out: int | None = None
    line: str = ""
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class NcclErrorEvent:
    kind: ClassVar[str] = "nccl_error"
    message: str
    fatal: bool
    rank: int | None = None
    line: str = ""
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class CudaErrorEvent:
    kind: ClassVar[str] = "cuda_error"
    message: str
    out_of_memory: bool = False
    rank: int | None = None
    line: str = ""
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class ProcessExitEvent:
    kind: ClassVar[str] = "process_exit"
    exit_code: int
    pid: int | None = None
    line: str = ""
    prefix: str | None = None


JobEvent = (
    ProgressEvent
    | EvalEvent
    | TrainEndEvent
    | CheckpointEvent
    | NcclTimeoutEvent
    | NcclErrorEvent
    | CudaErrorEvent
    | ProcessExitEvent
)

# Numbers. Patterns that start with a number carry a look-behind so that a
# run of digits is tried once, not from each of its digits (which is
# quadratic on a long run).
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_VALUE = rf"(?:{_NUM}|nan|-?inf)"
_NUMC = rf"(?:\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|{_NUM})"  # also "1,234"
_SEP = r"\s*(?:[:=]\s*)?"  # "step 5", "step: 5", "step=5" (one way to split the spaces)


# --- cleaning a line -----------------------------------------------------------------------

_ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_RANK_PREFIX_RE = re.compile(r"\[([A-Za-z_]{0,32})(\d{1,6})\]:")  # [default3]: [rank3]:
_MPI_PREFIX_RE = re.compile(r"\[(\d{1,6}),(\d{1,6})\]<std(?:out|err)>:")
_SRUN_PREFIX_RE = re.compile(r"(\d{1,6}): ")
_HOST_PREFIX_RE = re.compile(r"([A-Za-z0-9][\w.-]{0,62}): (?=\s|\[)")
# words that look like a "host: " prefix but are the start of a metric line
_NOT_HOSTS = frozenset(
    {
        "step",
        "steps",
        "loss",
        "epoch",
        "iteration",
        "iter",
        "lr",
        "tps",
        "wps",
        "memory",
        "mfu",
        "tflops",
        "grad_norm",
        "time",
        "eta",
        "train",
        "eval",
        "val",
        "test",
        "global_step",
        "batch",
        "progress",
        "error",
        "warning",
        "info",
        "debug",
        "note",
    }
)
_RANK_IN_TEXT_RES = (
    re.compile(r"\[Rank (\d{1,6})\]"),
    re.compile(r"\[rank(\d{1,6})\]"),
    re.compile(r"\[PG [^\]]{0,200}?Rank (\d{1,6})\]"),
)


def strip_ansi(text: str) -> str:
    """The text without terminal colour and cursor codes."""
    return _ANSI_RE.sub("", text) if "\x1b" in text else text


def split_prefix(line: str) -> tuple[str | None, int | None, str]:
    """``(outermost prefix, rank, rest)`` of a line behind launcher prefixes.

    The prefix is kept as written (``default3``, ``rank3``, ``1,0``, ``0``,
    ``vm-07-05``); the rank is the first one the prefixes name.
    """
    prefix: str | None = None
    rank: int | None = None
    body = line
    for _ in range(MAX_PREFIXES):
        found: str | None = None
        found_rank: int | None = None
        if body.startswith("["):
            m = _RANK_PREFIX_RE.match(body)
            if m:
                found, found_rank = m.group(1) + m.group(2), int(m.group(2))
            else:
                m = _MPI_PREFIX_RE.match(body)
                if m:
                    found, found_rank = f"{m.group(1)},{m.group(2)}", int(m.group(2))
        elif body[:1].isdigit():
            m = _SRUN_PREFIX_RE.match(body)
            if m:
                found, found_rank = m.group(1), int(m.group(1))
        else:
            m = _HOST_PREFIX_RE.match(body)
            if m and m.group(1).lower() not in _NOT_HOSTS:
                found = m.group(1)
        if m is None or found is None:
            break
        if prefix is None:
            prefix = found
        if rank is None:
            rank = found_rank
        body = body[m.end() :]
    return prefix, rank, body


def _rank(text: str) -> int | None:
    for rx in _RANK_IN_TEXT_RES:
        m = rx.search(text)
        if m:
            return int(m.group(1))
    return None


def _f(v: str | None) -> float | None:
    if v is None:
        return None
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return None


def _i(v: str | float | None) -> int | None:
    if v is None:
        return None
    try:
        value = float(v.replace(",", "")) if isinstance(v, str) else float(v)
        return int(value) if math.isfinite(value) else None
    except (ValueError, OverflowError):
        return None


def _clock(text: str) -> float | None:
    """``"01:50"`` or ``"1:33:26"`` -> seconds; None for ``?`` or junk."""
    parts = text.split(":")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        return None
    seconds = 0
    for p in parts:
        seconds = seconds * 60 + int(p)
    return float(seconds)


@dataclass(frozen=True, slots=True)
class _Line:
    """One segment of a line, with what is known about where it came from."""

    body: str
    line: str
    prefix: str | None
    rank: int | None


# --- Hugging Face Trainer dict lines --------------------------------------------------------

# 'loss': 1.497  |  'loss': '1.497' (transformers 5)  |  'loss': tensor(1.49, device=...)
_DICT_ITEM_RE = re.compile(
    rf"['\"]([\w./-]{{1,100}})['\"]\s*:\s*(?:tensor\()?['\"]?({_VALUE})(?![\w.])"
)


def _hf_dict(seg: _Line) -> JobEvent | None:
    body = seg.body
    start = body.find("{")
    if start < 0 or ("loss" not in body and "train_runtime" not in body):
        return None
    end = body.rfind("}")
    if end < start:
        return None
    d: dict[str, float | None] = {}
    for key, value in _DICT_ITEM_RE.findall(body, start, end + 1):
        d.setdefault(key, _f(value))
    if "train_runtime" in d:
        return TrainEndEvent(
            runtime_s=d.get("train_runtime"),
            samples_per_s=d.get("train_samples_per_second"),
            steps_per_s=d.get("train_steps_per_second"),
            loss=d.get("train_loss"),
            epoch=d.get("epoch"),
            line=seg.line,
            prefix=seg.prefix,
        )
    if "eval_loss" in d or any(k.startswith("eval_") for k in d):
        return EvalEvent(
            step=_i(d.get("step")),
            loss=d.get("eval_loss"),
            perplexity=d.get("eval_perplexity"),
            split="eval",
            epoch=d.get("epoch"),
            source="hf",
            line=seg.line,
            prefix=seg.prefix,
        )
    if "loss" in d:
        return ProgressEvent(
            step=_i(d.get("step")),
            loss=d.get("loss"),
            learning_rate=d.get("learning_rate"),
            grad_norm=d.get("grad_norm"),
            epoch=d.get("epoch"),
            source="hf",
            line=seg.line,
            prefix=seg.prefix,
            rank=seg.rank,
        )
    return None


# --- Megatron-LM --------------------------------------------------------------------------

_MEGATRON_RE = re.compile(r"\biteration\s{0,40}(\d{1,12})\s{0,40}/\s{0,40}(\d{1,12})\s{0,40}\|")
_MEGATRON_VAL_RE = re.compile(
    r"validation loss at (?:iteration\s{0,40}(\d{1,12})|the end of training for (\w{1,40}) data)"
    r"\s{0,40}\|"
)


def _pipe_pairs(rest: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for part in rest.split("|"):
        key, sep, value = part.rpartition(":")
        if sep and key.strip():
            pairs[key.strip().lower()] = value.strip()
    return pairs


def _megatron(seg: _Line) -> JobEvent | None:
    body = seg.body
    if "iteration" not in body and "validation loss" not in body:
        return None
    m = _MEGATRON_RE.search(body)
    if m:
        p = _pipe_pairs(body[m.end() :])
        loss = _f(p.get("lm loss"))
        if loss is None:
            loss = next(
                (_f(v) for k, v in p.items() if k.endswith("loss") and "scale" not in k), None
            )
        iter_ms = _f(p.get("elapsed time per iteration (ms)"))
        iter_s = iter_ms / 1000 if iter_ms else None
        samples = _f(p.get("samples per second"))
        gbs = _f(p.get("global batch size"))
        if samples is None and gbs and iter_s:
            samples = gbs / iter_s
        tokens = _f(p.get("tokens per second") or p.get("tokens/s"))
        seqlen = _f(p.get("actual seqlen") or p.get("seq length"))
        if tokens is None and samples is not None and seqlen:
            tokens = samples * seqlen
        return ProgressEvent(
            step=int(m.group(1)),
            total_steps=int(m.group(2)),
            loss=loss,
            learning_rate=_f(p.get("learning rate")),
            grad_norm=_f(p.get("grad norm")),
            tokens_per_s=tokens,
            samples_per_s=samples,
            iteration_time_s=iter_s,
            source="megatron",
            line=seg.line,
            prefix=seg.prefix,
            rank=seg.rank,
        )
    m = _MEGATRON_VAL_RE.search(body)
    if m:
        p = _pipe_pairs(body[m.end() :])
        loss = _f(p.get("lm loss value"))
        if loss is None:
            loss = next((_f(v) for k, v in p.items() if "loss" in k and "ppl" not in k), None)
        ppl = next((_f(v) for k, v in p.items() if k.endswith("ppl")), None)
        return EvalEvent(
            step=_i(m.group(1)),
            loss=loss,
            perplexity=ppl,
            split=m.group(2) or "val",
            source="megatron",
            line=seg.line,
            prefix=seg.prefix,
        )
    return None


# --- DeepSpeed ---------------------------------------------------------------------------------

_DS_STEP_RE = re.compile(rf"\bstep=(\d{{1,12}}), skipped=\d{{1,12}}, lr=\[\s{{0,40}}({_NUM})")
_DS_TIMER_RE = re.compile(
    rf"(?:\bepoch=(\d{{1,9}})/micro_step=\d{{1,12}}/)?global_step=(\d{{1,12}}), "
    rf"RunningAvgSamplesPerSec=({_NUM}), CurrSamplesPerSec=({_NUM})"
)


def _deepspeed(seg: _Line) -> JobEvent | None:
    body = seg.body
    if "step=" not in body:
        return None
    rank = seg.rank if seg.rank is not None else _rank(body)
    m = _DS_STEP_RE.search(body)
    if m:
        return ProgressEvent(
            step=int(m.group(1)),
            learning_rate=_f(m.group(2)),
            source="deepspeed",
            line=seg.line,
            prefix=seg.prefix,
            rank=rank,
        )
    m = _DS_TIMER_RE.search(body)
    if m:
        return ProgressEvent(
            step=int(m.group(2)),
            epoch=_f(m.group(1)),
            samples_per_s=_f(m.group(4)),
            source="deepspeed",
            line=seg.line,
            prefix=seg.prefix,
            rank=rank,
        )
    return None


# --- tqdm and Lightning bars --------------------------------------------------------------------

# " 19%|█▊        | 18/97 [01:50<08:31,  6.39s/it]"  (and "?it/s" before the first step)
_TQDM_RE = re.compile(
    r"(?<!\d)(\d{1,3})%\|[^|\n]{0,400}\|\s{0,8}(\d{1,12})/(\d{1,12})\s{0,8}"
    r"\[([\d:]{1,16})(?:<([\d:?]{1,16}))?"
    rf"(?:,\s{{0,8}}(?:({_NUM})|\?)\s{{0,4}}([A-Za-z/]{{1,16}}))?"
)
# "73it [00:48,  1.52it/s]": a bar without a total
_TQDM_OPEN_RE = re.compile(
    r"(?<![\d/])(\d{1,12})it \[([\d:]{1,16}),\s{0,8}(?:(" + _NUM + r")|\?)\s{0,4}(s/it|it/s)"
)
_LIGHTNING_EPOCH_RE = re.compile(r"(?<!\w)Epoch (\d{1,9}):")
_POSTFIX_ITEM_RE = re.compile(rf"([A-Za-z_][\w/.-]{{0,80}})=({_VALUE})(?![\w.])")
# bars of work other than training steps: their counts are not the job's progress
_OTHER_BARS = re.compile(
    r"(?i)valid|sanity|test|predict|eval|load|download|fetch|map|token|filter|generat|"
    r"extract|convert|sav|upload|shard|resolv|prepar|process"
)


def _bar_rate(value: str | None, unit: str) -> float | None:
    """Seconds per iteration from tqdm's rate."""
    rate = _f(value)
    if not rate or rate <= 0:
        return None
    return rate if unit == "s/it" else 1 / rate


def _tqdm(seg: _Line) -> JobEvent | None:
    body = seg.body
    has_bar = "%|" in body
    if not has_bar and "it [" not in body:
        return None
    m = _TQDM_RE.search(body) if has_bar else None
    if m is None:
        m2 = _TQDM_OPEN_RE.search(body)
        if m2 is None or _OTHER_BARS.search(body, 0, m2.start()):
            return None
        return ProgressEvent(
            step=int(m2.group(1)),
            elapsed_s=_clock(m2.group(2)),
            iteration_time_s=_bar_rate(m2.group(3), m2.group(4)),
            source="tqdm",
            line=seg.line,
            prefix=seg.prefix,
            rank=seg.rank,
        )
    described = body[: m.start()]
    epoch_m = _LIGHTNING_EPOCH_RE.search(described)
    if epoch_m is None and _OTHER_BARS.search(described):
        return None  # "Validation DataLoader 0: 50%|...", "Loading checkpoint shards: ..."
    unit = m.group(7)
    if unit is not None and unit not in ("it/s", "s/it"):
        return None  # "examples/s", "MB/s": a bar of data, not of steps
    step, total = int(m.group(2)), int(m.group(3))
    iter_s = _bar_rate(m.group(6), unit) if unit else None
    elapsed = _clock(m.group(4))
    remaining = _clock(m.group(5)) if m.group(5) else None
    if epoch_m is None:
        return ProgressEvent(
            step=step,
            total_steps=total,
            elapsed_s=elapsed,
            iteration_time_s=iter_s,
            remaining_s=remaining,
            source="tqdm",
            line=seg.line,
            prefix=seg.prefix,
            rank=seg.rank,
        )
    # Lightning: the bar counts the batches of epoch N; its postfix carries the metrics
    close = body.find("]", m.end())
    postfix = body[m.end() : close if close >= 0 else len(body)]
    metrics = {k.lower(): _f(v) for k, v in _POSTFIX_ITEM_RE.findall(postfix)}
    loss = next(
        (
            metrics[k]
            for k in ("train_loss_step", "train_loss", "loss_step", "loss", "train/loss")
            if k in metrics
        ),
        None,
    )
    if loss is None:
        loss = next((v for k, v in metrics.items() if "loss" in k and "val" not in k), None)
    lr = next((v for k, v in metrics.items() if k in ("lr", "learning_rate")), None)
    epoch = int(epoch_m.group(1)) + (step / total if total else 0.0)
    return ProgressEvent(
        step=step,
        total_steps=total,
        loss=loss,
        learning_rate=lr,
        epoch=epoch,
        elapsed_s=elapsed,
        iteration_time_s=iter_s,
        remaining_s=remaining,
        source="lightning",
        line=seg.line,
        prefix=seg.prefix,
        rank=seg.rank,
    )


# --- plain "step N loss X" lines (the simulated trainer, torchtitan, custom scripts) ----------

_P_STEP = re.compile(
    rf"(?i)(?<![\w/.])(?:global[_ ])?step\b{_SEP}(\d{{1,12}})(?:\s{{0,8}}/\s{{0,8}}(\d{{1,12}}))?"
)
_P_LOSS = re.compile(rf"(?i)(?<![\w.])(?:train[_ ])?loss\b{_SEP}({_VALUE})")
_P_LR = re.compile(rf"(?i)(?<![\w.])(?:lr|learning[_ ]rate)\b{_SEP}({_NUM})")
_P_GRAD = re.compile(rf"(?i)(?<![\w.])grad[_ ]norm\b{_SEP}({_VALUE})")
_RATE = r"(?:/s(?:ec)?|_per_s(?:ec(?:ond)?)?|\s{1,4}per\s{1,4}sec(?:ond)?)"
_P_TOK = (
    re.compile(rf"(?i)(?<![\w.])(?:tokens?|tok){_RATE}(?![\w/]){_SEP}({_NUMC})"),
    re.compile(rf"(?i)(?<![\w.])(?:tps|wps)\b{_SEP}({_NUMC})"),  # torchtitan
    re.compile(rf"(?i)(?<![\w.,])({_NUMC})\s{{0,4}}(?:tokens?|tok)/s\b"),
)
_P_SAMPLES = (
    re.compile(rf"(?i)(?<![\w.])samples?{_RATE}(?![\w/]){_SEP}({_NUMC})"),
    re.compile(rf"(?i)(?<![\w.,])({_NUMC})\s{{0,4}}samples?/s\b"),
)
_P_ELAPSED = re.compile(rf"(?i)(?<![\w.])elapsed(?:_s)?\b{_SEP}({_NUM})")
_P_EPOCH = re.compile(rf"(?i)(?<![\w.])epoch\b{_SEP}({_NUM})")
_P_STEP_TIME = re.compile(
    rf"(?i)(?<![\w.])(?:step_time|iter(?:ation)?_time|time_per_step)\b{_SEP}({_NUM})\s{{0,2}}(ms|s)?"
)
_P_FINISHED = re.compile(
    rf"training finished: (\d{{1,12}}) steps, final loss ({_VALUE}), ({_NUM})s"
)


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> float | None:
    """The value after a ``key value`` form, else a ``value unit`` form."""
    for rx in patterns:
        m = rx.search(text)
        if m:
            return _f(m.group(1))
    return None


def _value(rx: re.Pattern[str], text: str) -> float | None:
    m = rx.search(text)
    return _f(m.group(1)) if m else None


def _plain(seg: _Line) -> JobEvent | None:
    body = seg.body
    if "training finished:" in body:
        fin = _P_FINISHED.search(body)
        if fin:
            return TrainEndEvent(
                runtime_s=_f(fin.group(3)),
                loss=_f(fin.group(2)),
                line=seg.line,
                prefix=seg.prefix,
            )
    lowered = body.lower()
    if "step" not in lowered:
        return None
    step = _P_STEP.search(body)
    if not step:
        return None
    loss = _value(_P_LOSS, body)
    tokens = _first(_P_TOK, body)
    samples = _first(_P_SAMPLES, body)
    if loss is None and tokens is None and samples is None:
        return None
    iter_s = None
    st = _P_STEP_TIME.search(body)
    if st:
        iter_s = _f(st.group(1))
        if iter_s is not None and st.group(2) and st.group(2).lower() == "ms":
            iter_s /= 1000
    source = "torchtitan" if ("tps:" in lowered or "wps:" in lowered) else "plain"
    return ProgressEvent(
        step=int(step.group(1)),
        total_steps=_i(step.group(2)),
        loss=loss,
        learning_rate=_value(_P_LR, body),
        grad_norm=_value(_P_GRAD, body),
        epoch=_value(_P_EPOCH, body),
        tokens_per_s=tokens,
        samples_per_s=samples,
        iteration_time_s=iter_s,
        elapsed_s=_value(_P_ELAPSED, body),
        source=source,
        line=seg.line,
        prefix=seg.prefix,
        rank=seg.rank if seg.rank is not None else _rank(body),
    )


# --- checkpoints -------------------------------------------------------------------------------

_CK_MEGATRON_DONE = re.compile(
    r"successfully saved checkpoint at iteration\s{0,40}(\d{1,12})\s{1,40}to\s{1,40}(\S{1,4096})"
)
_CK_MEGATRON_START = re.compile(
    r"saving checkpoint at iteration\s{0,40}(\d{1,12})\s{1,40}to\s{1,40}(\S{1,4096})"
)
_CK_HF = re.compile(r"Saving model checkpoint to\s{1,40}(\S{1,4096})")
_CK_DS_READY = re.compile(r"Checkpoint (\S{1,4096}) is ready now")
_CK_GENERIC = re.compile(
    r"(?i)\b(?:checkpoint|ckpt)\s{1,10}saved\b|\bsaved\s{1,10}(?:a\s{1,10})?(?:checkpoint|ckpt)\b"
)
_CK_STEP = re.compile(
    r"(?i)\b(?:global_step|step|iteration|iter)[\s=:_-]{0,20}(\d{1,12})|checkpoint-(\d{1,12})"
)


def _path_after(text: str, start: int) -> str | None:
    """The first word with a ``/`` after ``start`` ("... path /x", "saved: /x", "to 'x/y'")."""
    for word in text[start:].split():
        if "/" in word:
            key, sep, value = word.partition("=")
            if sep and "/" not in key:
                word = value  # path=/x
            return word.strip("'\"(),;") or None
    return None


def _step_in(text: str) -> int | None:
    m = _CK_STEP.search(text)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def _checkpoint(seg: _Line) -> JobEvent | None:
    body = seg.body
    lowered = body.lower()
    if "checkpoint" not in lowered and "ckpt" not in lowered:
        return None
    line, prefix = seg.line, seg.prefix
    m = _CK_MEGATRON_DONE.search(body)
    if m:
        return CheckpointEvent(m.group(2), int(m.group(1)), True, line, prefix)
    m = _CK_MEGATRON_START.search(body)
    if m:
        return CheckpointEvent(m.group(2), int(m.group(1)), False, line, prefix)
    m = _CK_HF.search(body)
    if m:
        return CheckpointEvent(m.group(1), _step_in(m.group(1)), False, line, prefix)
    m = _CK_DS_READY.search(body)
    if m:
        return CheckpointEvent(None, _step_in(m.group(1)), True, line, prefix)
    g = _CK_GENERIC.search(body)
    if g:
        path = _path_after(body, g.end())
        step = _step_in(body[g.start() :])
        if step is None and path:
            step = _step_in(path)
        return CheckpointEvent(path, step, True, line, prefix)
    return None


# --- failures ------------------------------------------------------------------------------

_WATCHDOG_RE = re.compile(
    r"Watchdog caught collective operation timeout:\s{0,10}"
    r"WorkNCCL\((?P<args>(?:[^()]|\(ms\)){0,1000})\)"
    r"\s{0,10}ran for (?P<ran>\d{1,15}) milliseconds"
)
_WORK_ARG_RE = re.compile(r"(\w{1,40}(?:\(ms\))?)=([^,]{1,200})")
_NCCL_ERROR_RE = re.compile(
    r"(NCCL error\b.*|nccl(?:System|Internal|UnhandledCuda|Remote|InvalidUsage|InvalidArgument)"
    r"Error\b.*|NCCL communicator was aborted.*|Some NCCL operations have failed or timed out.*"
    r"|ProcessGroupNCCL's watchdog got stuck.*)"
)
_NCCL_WARN_RE = re.compile(r"NCCL WARN (.*)")
# WARN lines after which the communicator is broken (an IB completion error,
# a failed verbs call, a peer gone), as opposed to advice about settings.
_NCCL_FATAL_WARN_RE = re.compile(
    r"completion from peer .{0,400}? with (?:error|status)|Call to \w{1,60} failed|"
    r"remote process exited|Connection closed by|Net : Connection closed|unhandled system error|"
    r"Cuda failure",
    re.IGNORECASE,
)
_CUDA_OOM_RE = re.compile(r"(CUDA out of memory.*|OutOfMemoryError.*|CUDA error: out of memory.*)")
_CUDA_ERR_RE = re.compile(r"CUDA error: (.*)")
_EXIT_OK_RE = re.compile(r"Process (\d{1,12}) exits successfully")
_EXIT_CODE_RES = (
    re.compile(r"exits with return code = (-?\d{1,6})()"),
    re.compile(r"\(exitcode: (-?\d{1,6})\)(?:.{0,400}?\(pid: (\d{1,12})\))?"),
    re.compile(
        r"\bexit ?code\s{0,10}[:=]\s{0,10}(-?\d{1,6})(?:\s{0,10}\(pid:\s{0,10}(\d{1,12})\))?"
    ),
)


def _any_rank(seg: _Line) -> int | None:
    """The rank a failure line names ("[Rank 3]"), else its launcher prefix's."""
    rank = _rank(seg.line[:MAX_SEGMENT_CHARS])
    return rank if rank is not None else seg.rank


def _failure(seg: _Line) -> JobEvent | None:
    body, line, prefix = seg.body, seg.line, seg.prefix
    if "Watchdog caught" in body:
        m = _WATCHDOG_RE.search(body)
        if m:
            args = {k: v.strip() for k, v in _WORK_ARG_RE.findall(m.group("args"))}
            return NcclTimeoutEvent(
                rank=_any_rank(seg),
                seq_num=_i(args.get("SeqNum")),
                op_type=args.get("OpType"),
                timeout_ms=_i(args.get("Timeout(ms)")),
                ran_for_ms=int(m.group("ran")),
                numel_in=_i(args.get("NumelIn")),
                numel_out=_i(args.get("NumelOut")),
                line=line,
                prefix=prefix,
            )
    if "NCCL" in body or "nccl" in body:
        m = _NCCL_ERROR_RE.search(body)
        if m:
            return NcclErrorEvent(m.group(1).strip(), True, _any_rank(seg), line, prefix)
        m = _NCCL_WARN_RE.search(body)
        if m:
            message = m.group(1).strip()
            fatal = bool(_NCCL_FATAL_WARN_RE.search(message))
            return NcclErrorEvent(message, fatal, _any_rank(seg), line, prefix)
    if "CUDA" in body or "OutOfMemory" in body:
        m = _CUDA_OOM_RE.search(body)
        if m:
            return CudaErrorEvent(m.group(1).strip(), True, _any_rank(seg), line, prefix)
        m = _CUDA_ERR_RE.search(body)
        if m:
            return CudaErrorEvent(m.group(1).strip(), False, _any_rank(seg), line, prefix)
    if "exit" in body:
        m = _EXIT_OK_RE.search(body)
        if m:
            return ProcessExitEvent(0, int(m.group(1)), line, prefix)
        for rx in _EXIT_CODE_RES:
            m = rx.search(body)
            if m:
                return ProcessExitEvent(int(m.group(1)), _i(m.group(2) or None), line, prefix)
    return None


_MATCHERS = (_failure, _megatron, _hf_dict, _deepspeed, _checkpoint, _tqdm, _plain)


def _bar(ev: JobEvent) -> bool:
    return isinstance(ev, ProgressEvent) and ev.source in ("tqdm", "lightning")


def parse_job_events(line: str) -> list[JobEvent]:
    """Every event one log line carries, in order. A tqdm bar redrawn with ``\\r`` counts
    once (its newest drawing); a message written between drawings is kept. Never raises."""
    text = line.rstrip("\r\n")
    if not text.strip():
        return []
    try:
        clean = strip_ansi(text)
        prefix, rank, body = split_prefix(clean)
        segments = body.split("\r") if "\r" in body else [body]
        found: list[JobEvent] = []
        for segment in segments:
            if not segment.strip():
                continue
            seg = _Line(segment[:MAX_SEGMENT_CHARS], text, prefix, rank)
            for matcher in _MATCHERS:
                ev = matcher(seg)
                if ev is not None:
                    found.append(ev)
                    break
        if len(found) > 1:
            last_bar = max((i for i, ev in enumerate(found) if _bar(ev)), default=-1)
            found = [ev for i, ev in enumerate(found) if not _bar(ev) or i == last_bar]
        return found
    except Exception:  # a log line must never stop the watcher
        log.debug("job log: could not read line %r", text[:200], exc_info=True)
        return []


def parse_job_line(line: str) -> JobEvent | None:
    """The (last) event one log line carries, or None. Never raises."""
    events = parse_job_events(line)
    return events[-1] if events else None


# --- progress state and ETA -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EtaEstimate:
    """An ETA, or why there is none yet (``reason``)."""

    eta_s: float | None
    steps_per_s: float | None
    remaining_steps: int | None
    reason: str  # "ok", "warming up", "total steps unknown", "no progress yet", "done"


class EtaEstimator:
    """Time left from step progress, shown only after warm-up.

    The first steps of a run are slow and noisy (compilation, data loader
    start, the first checkpoint), so they are not used: warm-up ends after
    ``warmup_steps`` steps or ``warmup_s`` seconds from the first observed
    step, whichever comes first, and the rate is then the median seconds per
    step over the last ``window`` intervals (robust to a checkpoint pause or a
    log line that arrived late), once ``min_intervals`` are known.

    ``t`` is the time a line was written (or read, if that is all there is).
    A step lower than the last one from the same rank is a restart (a new
    attempt): warm-up starts again. A lower step from another rank is a
    lagging rank and ignored. A Lightning bar that starts again at a new
    epoch is a new epoch, not a restart; its ETA is for the current epoch.
    """

    def __init__(
        self,
        *,
        warmup_steps: int = 20,
        warmup_s: float = 120.0,
        window: int = 30,
        min_intervals: int = 3,
    ) -> None:
        self.warmup_steps = max(0, warmup_steps)
        self.warmup_s = max(0.0, warmup_s)
        self.min_intervals = max(1, min_intervals)
        self._intervals: deque[float] = deque(maxlen=max(self.min_intervals, window))
        self.restarts = 0
        self._reset()

    def _reset(self) -> None:
        self._intervals.clear()
        self._first: tuple[float, float] | None = None  # (t, progress) at the first step
        self._last: tuple[float, float] | None = None  # (t, progress) at the newest step
        self._warm = False
        self._by_rank: dict[int | None, float] = {}
        self._offset = 0.0  # progress of the epochs before the current one
        self._epoch: int | None = None
        self._step = 0
        self._total: int | None = None

    def reset(self) -> None:
        """A new attempt started: forget the rate, warm up again."""
        self._reset()

    def observe(
        self,
        step: int,
        t: float,
        total: int | None = None,
        *,
        rank: int | None = None,
        epoch: float | None = None,
    ) -> None:
        if step < 0 or not math.isfinite(t):
            return
        epoch_index = int(epoch) if epoch is not None and math.isfinite(epoch) else None
        if self._last is not None and step <= self._step:
            if epoch_index is not None and self._epoch is not None and epoch_index > self._epoch:
                self._offset += float(self._total or self._step)  # a new epoch of a bar
            elif step < self._by_rank.get(rank, -1.0):
                self.restarts += 1
                self._reset()
            else:
                return  # a repeat, or a lagging rank
        progress = self._offset + step
        if total is not None and total > 0:
            self._total = total
        self._step = step
        self._by_rank[rank] = float(step)
        if epoch_index is not None:
            self._epoch = epoch_index
        if self._first is None:
            self._first = (t, progress)
            self._last = (t, progress)
            return
        assert self._last is not None
        t_last, p_last = self._last
        self._last = (t, progress)
        if not self._warm:
            t0, p0 = self._first
            if progress - p0 >= self.warmup_steps or t - t0 >= self.warmup_s:
                self._warm = True  # intervals count from here on
            return
        dt, dp = t - t_last, progress - p_last
        if dt > 0 and dp > 0:
            self._intervals.append(dt / dp)

    def feed(self, event: ProgressEvent, t: float) -> None:
        """One progress event read at (or written at) time ``t``."""
        if event.step is None:
            return
        epoch = None
        if event.source == "lightning" and event.epoch is not None:
            # the bar's own epoch number: "Epoch 3: 100%" is epoch 3 done, not epoch 4
            done = event.step / event.total_steps if event.total_steps else 0.0
            epoch = float(round(event.epoch - done))
        self.observe(event.step, t, event.total_steps, rank=event.rank, epoch=epoch)

    @property
    def warmed_up(self) -> bool:
        return self._warm and len(self._intervals) >= self.min_intervals

    def estimate(self, now: float | None = None) -> EtaEstimate:
        if self._last is None:
            return EtaEstimate(None, None, None, "no progress yet")
        remaining = None if self._total is None else max(0, self._total - self._step)
        if remaining == 0:
            return EtaEstimate(0.0, self.steps_per_s, 0, "done")
        rate = self.steps_per_s
        if rate is None:
            return EtaEstimate(None, None, remaining, "warming up")
        if remaining is None:
            return EtaEstimate(None, rate, None, "total steps unknown")
        eta = remaining / rate
        if now is not None:
            eta = max(0.0, eta - max(0.0, now - self._last[0]))
        return EtaEstimate(eta, rate, remaining, "ok")

    @property
    def steps_per_s(self) -> float | None:
        if not self.warmed_up:
            return None
        median = statistics.median(self._intervals)
        return 1.0 / median if median > 0 else None


@dataclass(frozen=True, slots=True)
class ProgressState:
    """The newest value of each figure, whichever line printed it (an HF Trainer prints
    loss in its dict lines and the step in its bar)."""

    step: int | None = None
    total_steps: int | None = None
    loss: float | None = None
    learning_rate: float | None = None
    grad_norm: float | None = None
    epoch: float | None = None
    tokens_per_s: float | None = None
    samples_per_s: float | None = None
    iteration_time_s: float | None = None
    source: str | None = None
    rank: int | None = None
    updated_at: float | None = None


_STATE_FIELDS = (
    "loss",
    "learning_rate",
    "grad_norm",
    "epoch",
    "tokens_per_s",
    "samples_per_s",
    "iteration_time_s",
)


class JobLogParser:
    """Line-stream reader for a job's streamed log: events, the merged progress
    state, and an ETA when it is given the time of each line."""

    def __init__(self, eta: EtaEstimator | None = None) -> None:
        self.lines = 0
        self.events = 0
        self.last_progress: ProgressEvent | None = None
        self.state = ProgressState()
        self.eta = eta if eta is not None else EtaEstimator()
        self._main_total: int | None = None

    def feed_events(self, line: str, t: float | None = None) -> list[JobEvent]:
        """Every event of ``line``; ``t`` (epoch seconds it was written) feeds the ETA."""
        self.lines += 1
        found = parse_job_events(line)
        for ev in found:
            self.events += 1
            if isinstance(ev, ProgressEvent):
                self._progress(ev, t)
        return found

    def feed(self, line: str, t: float | None = None) -> JobEvent | None:
        found = self.feed_events(line, t)
        return found[-1] if found else None

    def feed_many(self, lines: Iterable[str]) -> list[JobEvent]:
        out: list[JobEvent] = []
        for line in lines:
            out.extend(self.feed_events(line))
        return out

    def _progress(self, ev: ProgressEvent, t: float | None) -> None:
        self.last_progress = ev
        if ev.source == "tqdm" and ev.total_steps is not None:
            # an evaluation or data bar of another length is not the run's progress
            if self._main_total is None:
                self._main_total = ev.total_steps
            elif ev.total_steps != self._main_total:
                return
        changes: dict[str, object] = {
            name: getattr(ev, name) for name in _STATE_FIELDS if getattr(ev, name) is not None
        }
        if ev.step is not None:
            changes["step"] = ev.step
            if ev.total_steps is not None:
                changes["total_steps"] = ev.total_steps
            changes["source"] = ev.source
            changes["rank"] = ev.rank
        if t is not None:
            changes["updated_at"] = t
        self.state = replace(self.state, **changes)  # type: ignore[arg-type]
        if t is not None and ev.step is not None:
            self.eta.feed(ev, t)


def parse_job_log(text: str) -> list[JobEvent]:
    """Every event of a whole log text, in order."""
    return JobLogParser().feed_many(text.split("\n"))
