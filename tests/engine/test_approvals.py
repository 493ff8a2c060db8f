"""The Action and its digest, the comparison at run time, and exec allowances (pure parts)."""

from __future__ import annotations

import dataclasses

import pytest

from xyclaw.engine.approvals import (
    Action,
    ApprovalMismatch,
    Target,
    allowance_covers,
    check_prefix,
    compare,
    matches_card,
)
from xyclaw.errors import UsageError

ALPHA = Target("cluster", 3, "alpha")
GAMMA = Target("cluster", 5, "gamma")


def release(*targets: Target) -> Action:
    return Action("release", "destroy", "all", targets)


def test_the_digest_covers_every_field_and_a_changed_one_is_refused() -> None:
    action = Action(
        "exec",
        "exec",
        "alpha",
        (ALPHA, Target("node", 7, "alpha-0", within=3)),
        command="nvidia-smi -L",
        env_names=("B", "A"),
        asked_by="agent",
    )
    assert Action.from_json(action.to_json()) == action
    assert action.card_id == action.digest[:8] and matches_card(action.digest, action.card_id)
    assert not matches_card(action.digest, action.digest[:5])  # too short to name a card
    for change in (
        {"command": "nvidia-smi -r"},
        {"targets": (GAMMA,)},
        {"asked_by": "suggestion"},
        {"env_names": ("A",)},
    ):
        forged = {**action.to_json(), **dataclasses.asdict(dataclasses.replace(action, **change))}
        forged["digest"] = action.digest
        forged["targets"] = [t if isinstance(t, dict) else t.to_json() for t in forged["targets"]]
        with pytest.raises(ApprovalMismatch, match="changed after it was shown"):
            Action.from_json(forged)


def test_compare_words_each_difference_and_passes_only_the_same() -> None:
    compare(release(ALPHA), release(ALPHA))
    with pytest.raises(ApprovalMismatch, match="gamma was rented after you approved: ask again"):
        compare(release(ALPHA), release(ALPHA, GAMMA))
    with pytest.raises(ApprovalMismatch, match="keeper is now cluster id 7, not the id 6"):
        compare(release(Target("cluster", 6, "keeper")), release(Target("cluster", 7, "keeper")))
    with pytest.raises(ApprovalMismatch, match=r"alpha \(id 3\) is no longer live"):
        compare(release(ALPHA, GAMMA), release(GAMMA))
    job = Action("cancel_job", "destroy", "train", (Target("job", 9, "train"),))
    again = Action("cancel_job", "destroy", "train", (Target("job", 12, "train"),))
    with pytest.raises(ApprovalMismatch, match="job train is now id 12, not the id 9"):
        compare(job, again)
    ran = Action("exec", "exec", "alpha", (ALPHA,), command="ls")
    with pytest.raises(ApprovalMismatch, match="command"):
        compare(ran, dataclasses.replace(ran, command="ls; rm -rf /", digest=""))


@pytest.mark.parametrize(
    ("command", "covered"),
    [
        ("nvidia-smi", True),
        ("nvidia-smi -q -d MEMORY", True),
        ("nvidia-smi; rm -rf /workspace", False),
        ("nvidia-smi | sh", False),
        ("nvidia-smi && touch /root/x", False),
        ('nvidia-smi "$(rm -rf /)"', False),
        ("nvidia-smi `id`", False),
        ("nvidia-smi > /etc/passwd", False),
        ("nvidia-smi < /dev/zero", False),
        ("nvidia-smi\nrm -rf /", False),
        ("nvidia-smix", False),
        ("rm -rf / nvidia-smi", False),
        ("nvidia-smi 'unterminated", False),
    ],
)
def test_an_argv_prefix_never_covers_more_than_plain_words_after_it(
    command: str, covered: bool
) -> None:
    assert allowance_covers(None, ["nvidia-smi"], command) is covered


def test_an_exact_allowance_is_the_exact_bytes_and_prefixes_are_checked() -> None:
    assert allowance_covers("ls -l", None, "ls -l")
    assert not allowance_covers("ls -l", None, "ls -l ")
    assert not allowance_covers(None, None, "ls")
    assert check_prefix("nvidia-smi -q", "nvidia-smi -q -d MEMORY") == ["nvidia-smi", "-q"]
    with pytest.raises(UsageError, match="is not how the approved command"):
        check_prefix("nvidia-smi -r", "nvidia-smi -q")
    with pytest.raises(UsageError, match="holds a shell character"):
        check_prefix("nvidia-smi;", "nvidia-smi; ls")


def test_secrets_are_bound_apart_and_old_cards_keep_their_digest() -> None:
    """Issue 31: a launch's secrets are bound apart from its plain variables, so the card
    names them apart and one more secret needs a new yes; a card with no secrets has the
    digest it had before the field existed (cards asked before an upgrade still verify)."""
    plain = Action("launch", "exec", None, (ALPHA,), command="python t.py", env_names=("EPOCHS",))
    assert "secret_names" not in plain.body()
    asks = dataclasses.replace(plain, secret_names=("HF_TOKEN",), digest="")
    assert asks.digest != plain.digest
    assert ("secrets", ["HF_TOKEN"]) in asks.rows() and ("env", ["EPOCHS"]) in asks.rows()
    assert Action.from_json(asks.to_json()) == asks
    more = dataclasses.replace(asks, secret_names=("HF_TOKEN", "AWS_SECRET_ACCESS_KEY"), digest="")
    with pytest.raises(ApprovalMismatch, match="command"):
        compare(asks, more)
    forged = {**asks.to_json(), "secret_names": ["HF_TOKEN", "AWS_SECRET_ACCESS_KEY"]}
    with pytest.raises(ApprovalMismatch, match="changed after it was shown"):
        Action.from_json(forged)
