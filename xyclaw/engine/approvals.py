"""Bound approvals: an :class:`Action` is exactly what a yes agrees to, with a digest.

Every effect (spend, destroy, exec, change) is shown to the user as an Action: the resolved
targets (cluster, node, instance and job **ids**, never names or "all"), the exact command
text, its working folder and the names of its environment variables, the price figures where
money moves, and who asked (the user, an agent, a suggestion, a job's recovery, an MCP
client). A rent quote is one kind of Action: its figures and its own digest are inside.

The digest is made where the call is prepared (before the card is shown) and checked where
the effect runs: the Engine resolves what was asked again (``ref``: "all", "keeper", "6")
and refuses, doing nothing, on any difference (:func:`compare`), with a worded reason
("gamma was rented after you approved: ask again").

Exec allowances ("approve and remember") are bound too: the exact command, or an argv prefix
the user chose, and never a command whose rest holds a shell metacharacter
(:func:`allowance_covers`).
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

from xyclaw.errors import UsageError
from xyclaw.wording import Said, said

#: Characters after an allowed prefix that make a command something else (the remote shell
#: runs the whole string: a list, a pipe, a substitution, a redirection, another line).
SHELL_METACHARACTERS = frozenset(";|&$`><\n\r")

#: How many hex digits of the digest name a card (``xyclaw ask --approve 3fa9c2d1``).
CARD_ID_LENGTH = 8
#: The fewest a user may type to name one.
CARD_ID_MIN = 6


class Asker(StrEnum):
    """Who asked for an action: shown on its card and bound into its digest."""

    USER = "user"  # a click or a command of the user's ("Rent this", `xyclaw up`)
    AGENT = "agent"  # a model's (or the rules brain's) tool call
    SUGGESTION = "suggestion"  # an alert's proposal (the heartbeat, a monitor message's button)
    RECOVERY = "recovery"  # a job's recovery asking for a replacement node
    MCP_CLIENT = "mcp client"  # a tool call from an MCP client


class ActionKind(StrEnum):
    SPEND = "spend"  # starts or raises billing
    DESTROY = "destroy"  # stops machines or a job
    EXEC = "exec"  # runs commands on nodes
    CHANGE = "change"  # changes a setting that decides what is spent (a budget)


class ApprovalMismatch(UsageError):
    """What was approved is no longer what would run: nothing was done; ask again."""


@dataclass(frozen=True)
class Target:
    """One thing an action acts on, by id; the name is shown, never trusted."""

    kind: str  # "cluster", "node", "instance", "job"
    id: int | str
    name: str
    within: int | None = None  # the cluster id of a node, the cluster id of a job

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "name": self.name, "within": self.within}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Target:
        return cls(str(data["kind"]), data["id"], str(data["name"]), data.get("within"))

    def shown(self) -> str:
        return f"{self.name} (id {self.id})"


@dataclass(frozen=True)
class Action:
    """An effect bound to exactly what it acts on; ``digest`` covers every other field."""

    operation: str  # "rent", "release", "cancel_job", "exec", "tune", "launch", "set_budget", ...
    kind: ActionKind
    ref: str | None  # what was asked for, resolved again when it runs
    targets: tuple[Target, ...] = ()
    command: str | None = None
    cwd: str | None = None
    env_names: tuple[str, ...] = ()
    price: dict[str, Any] = field(default_factory=dict)  # currency and integer micro-amounts
    inputs: dict[str, Any] = field(default_factory=dict)  # what else was asked (spec, budget)
    quote: dict[str, Any] | None = None  # a rental's RentQuote JSON (its own digest inside)
    asked_by: Asker = Asker.AGENT
    digest: str = ""
    # The name the asker gave itself (an MCP client's, from its handshake): shown on the
    # card, bound into the digest; untrusted text. Left out of the digest when None, so the
    # digests of cards made before it existed still hold.
    asker_name: str | None = None
    # The variables a launch takes from this machine (its secrets: HF_TOKEN), bound apart
    # from ``env_names`` so the card names them apart (issue 31); left out of the digest
    # when empty, as ``asker_name`` is.
    secret_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ActionKind(self.kind))
        object.__setattr__(self, "asked_by", Asker(self.asked_by))
        object.__setattr__(self, "targets", tuple(self.targets))
        object.__setattr__(self, "env_names", tuple(sorted(self.env_names)))
        object.__setattr__(self, "secret_names", tuple(sorted(self.secret_names)))
        if not self.digest:
            object.__setattr__(self, "digest", self.compute_digest())

    # -- the digest ---------------------------------------------------------------------------
    def body(self) -> dict[str, Any]:
        """Every field but the digest, as canonical JSON values."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "digest":
                continue
            value = getattr(self, f.name)
            if (f.name == "asker_name" and value is None) or (
                f.name == "secret_names" and not value
            ):
                continue
            if f.name == "targets":
                value = [t.to_json() for t in value]
            elif f.name in ("env_names", "secret_names"):
                value = list(value)
            elif isinstance(value, StrEnum):
                value = str(value)
            out[f.name] = value
        return out

    def compute_digest(self) -> str:
        text = json.dumps(self.body(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def verify_digest(self) -> None:
        if self.digest != self.compute_digest():
            raise ApprovalMismatch(
                said("error.approval.tampered"), hint=said("error.approval.ask_again_hint")
            )

    @property
    def card_id(self) -> str:
        return self.digest[:CARD_ID_LENGTH]

    # -- what it acts on ----------------------------------------------------------------------
    def of_kind(self, kind: str) -> tuple[Target, ...]:
        return tuple(t for t in self.targets if t.kind == kind)

    def ids(self, kind: str) -> list[int | str]:
        return [t.id for t in self.of_kind(kind)]

    def to_json(self) -> dict[str, Any]:
        return {**self.body(), "digest": self.digest, "card": self.card_id}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        """The stored form back, digest-checked: a changed field is refused."""
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        values["targets"] = tuple(Target.from_json(t) for t in values.get("targets") or ())
        values["env_names"] = tuple(values.get("env_names") or ())
        values["secret_names"] = tuple(values.get("secret_names") or ())
        action = cls(**values)
        action.verify_digest()
        return action

    def with_asker(self, asked_by: Asker) -> Action:
        return replace(self, asked_by=asked_by, digest="")

    def rows(self) -> list[tuple[str, Any]]:
        """What a card shows, as (field, value) rows: exactly the bound fields, whole."""
        out: list[tuple[str, Any]] = [("action", self.operation)]
        for kind in ("cluster", "node", "instance", "job"):
            found = self.of_kind(kind)
            if found:
                out.append((f"{kind}s", [t.shown() for t in found]))
        if self.command is not None:
            out.append(("command", self.command))
        if self.cwd is not None:
            out.append(("cwd", self.cwd))
        if self.env_names:
            out.append(("env", list(self.env_names)))
        if self.secret_names:
            out.append(("secrets", list(self.secret_names)))
        for key, value in sorted(self.inputs.items()):
            out.append((f"input.{key}", value))
        for key, value in sorted(self.price.items()):
            out.append((f"price.{key}", value))
        out.append(("asked_by", str(self.asked_by)))
        if self.asker_name is not None:
            out.append(("asker_name", self.asker_name))
        out.append(("card", self.card_id))
        return out


def matches_card(digest: str, card: str) -> bool:
    """Whether ``card`` (what a user typed) names the action with ``digest``."""
    typed = card.strip().lower()
    return len(typed) >= CARD_ID_MIN and bool(digest) and digest.startswith(typed)


# -- the check at run time ------------------------------------------------------------------
def compare(approved: Action, fresh: Action) -> None:
    """Raise :class:`ApprovalMismatch` (nothing done) when ``fresh``, the same request
    resolved again just before the effect, differs from what was approved."""
    approved.verify_digest()
    if approved.operation != fresh.operation or approved.kind != fresh.kind:
        raise _mismatch(said("error.approval.changed"))
    for kind in ("cluster", "job", "instance"):
        _compare_targets(kind, approved.of_kind(kind), fresh.of_kind(kind))
    if {t.id for t in approved.of_kind("node")} != {t.id for t in fresh.of_kind("node")}:
        clusters = ", ".join(t.name for t in approved.of_kind("cluster")) or "?"
        raise _mismatch(said("error.approval.nodes_changed", cluster=clusters))
    if (approved.command, approved.cwd, approved.env_names, approved.secret_names) != (
        fresh.command,
        fresh.cwd,
        fresh.env_names,
        fresh.secret_names,
    ):
        raise _mismatch(said("error.approval.command_changed"))
    if approved.inputs != fresh.inputs:
        raise _mismatch(said("error.approval.command_changed"))
    if approved.price != fresh.price:
        changed = sorted(
            k
            for k in set(approved.price) | set(fresh.price)
            if approved.price.get(k) != fresh.price.get(k)
        )
        raise _mismatch(said("error.approval.price_changed", fields=", ".join(changed)))
    if (approved.quote or {}).get("digest") != (fresh.quote or {}).get("digest"):
        raise _mismatch(said("error.approval.quote_changed"))


def _compare_targets(kind: str, approved: tuple[Target, ...], fresh: tuple[Target, ...]) -> None:
    before = {t.id: t for t in approved}
    now = {t.id: t for t in fresh}
    for target in fresh:
        if target.id in before:
            continue
        old = next((t for t in approved if t.name == target.name), None)
        if old is not None:
            raise _mismatch(
                said(
                    f"error.approval.{kind}_replaced",
                    name=target.name,
                    old=old.id,
                    new=target.id,
                )
            )
        raise _mismatch(said(f"error.approval.{kind}_new", name=target.name, id=target.id))
    for target in approved:
        if target.id not in now:
            raise _mismatch(said(f"error.approval.{kind}_gone", name=target.name, id=target.id))


def _mismatch(message: Said) -> ApprovalMismatch:
    return ApprovalMismatch(message, hint=said("error.approval.ask_again_hint"))


def gone(kind: str, name: str, ident: int | str) -> ApprovalMismatch:
    """The approved target cannot be found any more (released, ended, removed)."""
    return _mismatch(said(f"error.approval.{kind}_gone", name=name, id=ident))


# -- exec allowances ------------------------------------------------------------------------
def argv(command: str) -> list[str] | None:
    """``command`` split as a POSIX shell would split words, or None when it cannot be."""
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:
        return None


def has_metacharacter(text: str) -> bool:
    return any(ch in SHELL_METACHARACTERS for ch in text)


def check_prefix(prefix: str, command: str) -> list[str]:
    """The argv prefix a user chose for "remember" from the approved ``command``, or why not."""
    words = argv(prefix)
    if not words or has_metacharacter(prefix):
        raise UsageError(
            said("error.approval.prefix_unsafe", prefix=prefix),
            hint=said("error.approval.prefix_hint"),
        )
    full = argv(command)
    if full is None or full[: len(words)] != words:
        raise UsageError(
            said("error.approval.prefix_not_of", prefix=prefix, command=command),
            hint=said("error.approval.prefix_hint"),
        )
    return words


def allowance_covers(command: str | None, prefix: list[str] | None, wanted: str) -> bool:
    """Whether a remembered allowance (an exact ``command``, or an argv ``prefix``) covers
    running ``wanted``. A prefix never covers a command holding a shell metacharacter."""
    if command is not None:
        return wanted == command
    if not prefix:
        return False
    if has_metacharacter(wanted):
        return False
    words = argv(wanted)
    return words is not None and words[: len(prefix)] == list(prefix)
