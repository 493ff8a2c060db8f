"""What the rules brain says when it calls no tool: help, questions back, the RoCE/IB advice.

Every text is an entry of the catalogue (``agent.rules.*`` in
:mod:`xyclaw.wording.agent_rules`), worded in the request's language by :func:`say`. The
fabric advice quotes seed 004's selection rules as the planner applies them
(:mod:`xyclaw.planner.rules`), with the same thresholds.
"""

from __future__ import annotations

from xyclaw.engine.values import MID_MODEL_MIN, SMALL_MODEL_MAX
from xyclaw.wording import reason_in, text_in
from xyclaw.wording.agent import CARDS


def help_text(language: str) -> str:
    return say(language, "help")


def unknown_text(language: str) -> str:
    return say(language, "unknown")


# ---- RoCE vs InfiniBand (seed 004) -----------------------------------------------------------


def fabric_advice(
    language: str,
    *,
    gpus: int | str | None,
    params: int | None,
    task: str | None,
    gpu: str | None,
    gpu_wants_gbps: int | None,
    budget: bool,
) -> str:
    """The general advice, or the rules that decide for the cards, model and task asked about."""
    low, high = _bounds(gpus)
    training = task != "inference"
    size = f"{params / 1e9:.3g}B" if params else None
    on = say(language, "fabric.on_model", size=size) if size else ""
    of_model = say(language, "fabric.of_model", size=size) if size else ""
    lines: list[str] = []
    if high is not None and high <= 8 and (params is None or params <= SMALL_MODEL_MAX):
        lines.append(say(language, "fabric.small", high=high, on=on))
    elif training and low is not None and (low > 32 or (high is None and low >= 32)):
        lines.append(say(language, "fabric.many", gpus=gpus))
    elif training and low is not None and low > 8 and (params is None or params >= MID_MODEL_MIN):
        lines.append(say(language, "fabric.mid", gpus=gpus, of_model=of_model))
    elif not training and params is not None and params >= 50_000_000_000:
        lines.append(say(language, "fabric.serve_ib", size=size))
    elif not training and params is not None:
        lines.append(say(language, "fabric.serve_roce", size=size))
    if gpu is not None and gpu_wants_gbps is not None:
        if gpu_wants_gbps >= 200:
            lines.append(say(language, "fabric.wants_200", gpu=gpu))
        else:
            lines.append(say(language, "fabric.fine_100", gpu=gpu))
    if budget:
        lines.append(say(language, "fabric.budget"))
    if not lines:
        return say(language, "fabric")
    lines.append(say(language, "fabric.pfc"))
    return "\n".join("- " + line for line in lines)


def _bounds(gpus: int | str | None) -> tuple[int | None, int | None]:
    if gpus is None:
        return None, None
    if isinstance(gpus, int):
        return gpus, gpus
    if gpus.endswith("+"):
        return int(gpus[:-1]), None
    low, high = gpus.split("-")
    return int(low), int(high)


# ---- questions back and refusals -------------------------------------------------------------


#: The action intents a refusal names, with an example that would do it
#: (``agent.rules.action.<intent>`` and ``agent.rules.example.<intent>``).
ACTIONS = ("rent", "release", "cancel", "tune", "launch", "run_command", "slurm_launch")


def say(language: str, key: str, **values: object) -> str:
    """The rules brain's line ``key``: ``agent.rules.<key>`` in the catalogue, or the
    approval card's ``agent.<key>`` that the tools word the same."""
    full = f"agent.{key}" if f"agent.{key}" in CARDS else f"agent.rules.{key}"
    return text_in("zh" if language == "zh" else "en", full, **values)


def say_or(language: str, key: str, default: str) -> str:
    """``say``'s line where the catalogue has ``agent.rules.<key>``, else ``default`` as it is
    (a name XyClaw has no words for, such as a newer tool's task)."""
    from xyclaw.wording.catalogue import CATALOGUE

    return say(language, key) if f"agent.rules.{key}" in CATALOGUE else default


def refusal(language: str, key: str, intent: str) -> str:
    """The negated / advisory answer for an action intent, with the phrase that would do it."""
    hint = say(language, "to_do_it", example=say(language, f"example.{intent}"))
    return say(language, key, action=say(language, f"action.{intent}"), hint=hint)


# ---- approval cards (xyclaw.agent.tools words them in the request's language) ----------------


def card_label(language: str, key: str) -> str:
    """An approval card's detail name as the terminal shows it (``agent.label.<key>``); a
    name the catalogue lacks is shown as it is."""
    from xyclaw.wording.catalogue import CATALOGUE

    en, zh = CATALOGUE.get(f"agent.label.{key}", (key, key))
    return zh if language == "zh" else en


# ---- the planner's reasons (xyclaw.planner.rules gives each one's rule and figures) -----------


def reason_text(reason: object, language: str) -> str:
    """One planner reason (its JSON: rule, text, figures) in ``language``."""
    if not isinstance(reason, dict):
        return str(reason)
    figures = reason.get("figures")
    return reason_in(
        language,
        str(reason.get("rule") or ""),
        str(reason.get("text") or ""),
        figures if isinstance(figures, dict) else None,
    )


# ---- failures (the engine's own message is quoted as it is, in a code span) -------------------

#: What went wrong, by error class (xyclaw.errors), most specific class first: each
#: worded as ``agent.rules.error.<class>``.
ERRORS = (
    "QuoteChanged",
    "BudgetExceededError",
    "CapacityError",
    "ProviderError",
    "AuthenticationError",
    "ConnectError",
    "RemoteTimeoutError",
    "RemoteError",
    "JobError",
    "PlanningError",
    "CatalogError",
    "ConfigError",
    "SecretError",
    "StoreError",
    "OperationCancelled",
    "UsageError",
    "AgentError",
)


def failure_text(language: str, tool: str, error: str, hint: str | None, kinds: object = ()) -> str:
    """A failed tool call, worded for the user; the engine's message is quoted verbatim."""
    if language != "zh":
        return f"{tool} failed: {error}" + (f" ({hint})" if hint else "")
    names = [str(k) for k in kinds] if isinstance(kinds, list | tuple) else []
    lead = say(language, "error." + next((k for k in names if k in ERRORS), "default"))
    detail = _quoted(error) + (say(language, "hint", hint=_quoted(hint)) if hint else "")
    return say(language, "failed_quoted", tool=tool, lead=lead, detail=detail)


def _quoted(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"
