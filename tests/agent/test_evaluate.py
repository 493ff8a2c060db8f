"""The scenario scorer the agent bench uses, with the rules brain and a scripted model."""

from __future__ import annotations

from tests.agent import fake_llm as f
from xyclaw.agent.evaluate import llm_brain_from_env, run_scenario
from xyclaw.agent.rules_brain import RulesBrain


def test_rules_brain_scenarios_in_both_languages() -> None:
    brain = RulesBrain()
    ok = run_scenario(brain, "how much did I spend this month?", "cost", {"period": "month"})
    assert ok.ok and ok.agent == "historian" and ok.tokens_in == 0
    zh = run_scenario(brain, "上个月的训练花了多少钱", "cost", {"period": "last_month"})
    assert zh.ok, zh.problems
    wrong = run_scenario(brain, "tell me a joke", "release_cluster")
    assert not wrong.ok and wrong.problems == ["called no tool, expected release_cluster"]


def test_the_llm_path_scores_a_scripted_model_and_counts_its_tokens() -> None:
    args = {"task": "finetune-lora", "model_params": 13e9, "gpus": 8}
    with f.FakeLLM([f.call("plan", args)], router=lambda body: "planner") as llm:
        env = {
            "XYCLAW_EVAL_BASE_URL": llm.base_url,
            "XYCLAW_EVAL_MODEL": "fake-model",
            "XYCLAW_EVAL_API_KEY": f.API_KEY,
        }
        brain = llm_brain_from_env(env)
        assert brain is not None
        outcome = run_scenario(
            brain, "LoRA 13B on 8 GPUs", "plan", {"task": "finetune-lora", "model_params": 13e9}
        )
    assert outcome.ok, outcome.problems
    assert outcome.tokens_in == 100 and outcome.tokens_out > 0
    assert llm_brain_from_env({}) is None
