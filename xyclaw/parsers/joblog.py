"""Typed events from a training job's log: progress, checkpoints, failures.

A job log mixes many writers (HF Trainer, Megatron, DeepSpeed, tqdm, NCCL,
PyTorch's watchdog) behind launcher prefixes (``0: ``, ``host: ``,
``[default3]:``, ``[1,0]<stdout>:``). The reader looks for the few line shapes
that matter and ignores the rest; it never raises, whatever the line.

The simulated node's trainer and any custom script are read in the plain form::

    step 120/1000 loss 2.3456 lr 1.0e-04 tokens/s 48211 elapsed 95.2s
    checkpoint saved step 120 path /ckpt/step_120
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    kind: ClassVar[str] = "progress"
    step: int | None
    total_steps: int | None = None
    loss: float | None = None
    learning_rate: float | None = None
    grad_norm: float | None = None
    epoch: float | None = None
    tokens_per_s: float | None = None
    samples_per_s: float | None = None
    iteration_time_s: float | None = None
    elapsed_s: float | None = None
    source: str = "plain"  # hf, megatron, deepspeed, tqdm, plain
    line: str = ""
    prefix: str | None = None


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

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"

# --- prefixes ------------------------------------------------------------------

_PREFIX_RES = (
    re.compile(r"^\[(?P<p>(?:default|rank)\d+)\]:"),
    re.compile(r"^\[(?P<p>\d+,\d+)\]<std(?:out|err)>:"),
    re.compile(r"^(?P<p>\d+): "),
    re.compile(r"^(?P<p>[A-Za-z0-9][\w.-]*): (?=\s|\[)"),
)
_RANK_RES = (
    re.compile(r"\[Rank (\d+)\]"),
    re.compile(r"\[rank(\d+)\]"),
    re.compile(r"\[PG [^\]]*?Rank (\d+)\]"),
)


def _split_prefix(line: str) -> tuple[str | None, str]:
    for rx in _PREFIX_RES:
        m = rx.match(line)
        if m:
            return m.group("p"), line[m.end() :]
    return None, line


def _rank(line: str) -> int | None:
    for rx in _RANK_RES:
        m = rx.search(line)
        if m:
            return int(m.group(1))
    return None


def _f(v: str | None) -> float | None:
    if v is None:
        return None
    try:
        return float(v)
    except ValueError:
        return None


def _i(v: str | float | None) -> int | None:
    if v is None:
        return None
    try:
        return int(float(v))
    except (ValueError, OverflowError):
        return None


# --- HF Trainer dict lines ----------------------------------------------------

_DICT_RE = re.compile(r"\{\s*['\"](?:loss|eval_\w+|train_runtime|train_loss)['\"]\s*:.*\}")
_DICT_ITEM_RE = re.compile(rf"['\"](\w+)['\"]\s*:\s*(?:tensor\()?({_NUM}|nan|inf|-inf)")


def _hf_dict(body: str, line: str, prefix: str | None) -> JobEvent | None:
    m = _DICT_RE.search(body)
    if not m:
        return None
    d = {k: _f(v) for k, v in _DICT_ITEM_RE.findall(m.group(0))}
    if "train_runtime" in d:
        return TrainEndEvent(
            runtime_s=d.get("train_runtime"),
            samples_per_s=d.get("train_samples_per_second"),
            steps_per_s=d.get("train_steps_per_second"),
            loss=d.get("train_loss"),
            epoch=d.get("epoch"),
            line=line,
            prefix=prefix,
        )
    if any(k.startswith("eval_") for k in d):
        return EvalEvent(
            step=_i(d.get("step")),
            loss=d.get("eval_loss"),
            perplexity=d.get("eval_perplexity"),
            split="eval",
            epoch=d.get("epoch"),
            source="hf",
            line=line,
            prefix=prefix,
        )
    if "loss" in d:
        return ProgressEvent(
            step=_i(d.get("step")),
            loss=d.get("loss"),
            learning_rate=d.get("learning_rate"),
            grad_norm=d.get("grad_norm"),
            epoch=d.get("epoch"),
            source="hf",
            line=line,
            prefix=prefix,
        )
    return None


# --- Megatron ---------------------------------------------------------------------

_MEGATRON_RE = re.compile(r"\biteration\s+(\d+)\s*/\s*(\d+)\s*\|(.*)$")
_MEGATRON_VAL_RE = re.compile(
    r"validation loss at (?:iteration\s+(\d+)|the end of training for (\w+) data)\s*\|(.*)$"
)


def _pipe_pairs(rest: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for part in rest.split("|"):
        key, sep, value = part.rpartition(":")
        if sep and key.strip():
            pairs[key.strip().lower()] = value.strip()
    return pairs


def _megatron(body: str, line: str, prefix: str | None) -> JobEvent | None:
    m = _MEGATRON_RE.search(body)
    if m:
        p = _pipe_pairs(m.group(3))
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
            line=line,
            prefix=prefix,
        )
    m = _MEGATRON_VAL_RE.search(body)
    if m:
        p = _pipe_pairs(m.group(3))
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
            line=line,
            prefix=prefix,
        )
    return None


# --- DeepSpeed and tqdm ---------------------------------------------------------------

_DS_STEP_RE = re.compile(rf"\bstep=(\d+), skipped=\d+, lr=\[\s*({_NUM})")
_DS_TIMER_RE = re.compile(
    rf"global_step=(\d+), RunningAvgSamplesPerSec=({_NUM}), CurrSamplesPerSec=({_NUM})"
)
_TQDM_RE = re.compile(
    r"(\d+)%\|[^|]*\|\s*(\d+)/(\d+)\s*\[(?:(\d+):)?(\d+):(\d+)"
    rf"(?:<[^,\]]*)?(?:,\s*({_NUM})\s*(s/it|it/s))?"
)


def _deepspeed(body: str, line: str, prefix: str | None) -> JobEvent | None:
    m = _DS_STEP_RE.search(body)
    if m:
        return ProgressEvent(
            step=int(m.group(1)),
            learning_rate=_f(m.group(2)),
            source="deepspeed",
            line=line,
            prefix=prefix,
        )
    m = _DS_TIMER_RE.search(body)
    if m:
        return ProgressEvent(
            step=int(m.group(1)),
            samples_per_s=_f(m.group(3)),
            source="deepspeed",
            line=line,
            prefix=prefix,
        )
    return None


def _tqdm(body: str, line: str, prefix: str | None) -> JobEvent | None:
    if "|" not in body:
        return None
    for segment in reversed(body.split("\r")):
        m = _TQDM_RE.search(segment)
        if not m:
            continue
        hours, minutes, seconds = (int(g) if g else 0 for g in m.group(4, 5, 6))
        rate = _f(m.group(7))
        iter_s = None
        if rate:
            iter_s = rate if m.group(8) == "s/it" else 1 / rate
        return ProgressEvent(
            step=int(m.group(2)),
            total_steps=int(m.group(3)),
            elapsed_s=float(hours * 3600 + minutes * 60 + seconds),
            iteration_time_s=iter_s,
            source="tqdm",
            line=line,
            prefix=prefix,
        )
    return None


# --- plain "step N loss X" lines -----------------------------------------------------

_SEP = r"\s*[:=]?\s*"
_P_STEP = re.compile(rf"(?i)(?<![\w/])(?:global[_ ])?step\b{_SEP}(\d+)(?:\s*/\s*(\d+))?")
_P_LOSS = re.compile(rf"(?i)(?<![\w.])(?:train[_ ])?loss\b{_SEP}({_NUM})")
_P_LR = re.compile(rf"(?i)(?<![\w.])(?:lr|learning[_ ]rate)\b{_SEP}({_NUM})")
_P_GRAD = re.compile(rf"(?i)(?<![\w.])grad[_ ]norm\b{_SEP}({_NUM})")
_NUMC = rf"\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|{_NUM}"  # also "48,000"
_RATE = r"(?:/s(?:ec)?|_per_s(?:ec(?:ond)?)?|\s+per\s+sec(?:ond)?)"
_P_TOK = (
    re.compile(rf"(?i)(?<![\w.])(?:tokens?|tok){_RATE}(?![\w/]){_SEP}({_NUMC})"),
    re.compile(rf"(?i)(?<![\w.,])({_NUMC})\s*(?:tokens?|tok)/s\b"),
)
_P_SAMPLES = (
    re.compile(rf"(?i)(?<![\w.])samples?{_RATE}(?![\w/]){_SEP}({_NUMC})"),
    re.compile(rf"(?i)(?<![\w.,])({_NUMC})\s*samples?/s\b"),
)
_P_ELAPSED = re.compile(rf"(?i)(?<![\w.])elapsed(?:_s)?\b{_SEP}({_NUM})\s*s?\b")
_P_EPOCH = re.compile(rf"(?i)(?<![\w.])epoch\b{_SEP}({_NUM})")


def _either(m: re.Match[str] | None) -> float | None:
    if not m:
        return None
    return _f(next((g for g in m.groups() if g is not None), None))


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> float | None:
    """The value after a ``key value`` form, else a ``value unit`` form."""
    for rx in patterns:
        m = rx.search(text)
        if m:
            return _f(m.group(1).replace(",", ""))
    return None


def _plain(body: str, line: str, prefix: str | None) -> JobEvent | None:
    step = _P_STEP.search(body)
    if not step:
        return None
    loss = _either(_P_LOSS.search(body))
    tokens = _first(_P_TOK, body)
    samples = _first(_P_SAMPLES, body)
    if loss is None and tokens is None and samples is None:
        return None
    return ProgressEvent(
        step=int(step.group(1)),
        total_steps=_i(step.group(2)),
        loss=loss,
        learning_rate=_either(_P_LR.search(body)),
        grad_norm=_either(_P_GRAD.search(body)),
        epoch=_either(_P_EPOCH.search(body)),
        tokens_per_s=tokens,
        samples_per_s=samples,
        elapsed_s=_either(_P_ELAPSED.search(body)),
        source="plain",
        line=line,
        prefix=prefix,
    )


# --- checkpoints -------------------------------------------------------------------

_CK_MEGATRON_DONE = re.compile(r"successfully saved checkpoint at iteration\s+(\d+)\s+to\s+(\S+)")
_CK_MEGATRON_START = re.compile(r"saving checkpoint at iteration\s+(\d+)\s+to\s+(\S+)")
_CK_HF = re.compile(r"Saving model checkpoint to\s+(\S+)")
_CK_DS_READY = re.compile(r"Checkpoint (\S+) is ready now")
_CK_GENERIC = re.compile(
    r"(?i)\b(?:checkpoint|ckpt)\s+saved\b|\bsaved\s+(?:a\s+)?(?:checkpoint|ckpt)\b"
)
_CK_PATH = re.compile(
    r"(?i)(?:\bpath\b\s*[:=]?\s*|\bto\b\s+|\bat\b\s+|:\s*)['\"]?([^\s'\"]*/[^\s'\"]*)"
)
_CK_STEP = re.compile(r"(?i)\b(?:global_step|step|iteration|iter)[\s=:_-]*(\d+)|checkpoint-(\d+)")


def _step_in(text: str) -> int | None:
    m = _CK_STEP.search(text)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def _checkpoint(body: str, line: str, prefix: str | None) -> JobEvent | None:
    if "heckpoint" not in body and "ckpt" not in body.lower():
        return None
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
    if _CK_GENERIC.search(body):
        pm = _CK_PATH.search(body)
        return CheckpointEvent(pm.group(1) if pm else None, _step_in(body), True, line, prefix)
    return None


# --- failures ------------------------------------------------------------------------

_WATCHDOG_RE = re.compile(
    r"Watchdog caught collective operation timeout:\s*WorkNCCL\((?P<args>.*?)\)\s*"
    r"ran for (?P<ran>\d+) milliseconds"
)
_WORK_ARG_RE = re.compile(r"(\w+(?:\(ms\))?)=([^,]+)")
_NCCL_ERROR_RE = re.compile(
    r"(NCCL error\b.*|nccl(?:System|Internal|UnhandledCuda|Remote|InvalidUsage|InvalidArgument)"
    r"Error\b.*|NCCL communicator was aborted.*|Some NCCL operations have failed or timed out.*"
    r"|ProcessGroupNCCL's watchdog got stuck.*)"
)
_NCCL_WARN_RE = re.compile(r"NCCL WARN (.*)")
# WARN lines after which the communicator is broken (an IB completion error,
# a failed verbs call, a peer gone), as opposed to advice about settings.
_NCCL_FATAL_WARN_RE = re.compile(
    r"completion from peer .* with (?:error|status)|Call to \w+ failed|remote process exited|"
    r"Connection closed by|Net : Connection closed|unhandled system error|Cuda failure",
    re.IGNORECASE,
)
_CUDA_OOM_RE = re.compile(r"(CUDA out of memory.*|OutOfMemoryError.*|CUDA error: out of memory.*)")
_CUDA_ERR_RE = re.compile(r"CUDA error: (.*)")
_EXIT_OK_RE = re.compile(r"Process (\d+) exits successfully")
_EXIT_CODE_RES = (
    re.compile(r"exits with return code = (-?\d+)()"),
    re.compile(r"\(exitcode: (-?\d+)\)(?:.*?\(pid: (\d+)\))?"),
    re.compile(r"\bexit ?code\s*[:=]\s*(-?\d+)(?:\s*\(pid:\s*(\d+)\))?"),
)


def _failure(body: str, line: str, prefix: str | None) -> JobEvent | None:
    m = _WATCHDOG_RE.search(body)
    if m:
        args = {k: v.strip() for k, v in _WORK_ARG_RE.findall(m.group("args"))}
        return NcclTimeoutEvent(
            rank=_rank(line),
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
            return NcclErrorEvent(m.group(1).strip(), True, _rank(line), line, prefix)
        m = _NCCL_WARN_RE.search(body)
        if m:
            message = m.group(1).strip()
            fatal = bool(_NCCL_FATAL_WARN_RE.search(message))
            return NcclErrorEvent(message, fatal, _rank(line), line, prefix)
    if "CUDA" in body or "OutOfMemory" in body:
        m = _CUDA_OOM_RE.search(body)
        if m:
            return CudaErrorEvent(m.group(1).strip(), True, _rank(line), line, prefix)
        m = _CUDA_ERR_RE.search(body)
        if m:
            return CudaErrorEvent(m.group(1).strip(), False, _rank(line), line, prefix)
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


def parse_job_line(line: str) -> JobEvent | None:
    """One log line; the event it carries, or None. Never raises."""
    text = line.rstrip("\r\n")
    if not text.strip():
        return None
    try:
        prefix, body = _split_prefix(text)
        for matcher in _MATCHERS:
            ev = matcher(body, text, prefix)
            if ev is not None:
                return ev
    except Exception:  # a log line must never stop the watcher
        log.debug("job log: could not read line %r", text[:200], exc_info=True)
    return None


class JobLogParser:
    """Line-stream reader with counts, for a job's streamed log."""

    def __init__(self) -> None:
        self.lines = 0
        self.events = 0
        self.last_progress: ProgressEvent | None = None

    def feed(self, line: str) -> JobEvent | None:
        self.lines += 1
        ev = parse_job_line(line)
        if ev is not None:
            self.events += 1
            if isinstance(ev, ProgressEvent):
                self.last_progress = ev
        return ev

    def feed_many(self, lines: Iterable[str]) -> list[JobEvent]:
        out = []
        for line in lines:
            ev = self.feed(line)
            if ev is not None:
                out.append(ev)
        return out


def parse_job_log(text: str) -> list[JobEvent]:
    """Every event of a whole log text, in order."""
    return JobLogParser().feed_many(text.splitlines())
