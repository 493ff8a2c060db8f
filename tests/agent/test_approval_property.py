"""A property of bound approvals, with two real processes answering cards of one data folder.

For random sequences of release cards (by name or "all"), rentals and releases that reuse the
same names, and yeses from this process, from a second one, or from both at once: nothing is
released that a shown card did not name by id and digest, and no yes is used twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import Decision, Effect, SuggestedAction
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.errors import UsageError
from xyclaw.store import conversations as conv

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("alpha", "keeper", "gamma")

STEP = st.one_of(
    st.tuples(st.just("card"), st.sampled_from(("alpha", "keeper", "all"))),
    st.tuples(st.just("rent_card"), st.sampled_from((1, 2))),
    st.tuples(st.just("rent"), st.sampled_from(NAMES)),
    st.tuples(st.just("release"), st.sampled_from(NAMES)),
    st.tuples(
        st.just("answer"),
        st.sampled_from(("main", "peer", "both", "both")),
        st.sampled_from(("current", "current", "stale")),
    ),
)


class Peer:
    """The second process: answers a card by its id when asked."""

    def __init__(self, world: World) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.agent.approval_peer",
                world.server.url,
                world.server.cloud.token,
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ},
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "READY"

    def approve(self, cid: int, card: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"cid": cid, "card": card}) + "\n")
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(30)


@pytest.mark.timeout(300)
def test_nothing_is_released_that_a_shown_card_did_not_name_and_no_yes_is_used_twice(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()  # the rules brain
    peer = Peer(world)
    shown: dict[str, set[int]] = {}  # every card shown: digest -> the cluster ids it named
    by_test: set[int] = set()  # clusters this test released itself
    rented_by_test: set[int] = set()  # clusters this test rented itself

    def live(name: str) -> Any:
        return next((c for c in world.engine.clusters() if c.name == name), None)

    def yes_from_main(cid: int, card: str) -> None:
        # another card waits, or none: refused, nothing done
        with contextlib.suppress(UsageError):
            rt.answer(cid, Decision("approve", digest=card, by="main"), Events())

    @settings(
        max_examples=5,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: the failing steps are shown
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(STEP, min_size=2, max_size=6))
    def run(steps: list[tuple[str, ...]]) -> None:
        cid = rt.new_conversation()
        cards: list[str] = []
        for step in steps:
            if step[0] in ("card", "rent_card"):
                action = (
                    SuggestedAction(
                        f"release {step[1]}",
                        "release_cluster",
                        {"cluster": step[1]},
                        Effect.DESTROY,
                    )
                    if step[0] == "card"
                    else SuggestedAction(
                        f"rent {step[1]} A10",
                        "create_cluster",
                        {"gpu": "A10", "gpus": step[1]},
                        Effect.SPEND,
                    )
                )
                card = rt.run_action(cid, action, Events()).pending_approval
                if card is not None:
                    ids = {t["id"] for t in card.action["targets"] if t["kind"] == "cluster"}
                    shown[card.digest] = ids
                    cards.append(card.card_id)
            elif step[0] == "rent" and live(step[1]) is None:
                request = UpRequest(provider="sim", gpu="A10", gpu_count=1, name=step[1])
                rented_by_test.add(
                    world.engine.up(world.engine.quote_request(request)).result(120).id
                )
            elif step[0] == "release" and (cluster := live(step[1])) is not None:
                world.engine.down(str(cluster.id)).result(120)
                by_test.add(cluster.id)
            elif step[0] == "answer" and cards:
                waiting = rt.pending_approval(cid)
                card = waiting.card_id if step[2] == "current" and waiting else cards[0]
                if step[1] == "main":
                    yes_from_main(cid, card)
                elif step[1] == "peer":
                    peer.approve(cid, card)
                else:  # both at once, for the same card
                    mine = threading.Thread(target=yes_from_main, args=(cid, card))
                    mine.start()
                    peer.approve(cid, card)
                    mine.join(120)
        check()

    def check() -> None:
        rents = [
            r
            for r in conv.list_tool_calls(rt.store)
            if r["tool"] == "create_cluster" and r["decision"] == "approve"
        ]
        assert all(r["digest"] in shown for r in rents), "a rental no card showed"
        done = [r["result"]["cluster"]["id"] for r in rents if r["status"] == "done"]
        ever = {c.id for c in world.engine.clusters(include_released=True)}
        # every cluster not rented by the test came from exactly one yes to one rent card
        assert sorted(ever - rented_by_test) == sorted(done), "a rent card rented twice"
        rows = [r for r in conv.list_tool_calls(rt.store) if r["tool"] == "release_cluster"]
        acted = [r for r in rows if r["decision"] == "approve"]
        assert all(r["status"] != "running" for r in rows)
        digests = [r["digest"] for r in acted]
        assert len(digests) == len(set(digests)), "a yes was used twice"
        released_by_cards: set[int] = set()
        for row in acted:
            assert row["digest"] in shown, "a release no card showed"
            if row["status"] == "done":
                ids = {c["id"] for c in row["result"]["released"]}
                assert ids == shown[row["digest"]], "released other clusters than the card named"
                released_by_cards |= ids
        gone = {c.id for c in world.engine.clusters(include_released=True) if not c.live}
        assert gone <= by_test | released_by_cards

    try:
        run()
    finally:
        peer.close()
