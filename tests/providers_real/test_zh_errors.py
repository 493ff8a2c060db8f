"""The real clouds' errors in the user's language (issue 35, c35p): each provider's refusals,
missing keys, empty stock and untrustworthy listings, driven through the loopback fakes, read
in Chinese with no run of three English words (names, commands and what the provider itself
answered excepted), while the English stays what it was, word for word."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.foundation.test_cli_chinese import english_runs
from tests.providers_real.conftest import APP_KEY, MakeAutoDL, MakeLambda, MakeRunPod
from tests.providers_real.fake_lambda import LambdaSettings
from tests.providers_real.fake_runpod import FakeRunPod
from tests.providers_real.fakehttp import FakeServer
from tests.providers_real.test_vastai import MakeVast, make_vast  # noqa: F401 (a fixture)
from xyclaw.catalog import Offer
from xyclaw.errors import CapacityError, ConfigError, ProviderStateUnknownError, XyclawError
from xyclaw.paths import AppPaths
from xyclaw.providers import ClusterOrder
from xyclaw.providers.autodl import AutoDLProvider
from xyclaw.providers.cloud_api import UnsupportedRequestError
from xyclaw.providers.failover import Approval, fail_over
from xyclaw.providers.http_retry import ApiError
from xyclaw.providers.lambda_cloud import LambdaProvider
from xyclaw.providers.real import (
    AUTODL,
    LAMBDA,
    REAL_PROVIDERS,
    load_autodl_settings,
    not_configured,
)
from xyclaw.providers.runpod import RunPodProvider
from xyclaw.wording.catalogue import CATALOGUE

CJK = re.compile(r"[\u4e00-\u9fff]")
ROOT = Path(__file__).resolve().parents[2]


def chinese_of(exc: XyclawError, *quoted: str) -> str:
    """The error's message and hint in Chinese, checked: Chinese words, no English runs but
    ``quoted`` (what the provider itself answered), and the English forms unchanged by the
    wording (``message``/``hint`` are what they were)."""
    assert exc.said is not None, f"no Said: {exc.message!r}"
    assert exc.in_language("en") == (exc.message, exc.hint)
    message, hint = exc.in_language("zh")
    for text in (message, hint):
        if text is None:
            continue
        assert CJK.search(text), text
        ours = text
        for data in quoted:
            ours = ours.replace(data, " ")
        assert not english_runs(ours), (text, english_runs(ours))
    if exc.hint is not None:
        assert exc.hint_said is not None, f"an English-only hint: {exc.hint!r}"
    return f"{message}\n{hint or ''}"


def order(
    gpu: str, count: int, region: str | None = None, per_node: int | None = None
) -> ClusterOrder:
    return ClusterOrder(
        gpu=gpu,
        gpu_count=count,
        region=region,
        fabric=None,
        idempotency_key="xyclaw-zh-1",
        ssh_public_key=APP_KEY,
        gpus_per_node=per_node if per_node is not None else count,
    )


# -- Lambda Cloud ------------------------------------------------------------------------------
def test_lambda_refusals_read_in_chinese(make_lambda: MakeLambda) -> None:
    _, wrong = make_lambda(key="wrong-key-123456")
    with pytest.raises(ApiError) as bad_key:
        wrong.offers()
    assert (
        bad_key.value.message == "Lambda Cloud refused: API key was invalid, expired, or deleted."
    )
    text = chinese_of(bad_key.value, "API key was invalid, expired, or deleted.")
    assert "Lambda Cloud 拒绝了：API key was invalid" in text  # Lambda's words, as it said them
    assert "xyclaw secrets set lambda_api_key" in text and "wrong-key" not in text

    fake, provider = make_lambda(LambdaSettings(capacity={("gpu_8x_h100_sxm5", "us-east-1"): 0}))
    with pytest.raises(CapacityError) as full:
        provider.create(order("H100", 8, "us-east-1"))
    assert full.value.message == "Lambda has no gpu_8x_h100_sxm5 free in us-east-1"
    assert (full.value.hint or "").startswith("regions with capacity now: us-west-1")
    text = chinese_of(full.value)
    assert "Lambda 在 us-east-1 没有空闲的 gpu_8x_h100_sxm5" in text and "us-west-1" in text

    with pytest.raises(UnsupportedRequestError) as shape:
        provider.create(order("H100", 16, per_node=8))
    assert shape.value.message == "Lambda cannot rent 16 x H100 as 2 nodes"
    assert "single machines (1 to 8 GPUs)" in (shape.value.hint or "")
    assert "单台机器" in chinese_of(shape.value)

    fake.faults.fail_next.extend([502] * 10)
    with pytest.raises(XyclawError) as storm:
        provider.offers()
    assert re.fullmatch(
        r"the lambda provider answered HTTP 502 on GET http://\S+/instance-types after 6 attempts",
        storm.value.message,
    )
    assert "lambda 提供商在 GET" in chinese_of(storm.value)

    with pytest.raises(XyclawError) as missing:
        LambdaProvider("")
    assert missing.value.message == "no Lambda Cloud API key"
    assert "没有 Lambda Cloud 的 API key" in chinese_of(missing.value)


# -- AutoDL ------------------------------------------------------------------------------------
def test_autodl_refusals_read_in_chinese(make_autodl: MakeAutoDL, tmp_path: Path) -> None:
    _, wrong = make_autodl(token="not-the-token-987")
    with pytest.raises(ApiError) as bad_token:
        wrong.offers()
    assert bad_token.value.message.startswith("AutoDL refused (AuthorizeFailed): ")
    text = chinese_of(bad_token.value)
    assert "AutoDL 拒绝了（AuthorizeFailed）" in text and "企业认证" in text
    assert "not-the-token" not in text

    _, provider = make_autodl()
    with pytest.raises(CapacityError) as empty:
        provider.create(order("RTX 4090", 1, "neimengDC1"))
    assert (
        empty.value.message
        == "AutoDL has no 1 x RTX4090 idle in neimengDC1 (neimengDC1 has 0 idle)"
    )
    assert "（neimengDC1 有 0 张空闲）" in chinese_of(empty.value)
    with pytest.raises(UnsupportedRequestError) as hosts:
        provider.create(order("RTX 4090", 16, per_node=8))
    assert hosts.value.message == "AutoDL cannot rent 16 x RTX 4090 over several hosts"
    assert "AutoDL 无法跨多台主机租用 16 x RTX 4090" in chinese_of(hosts.value)

    settings = tmp_path / "autodl.toml"
    settings.write_text('regions = ["marsDC1"]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as bad_file:
        load_autodl_settings(settings)
    assert bad_file.value.message.startswith(f"{settings}: unknown regions marsDC1; known: ")
    assert "未知的区域 marsDC1" in chinese_of(bad_file.value)
    with pytest.raises(XyclawError) as missing:
        AutoDLProvider("")
    assert "没有 AutoDL 开发者 Token" in chinese_of(missing.value)


# -- Vast.ai -----------------------------------------------------------------------------------
def test_vastai_refusals_read_in_chinese(make_vast: MakeVast) -> None:  # noqa: F811
    _, wrong = make_vast(key="wrong")
    with pytest.raises(ApiError) as bad_key:
        wrong.offers()
    assert bad_key.value.message.startswith("Vast.ai did not accept the API key (")
    assert "Vast.ai 不接受这个 API key" in chinese_of(bad_key.value)

    fake, provider = make_vast()
    with fake.lock:
        fake.offers = [o for o in fake.offers if o["gpu_name"] != "H100 SXM"]
    with pytest.raises(CapacityError) as none:
        provider.create(order("H100", 1))
    assert none.value.message == "Vast.ai has no 1 x H100 offer with a direct SSH port"
    assert none.value.hint == "`xyclaw offers --provider vastai` lists what is free now"
    assert "Vast.ai 没有带直连 SSH 端口的 1 x H100 报价" in chinese_of(none.value)


@pytest.mark.parametrize(
    ("mode", "english", "chinese"),
    [
        ("410", "with 410 (a deprecated endpoint)", "返回了 410（接口已弃用）"),
        ("success-false", "with success: false (", "返回了 success: false（"),
        ("renamed", "with an instance lacking id or actual_status", "缺少 id 或 actual_status"),
    ],
)
def test_a_vastai_listing_in_doubt_reads_in_chinese(
    make_vast: MakeVast,  # noqa: F811
    mode: str,
    english: str,
    chinese: str,
) -> None:
    fake, provider = make_vast()
    provider.create(order("H100", 1))
    fake.listing_mode = mode
    with pytest.raises(ProviderStateUnknownError) as unknown:
        provider.clusters()
    assert unknown.value.message.startswith(f"Vast.ai answered the instance listing {english}")
    assert unknown.value.message.endswith(
        ": the state of its instances is unknown, so XyClaw keeps them as last seen and keeps "
        "metering them"
    )
    text = chinese_of(unknown.value)
    assert chinese in text and "实例状态未知" in text and "继续计费" in text


# -- RunPod ------------------------------------------------------------------------------------
def test_runpod_refusals_read_in_chinese(make_runpod: MakeRunPod) -> None:
    _, wrong = make_runpod(key="wrong")
    with pytest.raises(ApiError) as bad_key:
        wrong.offers()
    assert bad_key.value.message.startswith("RunPod did not accept the API key (")
    assert (
        bad_key.value.hint == "create a key at https://www.runpod.io/console/user/settings "
        "(API Keys) and store it with `xyclaw secrets set runpod_api_key`"
    )
    assert "RunPod 不接受这个 API key" in chinese_of(bad_key.value)

    fake, provider = make_runpod()
    with pytest.raises(CapacityError) as none:
        provider.create(order("A40", 1))
    assert none.value.message == "RunPod has no 1 x A40 in stock"
    assert "RunPod 没有 1 x A40 的库存" in chinese_of(none.value)
    with pytest.raises(UnsupportedRequestError) as pods:
        provider.create(order("H100", 80, per_node=8))
    assert pods.value.message == "RunPod Instant Clusters have 2 to 8 pods, not 10"
    assert "不能是 10 个" in chinese_of(pods.value)
    # More GPUs per node than asked for: a refusal, no longer a KeyError (RunPod has no
    # multi-node reason to look up).
    with pytest.raises(UnsupportedRequestError) as odd:
        provider.create(order("RTX 4090", 1, per_node=8))
    assert odd.value.message == "RunPod cannot rent 1 x RTX 4090 over several pods"
    chinese_of(odd.value)

    fake.listing_mode = "410"
    with pytest.raises(ProviderStateUnknownError) as unknown:
        provider.clusters()
    assert unknown.value.message.startswith("RunPod answered the ")
    assert "listing with HTTP 410: the state of its pods is unknown" in unknown.value.message
    assert "返回了 HTTP 410：pod 状态未知" in chinese_of(unknown.value)
    with pytest.raises(XyclawError) as missing:
        RunPodProvider("")
    assert "没有 RunPod 的 API key" in chinese_of(missing.value)


# -- what the four share -----------------------------------------------------------------------
def test_a_failover_story_words_the_providers_refusal(make_lambda: MakeLambda) -> None:
    """Failover stops at a refused key: its story (the card's and the CLI's line) carries
    Lambda's refusal in the user's language, Lambda's own words quoted."""
    _, wrong = make_lambda(key="wrong-key-123456")
    lam = Offer(
        provider="lambda",
        offer_id="gpu_8x_h100_sxm5@us-east-1",
        region="us-east-1",
        gpu="H100",
        gpus_per_node=8,
        node_counts=(1,),
        fabric="none",
        price_micro=2_990_000,
        currency="USD",
    )
    approval = Approval(gpu_count=8, max_price_per_gpu_hour_micros=3_000_000, currency="USD")
    result = fail_over([lam], lambda o: wrong.create(order("H100", 8, o.region)), approval=approval)
    assert result.error is not None and not result.created
    assert "failed: Lambda Cloud refused: API key was invalid" in result.story()
    story = result.story_said().in_language("zh")
    assert "失败：Lambda Cloud 拒绝了：API key was invalid" in story and "已停止" in story


