"""`xyclaw secrets` and `xyclaw providers`, run as a user would, against the fake clouds."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.providers_real.fake_autodl import FakeAutoDL
from tests.providers_real.fake_lambda import FakeLambda
from tests.providers_real.fakehttp import FakeServer
from xyclaw.paths import AppPaths

ROOT = Path(__file__).resolve().parents[2]


def xyclaw(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_secrets_are_stored_listed_and_removed_without_being_shown() -> None:
    done = xyclaw("secrets", "set", "lambda_api_key", stdin="lam-0123456789\n")
    assert done.returncode == 0, done.stderr
    assert "stored lambda_api_key" in done.stdout and "lam-0123456789" not in done.stdout
    listed = json.loads(xyclaw("secrets", "list", "--json").stdout)
    assert {
        "name": "lambda_api_key",
        "for": "Lambda Cloud (lambda provider)",
        "set": True,
    } in listed
    assert {"name": "autodl_token", "for": "AutoDL (autodl provider)", "set": False} in listed
    secrets_file = AppPaths.from_environment().secrets_file
    assert stat.S_IMODE(secrets_file.stat().st_mode) == 0o600
    assert json.loads(secrets_file.read_text())["lambda_api_key"] == "lam-0123456789"
    assert xyclaw("secrets", "delete", "lambda_api_key").returncode == 0
    listed = json.loads(xyclaw("secrets", "list", "--json").stdout)
    assert {
        "name": "lambda_api_key",
        "for": "Lambda Cloud (lambda provider)",
        "set": False,
    } in listed
    empty = xyclaw("secrets", "set", "autodl_token", stdin="\n")
    assert (
        empty.returncode != 0 and "empty secret" in empty.stderr and "Traceback" not in empty.stderr
    )
    bad = xyclaw("secrets", "set", "no spaces allowed", stdin="x\n")
    assert bad.returncode == 2 and "not a secret name" in bad.stderr


def test_providers_says_what_is_configured_and_what_answers() -> None:
    lam, adl = FakeLambda(), FakeAutoDL()
    servers = [FakeServer(lam).start(), FakeServer(adl).start()]
    env = {
        "XYCLAW_LAMBDA_API_URL": f"{servers[0].url}/api/v1",
        "XYCLAW_AUTODL_API_URL": servers[1].url,
    }
    try:
        before = xyclaw("providers", "--json", env=env)
        assert before.returncode == 0, before.stderr
        lines = {line["name"]: line for line in json.loads(before.stdout)}
        assert set(lines) >= {"sim", "ssh", "local", "lambda", "autodl"}
        assert lines["lambda"]["configured"] is False and lines["lambda"]["reachable"] is None
        assert "xyclaw secrets set lambda_api_key" in lines["lambda"]["setup"]
        assert "enterprise-verified" in lines["autodl"]["setup"]
        assert lines["sim"]["reachable"] is None  # not started just to be looked at

        xyclaw("secrets", "set", "lambda_api_key", stdin=lam.settings.api_key + "\n")
        xyclaw("secrets", "set", "autodl_token", stdin="not-the-token-42\n")
        after = xyclaw("providers", "--json", env=env)
        lines = {line["name"]: line for line in json.loads(after.stdout)}
        assert lines["lambda"]["configured"] and lines["lambda"]["reachable"] is True
        assert (
            lines["lambda"]["detail"].endswith("offer(s)")
            and lines["lambda"]["detail"] != "0 offer(s)"
        )
        assert lines["autodl"]["configured"] and lines["autodl"]["reachable"] is False
        assert "AuthorizeFailed" in lines["autodl"]["detail"]
        assert after.returncode == 1  # one provider does not answer
        for secret in (lam.settings.api_key, "not-the-token-42"):
            assert secret not in after.stdout and secret not in after.stderr

        table = xyclaw("providers", "--no-check", env=env)
        assert table.returncode == 0
        assert any(line.split()[:2] == ["lambda", "yes"] for line in table.stdout.splitlines())
        assert lam.requests_to("GET", "/api/v1/instance-types")  # asked only when checking
    finally:
        for server in servers:
            server.stop()


def test_vastai_and_runpod_keys_are_set_with_xyclaw_secrets_and_used() -> None:
    from tests.providers_real.fake_runpod import KEY as RUNPOD_KEY
    from tests.providers_real.fake_runpod import FakeRunPod
    from tests.providers_real.fake_vast import KEY as VAST_KEY
    from tests.providers_real.fake_vast import FakeVast

    vast, runpod = FakeVast(), FakeRunPod()
    servers = [FakeServer(vast).start(), FakeServer(runpod).start()]
    env = {
        "XYCLAW_VASTAI_API_URL": servers[0].url,
        "XYCLAW_RUNPOD_API_URL": f"{servers[1].url}/v1",
        "XYCLAW_RUNPOD_GRAPHQL_URL": f"{servers[1].url}/graphql",
    }
    try:
        assert xyclaw("secrets", "set", "vastai_api_key", stdin=VAST_KEY + "\n").returncode == 0
        assert (
            xyclaw("secrets", "set", "runpod_api_key", stdin="wrong-runpod-key\n").returncode == 0
        )
        done = xyclaw("providers", "--json", env=env)
        lines = {line["name"]: line for line in json.loads(done.stdout)}
        assert lines["vastai"]["reachable"] is True and lines["vastai"]["detail"] == "4 offer(s)"
        assert lines["runpod"]["reachable"] is False
        assert "did not accept the API key" in lines["runpod"]["detail"]
        assert VAST_KEY not in done.stdout + done.stderr
        offers = xyclaw("offers", "--provider", "vastai", env=env)
        assert offers.returncode == 0, offers.stderr
        assert "left out: vastai offer 104: no direct port" in offers.stdout
        listed = json.loads(xyclaw("offers", "--provider", "vastai", "--json", env=env).stdout)
        community = next(o for o in listed if o["offer_id"] == "103")
        assert community["community"] is True
        assert community["host"].startswith("community host, reliability 0.97")
        assert "wrong-runpod-key" not in done.stdout + done.stderr
        assert xyclaw("secrets", "set", "runpod_api_key", stdin=RUNPOD_KEY + "\n").returncode == 0
        again = xyclaw("providers", "--json", env=env)
        lines = {line["name"]: line for line in json.loads(again.stdout)}
        assert lines["runpod"]["reachable"] is True
    finally:
        for server in servers:
            server.stop()
