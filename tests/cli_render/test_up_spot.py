"""Issue 32: `xyclaw up --plan P --option N --spot` rents a plan's option as spot, after a
quote that says the saving and the risk (run as a user runs it, on the simulated cloud)."""

from __future__ import annotations

import json

from tests.cli_render.test_cli_language import PLAN, stop_the_simulated_cloud, xyclaw

__all__ = ["stop_the_simulated_cloud"]  # the fixture stops the cloud after the test


def test_up_with_spot_quotes_the_saving_and_the_risk_then_rents_spot() -> None:
    plan = json.loads(xyclaw(*PLAN, "--json").stdout)
    option = plan["options"][0]
    assert option["spot_cost_micro"] < option["cost_micro"]

    refused = xyclaw("up", "--plan", "1", "--option", "1", "--spot")  # no terminal, no --yes
    assert refused.returncode != 0
    assert "an hour less than on demand (-65%)" in refused.stderr  # the saving
    assert "may take it back with a short notice" in refused.stderr  # the risk

    up = xyclaw("up", "--plan", "1", "--option", "1", "--spot", "--yes", "--json")
    assert up.returncode == 0, up.stderr
    cluster = json.loads(up.stdout)
    assert cluster["price_per_gpu_hour"] == round(option["price_micro"] * 0.35) / 1e6