def test_not_configured_says_which_account_in_chinese() -> None:
    for provider in REAL_PROVIDERS:
        error = not_configured(provider)
        assert error.message == (
            f"{provider.title} is not configured: no {provider.secret} in the secret store"
        )
        assert error.hint == (
            f"run `xyclaw secrets set {provider.secret}` (it needs {provider.account})"
        )
        chinese_of(error)
    assert "经过企业认证的 AutoDL 账户" in (not_configured(AUTODL).in_language("zh")[1] or "")
    assert "付款方式" in (not_configured(LAMBDA).in_language("zh")[1] or "")


def test_every_provider_entry_is_chinese() -> None:
    """Every entry the providers say, in Chinese: no run of English words, and Chinese in
    each that has words at all (not ``pod``, a name, nor ``{first}; {rest}``)."""
    entries = {k: v for k, v in CATALOGUE.items() if k.startswith("provider.")}
    assert len(entries) > 150
    for key, (english, chinese) in entries.items():
        assert not english_runs(chinese), (key, english_runs(chinese))
        words = re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}", "", english))
        if words and key != "provider.runpod.listing.pod":
            assert CJK.search(chinese), key


# -- the command line --------------------------------------------------------------------------
def test_offers_with_a_bad_key_prints_the_error_in_chinese(xyclaw_home: Path) -> None:
    """`xyclaw offers --provider runpod` with a key RunPod refuses, `[gui] language = "zh_CN"`:
    the error and what to do, in Chinese, no traceback; in English, as before. `xyclaw
    providers` says the same in its table."""
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    runpod = FakeRunPod()
    server = FakeServer(runpod).start()
    env = {
        "XYCLAW_RUNPOD_API_URL": f"{server.url}/v1",
        "XYCLAW_RUNPOD_GRAPHQL_URL": f"{server.url}/graphql",
    }
    try:
        run = _xyclaw("secrets", "set", "runpod_api_key", stdin="wrong-runpod-key\n")
        assert run.returncode == 0, run.stderr
        english = _xyclaw("offers", "--provider", "runpod", env=env)
        assert english.returncode != 0 and "Traceback" not in english.stderr
        assert "RunPod did not accept the API key (" in english.stderr
        assert "xyclaw secrets set runpod_api_key" in english.stderr
        config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
        chinese = _xyclaw("offers", "--provider", "runpod", env=env)
        listed = _xyclaw("providers", env=env)  # the table's detail: the provider's error
    finally:
        server.stop()
    assert chinese.returncode == english.returncode and "Traceback" not in chinese.stderr
    assert "RunPod 不接受这个 API key" in chinese.stderr, chinese.stderr
    assert "再用 `xyclaw secrets set runpod_api_key` 保存" in chinese.stderr
    assert not english_runs(chinese.stdout + chinese.stderr), chinese.stderr
    assert "wrong-runpod-key" not in chinese.stdout + chinese.stderr
    [row] = [line for line in listed.stdout.splitlines() if line.startswith("runpod ")]
    assert "RunPod 不接受这个 API key" in row, listed.stdout


def _xyclaw(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_offers_left_out_are_said_in_chinese(xyclaw_home: Path) -> None:
    """`xyclaw offers --provider vastai`: the host it leaves out (no SSH port) and why, in the
    setting's language; the English line as before."""
    from tests.providers_real.fake_vast import KEY as VAST_KEY
    from tests.providers_real.fake_vast import FakeVast

    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    server = FakeServer(FakeVast()).start()
    env = {"XYCLAW_VASTAI_API_URL": server.url}
    try:
        assert _xyclaw("secrets", "set", "vastai_api_key", stdin=VAST_KEY + "\n").returncode == 0
        english = _xyclaw("offers", "--provider", "vastai", env=env)
        config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
        chinese = _xyclaw("offers", "--provider", "vastai", env=env)
    finally:
        server.stop()
    assert english.returncode == 0 == chinese.returncode, english.stderr + chinese.stderr
    assert (
        "left out: vastai offer 104: no direct port: XyClaw cannot reach SSH on it"
        in english.stdout.splitlines()
    )
    assert "已略去：vastai 的报价 104：没有直连端口：XyClaw 连不上它的 SSH" in chinese.stdout
    assert not [line for line in chinese.stdout.splitlines() if line.startswith("left out")]
