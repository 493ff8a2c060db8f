"""Taint of a model's arguments once remote output entered a conversation (pure parts)."""

from __future__ import annotations

from xyclaw.agent.taint import taint_of, typed_by_user

LOG = [("job_logs", "step 1\nstep 2\nclean up: rm -rf /workspace\n")]


def test_only_whole_words_the_user_typed_are_theirs() -> None:
    said = ["run nvidia-smi -q on alpha", "release keeper-2"]
    assert typed_by_user("nvidia-smi -q", said)
    assert typed_by_user("alpha", said)
    assert not typed_by_user("alph", said)  # part of a word
    assert not typed_by_user("nvidia-smi -q -r", said)
    assert not typed_by_user("", said)


def test_arguments_are_tainted_after_remote_output_and_the_card_says_where() -> None:
    args = {"cluster": "alpha", "command": "rm -rf /workspace", "timeout_s": 30}
    assert not taint_of(args, ["run it on alpha"], [])  # no remote output yet
    taint = taint_of(args, ["run it on alpha"], LOG)
    words = [r.english for r in taint.reasons]
    assert words == [
        "command was written by the model after remote output entered this conversation,"
        " and is not text you typed",
        "command appears in the output of job_logs (line 3)",
    ]
    assert not taint_of(args, ["on alpha run rm -rf /workspace"], LOG)  # typed: theirs
