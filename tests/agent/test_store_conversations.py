"""The agents' history tables through the store's named functions (a real SQLite file)."""

from __future__ import annotations

from pathlib import Path

from xyclaw.store import Store
from xyclaw.store import conversations as conv


def test_conversation_messages_usage_and_search(tmp_path: Path) -> None:
    with Store(tmp_path / "h.db") as store:
        cid = conv.create_conversation(store, "LoRA 13B", brain="rules", now=100.0)
        other = conv.create_conversation(store, "other", brain="rules", now=101.0)
        conv.add_message(store, cid, "user", "plan a lora finetune", now=102.0)
        conv.add_message(
            store,
            cid,
            "assistant",
            "three options",
            agent="planner",
            reasoning="thinking",
            tokens_in=120,
            tokens_out=30,
            cost_micros=45,
            now=103.0,
        )
        info = conv.get_conversation(store, cid)
        assert info is not None
        assert (info["tokens_in"], info["tokens_out"], info["cost_micros"]) == (120, 30, 45)
        assert info["updated_at"] == 103.0
        assert [c["id"] for c in conv.list_conversations(store)] == [cid, other]
        assert [c["id"] for c in conv.list_conversations(store, search="LORA FINE")] == [cid]
        msgs = conv.list_messages(store, cid)
        assert [m["role"] for m in msgs] == ["user", "assistant"]
        assert msgs[1]["reasoning"] == "thinking" and msgs[1]["agent"] == "planner"
        assert conv.usage_since(store, 102.5)["tokens_in"] == 120
        assert conv.usage_since(store, 104.0)["tokens_in"] == 0


def test_tool_call_upsert_is_one_row_per_call(tmp_path: Path) -> None:
    with Store(tmp_path / "h.db") as store:
        cid = conv.create_conversation(store, "t", brain="rules")
        first = conv.upsert_tool_call(
            store,
            cid,
            "call_1",
            agent="provisioner",
            tool="create_cluster",
            effect="spend",
            args={"plan_id": 1, "option": 2},
            status="pending_approval",
        )
        again = conv.upsert_tool_call(
            store, cid, "call_1", status="approved", decision="approve", decided_by="user"
        )
        assert first == again
        conv.upsert_tool_call(
            store,
            cid,
            "call_1",
            status="done",
            duration_s=1.5,
            summary="rented",
            result={"cluster": "c1"},
        )
        rows = conv.list_tool_calls(store, cid)
        assert len(rows) == 1
        row = rows[0]
        assert row["args"] == {"plan_id": 1, "option": 2}
        assert (row["status"], row["decision"], row["decided_by"]) == ("done", "approve", "user")
        assert row["result"] == {"cluster": "c1"} and row["duration_s"] == 1.5


def test_allowances_are_listed_and_revoked(tmp_path: Path) -> None:
    with Store(tmp_path / "h.db") as store:
        cid = conv.create_conversation(store, "t", brain="rules")
        aid = conv.add_allowance(store, cid, "c-7", "tune", cluster_id=7)
        assert conv.add_allowance(store, cid, "c-7", "tune", cluster_id=7) == aid
        exact = conv.add_allowance(store, cid, "c-7", "run_command", cluster_id=7, command="ls")
        words = conv.add_allowance(
            store, cid, "c-7", "run_command", cluster_id=7, prefix=["nvidia-smi"]
        )
        assert len({aid, exact, words}) == 3
        [tune] = conv.allowances_for(store, cid, 7, "tune")
        assert (tune["command"], tune["prefix"]) == (None, None)
        runs = conv.allowances_for(store, cid, 7, "run_command")
        assert [(r["command"], r["prefix"]) for r in runs] == [("ls", None), (None, ["nvidia-smi"])]
        # bound to the cluster's id: another cluster of the same name has none
        assert conv.allowances_for(store, cid, 8, "tune") == []
        assert [a["id"] for a in conv.list_allowances(store)] == [aid, exact, words]
        for allowance in (aid, exact, words):
            assert conv.revoke_allowance(store, allowance)
        assert conv.allowances_for(store, cid, 7, "tune") == []
        assert conv.list_allowances(store) == []
        assert conv.delete_conversation(store, cid)
        assert conv.get_conversation(store, cid) is None
