"""What the user asks for: the task, the model, the data, and the limits on the answer."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from xyclaw.catalog.fabrics import FAMILIES, parse_fabric
from xyclaw.catalog.money import to_display
from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.errors import UsageError
from xyclaw.planner.parse import (
    SMALLEST_MODEL,
    parse_budget,
    parse_count,
    parse_duration,
    parse_gpu_range,
    parse_size,
)
from xyclaw.wording import Said, SaidValueError, said, said_of

# Without a token count: Chinchilla's 20 tokens per parameter for pretraining (Hoffmann et
# al., 2022), and 100M tokens for a fine-tune (e.g. 50k examples of 2k tokens). Both are
# shown as assumed in the plan so nobody mistakes them for the user's figure.
PRETRAIN_TOKENS_PER_PARAM = 20
DEFAULT_FINETUNE_TOKENS = 100_000_000
DEFAULT_CONTEXT = 4096
DEFAULT_PROMPT_TOKENS = 1024
DEFAULT_OUTPUT_TOKENS = 256
DEFAULT_SERVE_SECONDS = 3600
DEFAULT_RATE = 1.0
#: Beyond these a plan's figures overflow or mean nothing.
MOST_EPOCHS = 10_000.0
MOST_RATE = 1_000_000.0


class Task(StrEnum):
    PRETRAIN = "pretrain"
    FINETUNE_FULL = "finetune-full"
    FINETUNE_LORA = "finetune-lora"
    INFERENCE = "inference"

    @property
    def training(self) -> bool:
        return self is not Task.INFERENCE


class Precision(StrEnum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"


_ALLOWED_PRECISIONS = {
    Task.PRETRAIN: (Precision.BF16, Precision.FP16, Precision.FP8),
    Task.FINETUNE_FULL: (Precision.BF16, Precision.FP16, Precision.FP8),
    Task.FINETUNE_LORA: tuple(Precision),
    Task.INFERENCE: tuple(Precision),
}


class RequestError(UsageError):
    """A request field is wrong; ``field`` names it (the CLI turns it into ``--field``)."""

    def __init__(self, field: str, message: str | Said, *, hint: str | Said | None = None) -> None:
        super().__init__(message, hint=hint)
        self.field = field


def _choice(field: str, value: str, enum: type[StrEnum]) -> Any:
    try:
        return enum(value.strip().lower())
    except ValueError:
        choices = ", ".join(m.value for m in enum)
        raise RequestError(
            field, said("error.plan.not_choice", value=repr(value), field=field, choices=choices)
        ) from None


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """A planning request. Sizes are counts, money micro-units, times seconds.

    ``tokens`` is the number of training tokens (``dataset_tokens`` x ``epochs``
    when those are given instead). ``rate`` is the inference target in requests
    per second; ``serve_seconds`` how long to serve. ``gpus_max`` None means no
    upper limit; ``fabric`` is a fabric name or a family (``ib``, ``roce``,
    ``eth``, ``none``).
    """

    task: Task
    params: int
    tokens: int | None = None
    dataset_tokens: int | None = None
    epochs: float | None = None
    precision: Precision = Precision.BF16
    context: int = DEFAULT_CONTEXT
    rate: float | None = None
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    serve_seconds: int = DEFAULT_SERVE_SECONDS
    gpu: str | None = None
    gpus_min: int = 1
    gpus_max: int | None = None
    region: str | None = None
    fabric: str | None = None
    provider: str | None = None
    budget_micro: int | None = None
    currency: str = "CNY"
    deadline_seconds: int | None = None
    fastest: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "task", _choice("task", str(self.task), Task))
        set_(self, "precision", _choice("precision", str(self.precision), Precision))
        if self.params < SMALLEST_MODEL:
            raise RequestError("model_size", said("error.plan.too_small", params=self.params))
        for name in ("tokens", "dataset_tokens"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise RequestError(name, said("error.plan.tokens_positive", value=value))
        if self.epochs is not None and not self.epochs > 0:
            raise RequestError("epochs", said("error.plan.epochs_positive", value=self.epochs))
        if (self.epochs is None) != (self.dataset_tokens is None):
            field = "epochs" if self.epochs is None else "dataset_tokens"
            raise RequestError(field, said("error.plan.tokens_and_epochs"))
        if self.tokens is not None and self.dataset_tokens is not None:
            raise RequestError("tokens", said("error.plan.tokens_or_dataset"))
        if self.precision not in _ALLOWED_PRECISIONS[self.task]:
            allowed = ", ".join(p.value for p in _ALLOWED_PRECISIONS[self.task])
            raise RequestError(
                "precision",
                said(
                    "error.plan.precision",
                    task=self.task.value,
                    precision=self.precision.value,
                    allowed=allowed,
                ),
            )
        if not 128 <= self.context <= 1_048_576:
            raise RequestError("context", said("error.plan.context_range"))
        for name in ("prompt_tokens", "output_tokens"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise RequestError(name, said("error.plan.one_token", value=value))
        if self.prompt_length + self.output_length > self.context:
            raise RequestError(
                "context",
                said(
                    "error.plan.exceeds_context",
                    prompt=self.prompt_length,
                    output=self.output_length,
                    context=self.context,
                ),
            )
        if self.rate is not None and not self.rate > 0:
            raise RequestError("rate", said("error.plan.rate_positive", value=self.rate))
        if self.serve_seconds <= 0:
            raise RequestError("duration", said("error.plan.duration_positive"))
        if self.gpus_min < 1 or (self.gpus_max is not None and self.gpus_max < self.gpus_min):
            raise RequestError("gpus", said("error.plan.gpu_range"))
        if self.gpu is not None:
            set_(self, "gpu", normalise_gpu_name(self.gpu))
        if self.fabric is not None:
            fabric = self.fabric.strip().lower()
            if fabric not in FAMILIES:
                try:
                    fabric = parse_fabric(fabric).name
                except ValueError as exc:
                    also = said(
                        "error.typed.or_family", problem=said_of(exc), families=", ".join(FAMILIES)
                    )
                    raise RequestError("fabric", also) from None
            set_(self, "fabric", fabric)
        if self.budget_micro is not None and self.budget_micro <= 0:
            raise RequestError("budget", said("error.plan.budget_positive"))
        currency = self.currency.strip().upper()
        if len(currency) != 3 or not currency.isalpha():
            raise RequestError("currency", said("error.plan.currency", code=repr(self.currency)))
        set_(self, "currency", currency)
        if self.deadline_seconds is not None and self.deadline_seconds <= 0:
            raise RequestError("deadline", said("error.plan.deadline_positive"))

    @property
    def training_tokens(self) -> int:
        """The tokens a training run processes: given, dataset x epochs, or the default."""
        if self.tokens is not None:
            return self.tokens
        if self.dataset_tokens is not None and self.epochs is not None:
            return max(1, round(self.dataset_tokens * self.epochs))
        if self.task is Task.PRETRAIN:
            return PRETRAIN_TOKENS_PER_PARAM * self.params
        return DEFAULT_FINETUNE_TOKENS

    @property
    def tokens_assumed(self) -> bool:
        return self.task.training and self.tokens is None and self.dataset_tokens is None

    @property
    def target_rate(self) -> float:
        return DEFAULT_RATE if self.rate is None else self.rate

    @property
    def prompt_length(self) -> int:
        if self.prompt_tokens is not None:
            return self.prompt_tokens
        return min(DEFAULT_PROMPT_TOKENS, self.context // 2)

    @property
    def output_length(self) -> int:
        if self.output_tokens is not None:
            return self.output_tokens
        return min(DEFAULT_OUTPUT_TOKENS, self.context // 4)

    def replace(self, **changes: Any) -> PlanRequest:
        return dataclasses.replace(self, **changes)

    @classmethod
    def parse(
        cls,
        *,
        task: str,
        model_size: str,
        tokens: str | None = None,
        dataset_tokens: str | None = None,
        epochs: str | None = None,
        precision: str | None = None,
        context: str | None = None,
        rate: str | None = None,
        prompt_tokens: str | None = None,
        output_tokens: str | None = None,
        duration: str | None = None,
        gpus: str | None = None,
        gpu: str | None = None,
        region: str | None = None,
        fabric: str | None = None,
        provider: str | None = None,
        budget: str | None = None,
        currency: str | None = None,
        deadline: str | None = None,
        fastest: bool = False,
    ) -> PlanRequest:
        """Build a request from text as a person types it; errors name the field at fault."""

        def field(name: str, parse: Any, text: str | None) -> Any:
            if text is None:
                return None
            try:
                return parse(text)
            except ValueError as exc:
                raise RequestError(name, said_of(exc)) from None

        def number(most: float) -> Any:
            def read(text: str) -> float:
                try:
                    value = float(text)
                except ValueError:
                    raise SaidValueError(said("error.typed.not_number", text=repr(text))) from None
                if value != value or value in (float("inf"), float("-inf")):
                    raise SaidValueError(said("error.typed.not_finite", text=repr(text)))
                if value > most:
                    raise SaidValueError(
                        said("error.typed.beyond_plans", text=repr(text), most=f"{most:g}")
                    )
                return value

            return read

        def whole(what: Said) -> Any:
            return lambda text: parse_count(text, what=what)

        count = whole(said("error.typed.what.token_count"))
        kwargs: dict[str, Any] = {
            "task": _choice("task", task, Task),
            "params": field("model_size", parse_size, model_size),
            "tokens": field("tokens", count, tokens),
            "dataset_tokens": field("dataset_tokens", count, dataset_tokens),
            "epochs": field("epochs", number(MOST_EPOCHS), epochs),
            "rate": field("rate", number(MOST_RATE), rate),
            "prompt_tokens": field("prompt_tokens", count, prompt_tokens),
            "output_tokens": field("output_tokens", count, output_tokens),
            "gpu": gpu,
            "region": region,
            "fabric": fabric,
            "provider": provider,
            "fastest": fastest,
        }
        if precision is not None:
            kwargs["precision"] = _choice("precision", precision, Precision)
        if context is not None:
            kwargs["context"] = field("context", whole(said("error.typed.what.context")), context)
        if duration is not None:
            kwargs["serve_seconds"] = field("duration", parse_duration, duration)
        if gpus is not None:
            kwargs["gpus_min"], kwargs["gpus_max"] = field("gpus", parse_gpu_range, gpus)
        if deadline is not None:
            kwargs["deadline_seconds"] = field("deadline", parse_duration, deadline)
        if budget is not None:
            amount, budget_currency = field("budget", parse_budget, budget)
            kwargs["budget_micro"] = amount
            if budget_currency and currency and budget_currency != currency.strip().upper():
                raise RequestError(
                    "budget",
                    said("error.plan.two_currencies", budget=budget_currency, currency=currency),
                )
            if budget_currency:
                kwargs["currency"] = budget_currency
        if currency is not None and "currency" not in kwargs:
            kwargs["currency"] = currency
        return cls(**kwargs)

    def to_json(self) -> dict[str, Any]:
        training = self.task.training
        return {
            "task": self.task.value,
            "model_size": self.params,
            "tokens": self.training_tokens if training else None,
            "tokens_assumed": self.tokens_assumed,
            "precision": self.precision.value,
            "context": self.context,
            "rate": None if training else self.target_rate,
            "rate_assumed": not training and self.rate is None,
            "prompt_tokens": None if training else self.prompt_length,
            "output_tokens": None if training else self.output_length,
            "serve_hours": None if training else round(self.serve_seconds / 3600, 3),
            "gpu": self.gpu,
            "gpus_min": self.gpus_min,
            "gpus_max": self.gpus_max,
            "region": self.region,
            "fabric": self.fabric,
            "provider": self.provider,
            "budget": None if self.budget_micro is None else to_display(self.budget_micro),
            "currency": self.currency,
            "deadline_hours": (
                None if self.deadline_seconds is None else round(self.deadline_seconds / 3600, 3)
            ),
            "fastest": self.fastest,
        }
