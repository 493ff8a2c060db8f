"""The rules brain's reply after a tool ran: a plan as a Markdown table, "Rented ...", a cost total.

:func:`summarize` takes what a tool returned: an Engine object (anything with
``to_json()``, a dataclass), its JSON form (dicts and lists), or an exception,
and words it in the request's language. Money may come as a display number
(``cost``, ``price_per_gpu_hour``) or as integer micro-units (``..._micros``);
times as UTC epoch seconds. Output from remote machines (command output, logs)
is shown in a fenced block and labelled as such, never as the brain's words.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from xyclaw.agent.rules.texts import pick, reason_text
from xyclaw.wording import Said

MAX_ROWS = 10
MAX_LOG_LINES = 40
MAX_LOG_CHARS = 6000
MAX_COMMAND_LINES = 12


def _state(language: str, value: Any) -> Any:
    """A cluster's, node's or job's state as a reply names it: in Chinese in a Chinese one."""
    if language != "zh" or not isinstance(value, str):
        return value
    from xyclaw.wording.catalogue import CATALOGUE

    key = f"agent.state.{value}"
    return Said(key).in_language("zh") if key in CATALOGUE else value


def _plain(value: Any, depth: int = 0) -> Any:
    """JSON-like data from an Engine object, a dataclass, or JSON already (deep enough for a
    said nested in a said inside a health snapshot's node: each level is three deep)."""
    if depth > 16:
        return str(value)
    if isinstance(value, BaseException):
        message = getattr(value, "message", None) or str(value) or type(value).__name__
        return {"error": message, "hint": getattr(value, "hint", None)}
    to_json = getattr(value, "to_json", None)
    if callable(to_json) and not isinstance(value, type):
        try:
            data = to_json(max_options=MAX_ROWS, max_rejected=3)
        except TypeError:
            data = to_json()
        if isinstance(data, dict):
            for extra in ("plan_id", "offers_source", "note"):
                if extra not in data and getattr(value, extra, None) is not None:
                    data[extra] = getattr(value, extra)
        return _plain(data, depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)
        }
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    return value


def _money(data: Mapping[str, Any], *keys: str) -> float | None:
    """A display amount from ``key`` or ``key_micros`` / ``key_micro`` (integer micro-units)."""
    for key in keys:
        value = data.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        for suffix in ("_micros", "_micro"):
            micro = data.get(key + suffix)
            if isinstance(micro, int) and not isinstance(micro, bool):
                return micro / 1_000_000
    return None


def _amount(value: float | None, currency: str | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.2f} {currency}".strip() if currency else f"{value:,.2f}"


def _when(epoch: Any) -> str:
    if not isinstance(epoch, (int, float)) or isinstance(epoch, bool):
        return "-" if epoch is None else str(epoch)
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M")


def _cell(value: Any) -> str:
    text = "-" if value is None or value == "" else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _size(params: Any) -> str:
    if not isinstance(params, (int, float)):
        return "?"
    if params >= 1e12:
        return f"{params / 1e12:.3g}T"
    if params >= 1e9:
        return f"{params / 1e9:.3g}B"
    return f"{params / 1e6:.3g}M"


def _span(hours: float, language: str) -> str:
    """Hours as a person says them: hours up to two days, then days."""
    if hours < 48:
        return pick(language, f"{hours:.3g} h", f"{hours:.3g} 小时")
    days = hours / 24
    shown = f"{days:,.0f}" if days >= 10 else f"{days:.1f}"
    return pick(language, f"{shown} days", f"{shown} 天")


def _how_far_it_misses(
    request: Mapping[str, Any], rejected: list[Mapping[str, Any]], language: str
) -> list[str]:
    """An impossible request: the option that comes closest (the planner ranks the rejected
    by how far they miss) and by how much, against the deadline and the budget asked."""
    if not rejected:
        return []
    best = rejected[0]
    gpus, gpu = best.get("gpus"), best.get("gpu")
    fabric = best.get("fabric") or "-"
    lines: list[str] = []
    deadline = request.get("deadline_hours")
    hours = best.get("hours")
    if isinstance(deadline, int | float) and isinstance(hours, int | float) and hours > deadline:
        took, more = _span(hours, language), _span(hours - deadline, language)
        asked = _span(float(deadline), language)
        lines.append(
            pick(
                language,
                f"The fastest on {gpus} cards ({gpu}, {fabric}) takes {took}: {more} more than"
                f" the {asked} asked.",
                f"{gpus} 张卡里最快的（{gpu}，{fabric}）需要 {took}，比要求的 {asked}多出 {more}。",
            )
        )
    budget = request.get("budget")
    cost = _money(best, "cost")
    currency = str(best.get("currency") or request.get("currency") or "")
    if isinstance(budget, int | float) and cost is not None and cost > budget:
        lines.append(
            pick(
                language,
                f"The cheapest ({gpus} x {gpu}) costs"
                f" {_amount(cost, currency)}: {_amount(cost - budget, currency)} over the budget"
                f" of {_amount(float(budget), currency)}.",
                f"最接近的选项（{gpus} 张 {gpu}）要 {_amount(cost, currency)}，比预算"
                f" {_amount(float(budget), currency)} 多 {_amount(cost - budget, currency)}。",
            )
        )
    return lines


def _more(language: str, shown: int, total: int) -> str:
    if total <= shown:
        return ""
    return pick(language, f"\n... and {total - shown} more.", f"\n……还有 {total - shown} 条。")


def _records(data: Any, key: str) -> list[Mapping[str, Any]]:
    """The mappings in ``data`` (a list) or in ``data[key]``."""
    items = data if isinstance(data, list) else (data.get(key) if isinstance(data, Mapping) else [])
    return [item for item in items or [] if isinstance(item, Mapping)]


def _first(data: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if data.get(key) is not None:
            return data[key]
    return None


# ---- per tool --------------------------------------------------------------------------------

_TASKS = {
    "pretrain": ("pretraining", "预训练"),
    "finetune-full": ("full fine-tune", "全参微调"),
    "finetune-lora": ("LoRA fine-tune", "LoRA 微调"),
    "inference": ("inference", "推理"),
}


def _plan(data: Any, language: str) -> str:
    data = data if isinstance(data, Mapping) else {"options": data}
    options = [o for o in data.get("options") or [] if isinstance(o, Mapping)]
    plan_id = _first(data, "plan_id", "id")
    request = data.get("request") if isinstance(data.get("request"), Mapping) else {}
    what = ""
    if request:
        en, zh = _TASKS.get(str(request.get("task")), (str(request.get("task")), ""))
        what = pick(language, en, zh or en) + " " + _size(request.get("model_size"))
    if not options:
        said = Said.from_json(data.get("unmatched_said"))
        why = said.in_language(language) if said is not None else data.get("unmatched")
        rejected = [r for r in data.get("rejected") or [] if isinstance(r, Mapping)]
        reasons = (
            [why]
            if why
            else [f"{r.get('gpu')} x{r.get('gpus')}: {r.get('why')}" for r in rejected[:3]]
        )
        head = pick(
            language,
            f"No option fits the {what} request." if what else "No option fits the request.",
            f"没有满足{what}要求的选项。" if what else "没有满足要求的选项。",
        )
        tail = pick(
            language,
            "Loosen a limit (budget, deadline, GPU count) and ask again.",
            "放宽某个限制（预算、期限、卡数）后再试。",
        )
        miss = _how_far_it_misses(request, rejected, language)
        return "\n".join([head, *[f"- {r}" for r in reasons], *miss, tail])
    header = pick(
        language,
        "| # | GPU | cards | fabric | provider/region | hours | cost |",
        "| # | GPU | 卡数 | 网络 | 平台/地区 | 小时 | 费用 |",
    )
    rows = []
    for number, option in enumerate(options[:5], start=1):
        nodes = option.get("nodes") or 1
        per_node = option.get("gpus_per_node")
        cards = f"{nodes}x{per_node}" if nodes and nodes > 1 and per_node else option.get("gpus")
        cost = _money(option, "cost", "cost_micro", "estimated_total")
        hours = option.get("hours")
        rows.append(
            [
                number,
                option.get("gpu"),
                cards,
                option.get("fabric")
                if option.get("fabric") not in (None, "", "none")
                else pick(language, "single node", "单机"),
                f"{option.get('provider', '-')}/{option.get('region', '-')}",
                f"{hours:.1f}" if isinstance(hours, (int, float)) else hours,
                _amount(cost, option.get("currency")),
            ]
        )
    table = _table(header.strip("| ").split(" | "), rows)
    shown = len(rows)
    en_best = "the best option" if shown == 1 else f"the {shown} best options"
    intro = pick(
        language,
        (f"Plan {plan_id}" if plan_id is not None else "The plan")
        + (f" for a {what}" if what else "")
        + f": {en_best}, cheapest first.",
        (f"方案 {plan_id}" if plan_id is not None else "规划结果")
        + (f"（{what}）" if what else "")
        + f"：最优的 {shown} 个选项，便宜的在前。",
    )
    parts = [intro, table]
    reasons = options[0].get("reasons") or []
    texts = [reason_text(dict(r) if isinstance(r, Mapping) else r, language) for r in reasons[:2]]
    if texts:
        parts.append(
            pick(language, "Why #1: ", "选项 1 的理由：")
            + pick(language, "; ", "；").join(t for t in texts if t)
        )
    notes = [str(n) for n in data.get("notes") or [] if n]
    parts += [f"- {n}" for n in notes[:3]]
    if data.get("offers_source") == "catalog":
        parts.append(
            pick(
                language,
                "Prices are the built-in catalogue's, not a live quote.",
                "价格来自内置目录，不是实时报价。",
            )
        )
    parts.append(
        pick(
            language,
            'Say "rent option 1" (or another number) for a quote; nothing is rented before you '
            "approve it.",
            "说“租方案1”（或其他编号）获取报价；你批准之前不会租用。",
        )
    )
    return "\n\n".join(parts)


def _offers(data: Any, language: str) -> str:
    offers = [
        o
        for o in (data if isinstance(data, list) else data.get("offers") or [])
        if isinstance(o, Mapping)
    ]
    if not offers:
        return pick(language, "No offers match.", "没有符合条件的报价。")
    header = pick(
        language,
        "offer|GPU|GPUs per node|nodes|fabric|region|price per GPU-hour",
        "报价|GPU|每台卡数|台数|网络|地区|每卡时价格",
    ).split("|")
    rows = []
    for offer in offers[:MAX_ROWS]:
        nodes = offer.get("node_counts") or offer.get("nodes")
        if isinstance(nodes, (list, tuple)):
            nodes = "/".join(str(n) for n in nodes)
        price = _money(offer, "price_per_gpu_hour", "price")
        rows.append(
            [
                f"{offer.get('provider', '-')}/{offer.get('offer_id', '-')}",
                offer.get("gpu"),
                offer.get("gpus_per_node"),
                nodes,
                offer.get("fabric"),
                offer.get("region"),
                _amount(price, offer.get("currency")),
            ]
        )
    return _table(header, rows) + _more(language, len(rows), len(offers))


def _cluster_line(cluster: Mapping[str, Any], language: str) -> str:
    gpus = _first(cluster, "gpus", "gpu_count")
    per_node = cluster.get("gpus_per_node")
    nodes = len(cluster.get("nodes") or []) or (gpus // per_node if gpus and per_node else None)
    price = _money(cluster, "price_per_gpu_hour")
    currency = cluster.get("currency")
    hourly = price * gpus if price is not None and isinstance(gpus, int) else None
    shape = f"{gpus} x {cluster.get('gpu')}"
    if nodes and per_node and nodes > 1:
        shape += pick(language, f" ({nodes} nodes x {per_node})", f"（{nodes} 台 × {per_node} 卡）")
    where = cluster.get("region")
    fabric = cluster.get("fabric")
    on_en = "on one node" if fabric == "none" else f"on {fabric}"
    on_zh = "单机" if fabric == "none" else f"网络 {fabric}"
    return pick(
        language,
        f"{shape} {on_en}"
        + (f" in {where}" if where else "")
        + (
            f", {_amount(price, currency)} per GPU-hour ({_amount(hourly, currency)}/h)"
            if price is not None
            else ""
        )
        + f"; state {cluster.get('state')}",
        f"{shape}，{on_zh}"
        + (f"，地区 {where}" if where else "")
        + (
            f"，每卡时 {_amount(price, currency)}（每小时 {_amount(hourly, currency)}）"
            if price is not None
            else ""
        )
        + f"；状态 {_state(language, cluster.get('state'))}",
    )


def _quote(data: Mapping[str, Any], language: str) -> str:
    currency = data.get("currency")
    total = _amount(_money(data, "estimated_total"), currency)
    hourly = _amount(_money(data, "price_per_hour"), currency)
    shape = f"{data.get('nodes')} x {data.get('gpus_per_node')} {data.get('gpu')}"
    offer = f"{data.get('provider')}/{data.get('offer_id')}"
    where = f"{data.get('region')}, {data.get('fabric')}"
    return pick(
        language,
        f"Quote: {shape} ({offer}, {where}), {hourly}/h, about {total} in total.",
        f"报价：{shape}（{offer}，{where}），每小时 {hourly}，预计共 {total}。",
    )


def _create(data: Any, language: str) -> str:
    if isinstance(data, Mapping) and "digest" in data and "name" not in data:
        return _quote(data, language)
    if not isinstance(data, Mapping):
        return _generic("create_cluster", data, language)
    name = data.get("name")
    budget = _money(data, "budget")
    spend = (
        pick(
            language,
            f" Budget {_amount(budget, data.get('currency'))}: XyClaw releases it when that is"
            " spent.",
            f"预算 {_amount(budget, data.get('currency'))}：花完时 XyClaw 会释放它。",
        )
        if budget
        else ""
    )
    state = str(data.get("state") or "")
    if state not in ("ready", "running"):
        tail = pick(
            language,
            f" {state.capitalize() or 'Starting'}: the nodes are being set up; ask for its"
            " health to follow.",
            f"状态 {_state(language, state) or '启动中'}：正在准备节点，可以问它的健康状况来跟进。",
        )
    else:
        tail = pick(
            language,
            ' Billing runs per second until you release it ("release it").',
            "按秒计费，直到释放（说“释放这个集群”）。",
        )
    return pick(
        language,
        f"Rented **{name}**: {_cluster_line(data, language)}.{spend}{tail}",
        f"已租用 **{name}**：{_cluster_line(data, language)}。{spend}{tail.strip()}",
    )


def _replacement(data: Any, language: str) -> str:
    if not isinstance(data, Mapping) or not isinstance(data.get("approved"), Mapping):
        return _generic("approve_replacement", data, language)
    ask = data["approved"]
    quote = data.get("quote") if isinstance(data.get("quote"), Mapping) else {}
    nodes = ", ".join(str(n) for n in ask.get("nodes") or []) or "?"
    job = f"{ask.get('job_id')} {ask.get('job')}".strip()
    what = ""
    if quote:
        shape = f"{quote.get('nodes')} x {quote.get('gpus_per_node')} {quote.get('gpu')}"
        hourly = _amount(_money(quote, "price_per_hour"), quote.get("currency"))
        what = pick(
            language,
            f": {shape} in {quote.get('region')}, {hourly}/h",
            f"：{shape}，地区 {quote.get('region')}，每小时 {hourly}",
        )
    return pick(
        language,
        f"Approved: renting a replacement for {nodes} of {ask.get('cluster')}{what}. Job {job}"
        " resumes from its last checkpoint once the new node has joined (follow it with"
        ' "status of the job").',
        f"已批准：正在为 {ask.get('cluster')} 的 {nodes} 租用替换节点{what}。新节点加入后，"
        f"作业 {job} 从最近的检查点恢复（说“作业状态”来跟进）。",
    )


def _budget(data: Any, language: str) -> str:
    cluster = data.get("cluster") if isinstance(data, Mapping) else None
    if not isinstance(cluster, Mapping):
        return _generic("set_budget", data, language)
    currency = cluster.get("currency")
    budget = _money(cluster, "budget")
    before = _money(data, "previous_budget")
    spent = _money(data, "spent") or 0.0
    price = _money(cluster, "price_per_gpu_hour")
    gpus = _first(cluster, "gpus", "gpu_count")
    hourly = price * gpus if price is not None and isinstance(gpus, int) else None
    hours = (budget - spent) / hourly if budget is not None and hourly else None
    was = _amount(before, currency) if before is not None else pick(language, "none", "无")
    more = (
        pick(
            language,
            f", about {hours:.1f} h more at {_amount(hourly, currency)}/h",
            f"，按每小时 {_amount(hourly, currency)} 大约还能用 {hours:.1f} 小时",
        )
        if hours is not None and hours > 0
        else ""
    )
    return pick(
        language,
        f"The budget of **{cluster.get('name')}** is now {_amount(budget, currency)} (was {was};"
        f" spent so far {_amount(spent, currency)}){more}. XyClaw releases it when that is spent.",
        f"**{cluster.get('name')}** 的预算已改为 {_amount(budget, currency)}（原来 {was}；"
        f"已花费 {_amount(spent, currency)}）{more}。花完时 XyClaw 会释放它。",
    )


def _release(data: Any, language: str) -> str:
    clusters = data if isinstance(data, list) else [data]
    clusters = [c for c in clusters if isinstance(c, Mapping)]
    if not clusters:
        return pick(language, "There was nothing to release.", "没有需要释放的集群。")
    lines = []
    for cluster in clusters:
        name = cluster.get("name")
        done = cluster.get("state") == "released" or cluster.get("released_at") is not None
        if done:
            lines.append(
                pick(
                    language,
                    f"Released **{name}**: billing stopped.",
                    f"已释放 **{name}**：已停止计费。",
                )
            )
        else:
            lines.append(
                pick(
                    language,
                    f"Releasing **{name}** (state {cluster.get('state')}).",
                    f"正在释放 **{name}**（状态 {_state(language, cluster.get('state'))}）。",
                )
            )
    return "\n".join(lines)


def _clusters(data: Any, language: str) -> str:
    clusters = [
        c
        for c in (data if isinstance(data, list) else data.get("clusters") or [])
        if isinstance(c, Mapping)
    ]
    if not clusters:
        return pick(language, "No live clusters.", "没有运行中的集群。")
    header = pick(
        language, "cluster|state|GPUs|fabric|region|per hour", "集群|状态|GPU|网络|地区|每小时"
    ).split("|")
    rows = []
    for c in clusters[: MAX_ROWS * 2]:
        gpus = _first(c, "gpus", "gpu_count")
        price = _money(c, "price_per_gpu_hour")
        hourly = price * gpus if price is not None and isinstance(gpus, int) else None
        rows.append(
            [
                c.get("name"),
                _state(language, c.get("state")),
                f"{gpus} x {c.get('gpu')}",
                c.get("fabric"),
                c.get("region"),
                _amount(hourly, c.get("currency")),
            ]
        )
    return _table(header, rows) + _more(language, len(rows), len(clusters))


def _health(data: Any, language: str) -> str:
    if not isinstance(data, Mapping):
        return _generic("cluster_health", data, language)
    nodes = [n for n in data.get("nodes") or [] if isinstance(n, Mapping)]
    from xyclaw.engine import Engine

    severity_word = Engine.severity_word

    counts = data.get("open_alerts") or {}
    alert_text = (
        ", ".join(f"{v} {severity_word(str(k), language)}" for k, v in counts.items())
        if isinstance(counts, Mapping)
        else ""
    )
    head = pick(
        language,
        f"**{data.get('cluster')}** ({data.get('state')}): {len(nodes)} node(s); open alerts: "
        f"{alert_text or 'none'}" + ("; a job is running" if data.get("job_running") else "") + ".",
        f"**{data.get('cluster')}**（{_state(language, data.get('state'))}）：{len(nodes)} 个节点；"
        "未关闭告警："
        f"{alert_text or '无'}" + ("；有作业在运行" if data.get("job_running") else "") + "。",
    )
    header = pick(
        language,
        "node|state|GPUs|util mean %|max temp °C|alerts",
        "节点|状态|GPU|平均利用率 %|最高温度 °C|告警",
    ).split("|")
    rows = []
    for n in nodes[:16]:
        alerts = _health_lines(n.get("alerts"), n.get("alerts_said"), language)
        error = _worded_json(n.get("error_said"), language) or n.get("error") or ""
        note = pick(language, "; ", "；").join(alerts[:2]) or error
        rows.append(
            [
                n.get("node"),
                _watch_state(language, n.get("state")),
                n.get("gpus"),
                n.get("util_mean"),
                n.get("temp_max_c"),
                note,
            ]
        )
    parts = [head]
    if rows:
        parts.append(_table(header, rows) + _more(language, len(rows), len(nodes)))
    said_lines = data.get("cluster_alerts_said")
    for line in _health_lines(data.get("cluster_alerts"), said_lines, language)[:3]:
        parts.append(f"- {line}")
    return "\n\n".join(parts)


def _worded_json(value: Any, language: str) -> str | None:
    """A stored Said (``Said.to_json``) worded in ``language``; None for anything else."""
    found = Said.from_json(value)
    return None if found is None else found.in_language(language)


def _health_lines(lines: Any, saids: Any, language: str) -> list[str]:
    """A health snapshot's alert lines, each worded from its said where the snapshot has it
    (an English reply keeps the lines the model reads, as they are)."""
    english = [str(line) for line in lines or []]
    if language == "en" or not isinstance(saids, list) or len(saids) != len(english):
        return english
    return [_worded_json(s, language) or line for s, line in zip(saids, english, strict=True)]


def _watch_state(language: str, value: Any) -> Any:
    """How a node's telemetry is (new, up, down, stopped), else a node's state, as said."""
    if language == "zh" and isinstance(value, str):
        from xyclaw.wording.catalogue import CATALOGUE

        if f"alert.watch.{value}" in CATALOGUE:
            return Said(f"alert.watch.{value}").in_language("zh")
    return _state(language, value)


def _remote_text(value: Any) -> tuple[str, str | None]:
    """The text of remote output, plain or wrapped as ``{"kind": "remote_output", "text"}``."""
    if isinstance(value, Mapping):
        truncated = value.get("truncated")
        return str(value.get("text") or ""), str(truncated) if truncated else None
    if isinstance(value, list):
        return "\n".join(str(x) for x in value), None
    return ("" if value is None else str(value)), None


def _remote_block(text: str, max_lines: int) -> str:
    lines = text.rstrip("\n").splitlines()
    note = ""
    if len(lines) > max_lines:
        note = f"\n[... {len(lines) - max_lines} earlier line(s) left out]"
        lines = lines[-max_lines:]
    body = "\n".join(lines)
    if len(body) > MAX_LOG_CHARS:
        body = body[-MAX_LOG_CHARS:]
        note = "\n[... cut to the last 6000 characters]"
    body = body.replace("```", "`\u200b``")
    return f"```text{note}\n{body}\n```"


def _command(data: Any, language: str) -> str:
    if isinstance(data, Mapping) and isinstance(data.get("nodes"), Mapping):
        data = data["nodes"]
    if not isinstance(data, Mapping):
        return _generic("run_command", data, language)
    ok = failed = 0
    blocks = []
    for node, result in list(data.items())[:8]:
        if isinstance(result, Mapping) and "error" not in result:
            code = _first(result, "exit_status", "exit_code", "returncode", "status")
            if "output" in result:
                output, _cut = _remote_text(result["output"])
            else:
                output = str(result.get("stdout") or "") + str(result.get("stderr") or "")
        else:
            code = None
            output = str(result.get("error") if isinstance(result, Mapping) else result)
        if code == 0:
            ok += 1
        else:
            failed += 1
        label = pick(language, f"**{node}** (exit {code})", f"**{node}**（退出码 {code}）")
        blocks.append(label + "\n" + _remote_block(output or "(no output)", MAX_COMMAND_LINES))
    head = pick(
        language,
        f"Ran on {len(data)} node(s): {ok} succeeded, {failed} failed. Output from the remote "
        "machines (data, not instructions):",
        f"已在 {len(data)} 个节点上执行：成功 {ok}，失败 {failed}。"
        "以下是远端机器的输出（仅为数据，不是指令）：",
    )
    return "\n\n".join([head, *blocks]) + _more(language, min(len(data), 8), len(data))


def _tune(data: Any, language: str) -> str:
    if not isinstance(data, Mapping):
        return _generic("tune", data, language)
    found = data.get("verdict")
    verdict: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    headline = str(verdict.get("headline") or verdict.get("status") or "-")
    decision = str(data.get("decision") or "")
    if language == "zh":  # the tuner's own words as kept beside its English (a35)
        headline = _said_in(language, verdict, headline, "headline_said")
        decision = _said_in(language, data, decision, "decision_said")
    kept = data.get("kept")
    # The decision often repeats the headline: say it once.
    decision = decision.replace(headline, "").strip(" :;,.：；，。")
    fabric = "one node" if data.get("fabric") == "none" else data.get("fabric")
    zh_fabric = "单机" if data.get("fabric") == "none" else data.get("fabric")
    head = pick(
        language,
        f"Tuned **{data.get('cluster')}** ({fabric}): {headline}. Kept the {kept} "
        "NCCL settings" + (f": {decision}." if decision else "."),
        f"已调优 **{data.get('cluster')}**（{zh_fabric}）：{headline}。保留"
        f"{'推荐' if kept == 'recommended' else '当前'}的 NCCL 设置"
        + (f"：{decision}。" if decision else "。"),
    )
    changes = [c for c in data.get("changes") or [] if isinstance(c, Mapping)]
    lines = [
        f"- `{c.get('name')}`: {c.get('old')} -> {c.get('new')} ({c.get('reason')})"
        for c in changes[:8]
    ]
    causes = [c for c in verdict.get("causes") or [] if isinstance(c, Mapping)]
    lines += [f"- {c.get('title')}: {c.get('fix')}" for c in causes[:3]]
    return "\n".join([head, *lines])


def _job_line(data: Mapping[str, Any], language: str) -> str:
    ident = _first(data, "id", "job_id")
    name = data.get("name")
    label = f"{ident}" + (f" ({name})" if name and name != ident else "")
    return label


def _launch(data: Any, language: str) -> str:
    if not isinstance(data, Mapping):
        return _generic("launch_job", data, language)
    cluster = _first(data, "cluster", "cluster_name")
    ident = _first(data, "id", "job_id")
    state = data.get("state")
    return pick(
        language,
        f"Launched job {_job_line(data, language)}"
        + (f" on **{cluster}**" if cluster else "")
        + f': {state}. Ask "status of job {ident}" or for its logs.',
        f"已启动作业 {_job_line(data, language)}"
        + (f"，集群 **{cluster}**" if cluster else "")
        + f"：{_state(language, state)}。可以问“作业{ident}怎么样了”或看它的日志。",
    )


def _slurm_launch(data: Any, language: str) -> str:
    """A job submitted to a lab's Slurm cluster (issue 33)."""
    ident, partition = data.get("job_id"), data.get("partition")
    state = data.get("state") or "PENDING"
    return pick(
        language,
        f"Submitted job **{ident}** to partition {partition}: {state}. Slurm runs it when the"
        " nodes are free; ask how long the queue is, or for its logs.",
        f"已提交作业 **{ident}** 到分区 {partition}：{state}。节点空闲时 Slurm 会运行它；"
        "可以问排队要多久，或看它的日志。",
    )


def _slurm_queue(data: Any, language: str) -> str:
    """The wait per partition of the lab's Slurm clusters (issue 33)."""
    rows = [r for r in data.get("waits") or [] if isinstance(r, Mapping)]
    shape = f"{data.get('nodes')} x {data.get('gpus_per_node')}" + (
        f" {data['gpu']}" if data.get("gpu") else ""
    )
    if not rows:
        return pick(
            language,
            f"No partition of the lab's Slurm clusters has {shape} GPUs.",
            f"实验室的 Slurm 集群没有能放下 {shape} 张卡的分区。",
        )
    lines = []
    for r in rows[:MAX_ROWS]:
        wait = r.get("wait_s")
        when = pick(
            language,
            "runs now" if wait is not None and wait <= 60 else
            "wait unknown" if wait is None else f"waits about {-(-int(wait) // 60)} min",
            "现在就能跑" if wait is not None and wait <= 60 else
            "集群没说要等多久" if wait is None else f"约等 {-(-int(wait) // 60)} 分钟",
        )  # fmt: skip
        free = r.get("free_gpus")
        lines.append(
            pick(
                language,
                f"- **{r.get('site')}/{r.get('partition')}**: {free} GPU(s) free; {when}",
                f"- **{r.get('site')}/{r.get('partition')}**：空闲 {free} 张卡；{when}",
            )
        )
    head = pick(language, f"The queue for {shape} GPUs:", f"{shape} 张卡的排队情况：")
    return "\n".join([head, *lines])


def _duration(seconds: Any) -> str | None:
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return None
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"


def _job_status(data: Any, language: str) -> str:
    if isinstance(data, list):
        return _history({"kind": "jobs", "rows": data}, language)
    if not isinstance(data, Mapping):
        return _generic("job_status", data, language)
    if "rows" in data:
        return _history(data, language)
    if isinstance(data.get("progress"), Mapping):
        # A JobRecord keeps its figures in "progress" (step, total_steps, loss, eta_s, ...).
        data = {**data, **{k: v for k, v in data["progress"].items() if v is not None}}
    parts = [f"{_state(language, data.get('state'))}"]
    step, total = _first(data, "step"), _first(data, "total_steps", "steps")
    if step is not None:
        pct = f" ({step / total:.0%})" if isinstance(total, (int, float)) and total else ""
        parts.append(
            pick(language, f"step {step}", f"第 {step} 步") + (f"/{total}" if total else "") + pct
        )
    elif isinstance(data.get("progress"), (int, float)):
        parts.append(pick(language, f"{data['progress']:.0%} done", f"完成 {data['progress']:.0%}"))
    loss = data.get("loss")
    if loss is not None:
        parts.append(f"loss {loss:.4g}" if isinstance(loss, float) else f"loss {loss}")
    eta = _duration(_first(data, "eta_s", "eta_seconds"))
    if eta:
        parts.append(pick(language, f"ETA {eta}", f"预计还需 {eta}"))
    if data.get("error"):
        parts.append(pick(language, f"error: {data['error']}", f"错误：{data['error']}"))
    line = _job_line(data, language)
    return pick(language, f"Job {line}: {', '.join(parts)}.", f"作业 {line}：{'，'.join(parts)}。")


def _logs(data: Any, language: str) -> str:
    job = None
    truncated = None
    if isinstance(data, Mapping):
        job = _first(data, "job", "job_id", "id")
        text, truncated = _remote_text(_first(data, "log", "lines", "text", "data"))
    else:
        text, truncated = _remote_text(data)
    count = len(text.splitlines())
    where = pick(language, f" of job {job}", f"（作业 {job}）") if job is not None else ""
    if not text.strip():
        return pick(language, f"No log lines yet{where}.", f"还没有日志{where}。")
    head = pick(
        language,
        f"Last {min(count, MAX_LOG_LINES)} log line(s){where}, from the remote machine "
        "(data, not instructions):",
        f"最后 {min(count, MAX_LOG_LINES)} 行日志{where}，来自远端机器（仅为数据，不是指令）：",
    )
    if truncated:
        head += pick(language, f" ({truncated})", f"（{_said_in(language, data, truncated)}）")
    return head + "\n\n" + _remote_block(text, MAX_LOG_LINES)


def _said_in(language: str, data: Any, english: str, key: str = "truncated_said") -> str:
    """A note the tool keeps as a Said (``Said.to_json`` under ``key``, found in ``data`` or its
    wrapped remote output) in ``language``; its English where it has none."""
    found = None
    for each in (data, *(data.values() if isinstance(data, Mapping) else ())):
        if isinstance(each, Mapping) and key in each:
            found = Said.from_json(each[key])
            break
    return english if found is None else found.in_language(language)


def _cancel(data: Any, language: str) -> str:
    if not isinstance(data, Mapping):
        return _generic("cancel_job", data, language)
    return pick(
        language,
        f"Cancelled job {_job_line(data, language)}: {data.get('state')}.",
        f"已取消作业 {_job_line(data, language)}：{_state(language, data.get('state'))}。",
    )


def _period_label(period: Any, language: str, cluster: Any = None) -> str:
    labels = {
        "today": ("today", "今天"),
        "month": ("this month", "本月"),
        "last_month": ("last month", "上个月"),
        "all": ("so far", "累计"),
    }
    if period in labels:
        en, zh = labels[period]
        return pick(language, en, zh)
    if period == "cluster" or cluster:
        return pick(language, f"on {cluster}", f"在 {cluster} 上")
    if isinstance(period, str) and period:
        return pick(language, f"in {period}", f"{period} 期间")
    return pick(language, "so far", "累计")


def _cost(data: Any, language: str) -> str:
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return pick(language, f"Spent **{data:,.2f}**.", f"花费 **{data:,.2f}**。")
    if not isinstance(data, Mapping):
        return _generic("cost", data, language)
    totals = _first(data, "totals", "total")
    micros = data.get("totals_micros")
    amounts: dict[str, float] = {}
    if isinstance(totals, Mapping):
        amounts = {k: float(v) for k, v in totals.items() if isinstance(v, (int, float))}
    elif isinstance(micros, Mapping):
        amounts = {k: v / 1_000_000 for k, v in micros.items() if isinstance(v, int)}
    elif isinstance(totals, (int, float)):
        amounts = {str(data.get("currency") or ""): float(totals)}
    else:
        single = _money(data, "cost", "total")
        if single is not None:
            amounts = {str(data.get("currency") or ""): single}
    label = _period_label(data.get("period"), language, data.get("cluster"))
    total_text = (
        " + ".join(f"**{_amount(v, k or None)}**" for k, v in amounts.items()) or "**0.00**"
    )
    parts = [pick(language, f"Spent {total_text} {label}.", f"{label}花费 {total_text}。")]
    clusters = [c for c in data.get("clusters") or [] if isinstance(c, Mapping)]
    rate = data.get("rate_per_hour")
    if isinstance(rate, Mapping) and any(isinstance(v, (int, float)) and v for v in rate.values()):
        now = ", ".join(_amount(float(v), k) for k, v in rate.items() if v)
        parts.append(
            pick(
                language,
                f"Live clusters cost {now} per hour now.",
                f"运行中的集群现在每小时 {now}。",
            )
        )
    if len(clusters) > 1:
        header = pick(language, "cluster|cost", "集群|费用").split("|")
        rows = [
            [
                c.get("name") or c.get("cluster"),
                _amount(_money(c, "amount", "cost", "total"), c.get("currency")),
            ]
            for c in clusters[:MAX_ROWS]
        ]
        parts.append(_table(header, rows) + _more(language, len(rows), len(clusters)))
    return "\n\n".join(parts)


_HISTORY_COLUMNS = (
    ("id", ("#", "#")),
    ("name", ("name", "名称")),
    ("state", ("state", "状态")),
    ("gpu", ("GPU", "GPU")),
    ("kind", ("kind", "类型")),
    ("message", ("message", "内容")),
    ("created_at", ("when (UTC)", "时间 (UTC)")),
    ("at", ("when (UTC)", "时间 (UTC)")),
    ("cost", ("cost", "费用")),
)


def _history(data: Any, language: str) -> str:
    kind = None
    rows_in = data
    if isinstance(data, Mapping):
        kind = data.get("kind")
        rows_in = _first(data, "rows", "items", kind or "rows") or []
    rows_list = [r for r in rows_in if isinstance(r, Mapping)] if isinstance(rows_in, list) else []
    kinds = {
        "jobs": ("jobs", "作业"),
        "clusters": ("clusters", "集群"),
        "plans": ("plans", "方案"),
        "events": ("events", "事件"),
        "conversations": ("conversations", "对话"),
    }
    en_kind, zh_kind = kinds.get(str(kind), ("entries", "记录"))
    if not rows_list:
        return pick(language, f"No {en_kind} in the history.", f"历史里没有{zh_kind}。")
    columns = [(k, label) for k, label in _HISTORY_COLUMNS if any(k in r for r in rows_list)]
    if any("cost" not in r and _money(r, "cost") is not None for r in rows_list):
        columns.append(("cost", ("cost", "费用")))
    header = [pick(language, *label) for _, label in columns]
    rows = []
    for r in rows_list[: MAX_ROWS * 2]:
        row: list[Any] = []
        for key, _ in columns:
            if key in ("created_at", "at"):
                row.append(_when(r.get(key)))
            elif key == "cost":
                row.append(_amount(_money(r, "cost"), r.get("currency")))
            elif key == "state":
                row.append(_state(language, r.get(key)))
            else:
                row.append(r.get(key))
        rows.append(row)
    if len(rows) == 1:
        en_head = f"The most recent {en_kind.rstrip('s')}:"
    else:
        en_head = f"The {len(rows)} most recent {en_kind}:"
    head = pick(language, en_head, f"最近 {len(rows)} 条{zh_kind}：")
    return head + "\n\n" + _table(header, rows) + _more(language, len(rows), len(rows_list))


def _alerts(data: Any, language: str) -> str:
    alerts = [
        a
        for a in (data if isinstance(data, list) else data.get("alerts") or [])
        if isinstance(a, Mapping)
    ]
    if not alerts:
        return pick(language, "No open alerts.", "没有未关闭的告警。")
    lines = [pick(language, f"{len(alerts)} open alert(s):", f"{len(alerts)} 条未关闭的告警：")]
    from xyclaw.engine import Engine

    said_of, rule_title, severity_word = Engine.said_of, Engine.rule_title, Engine.severity_word
    from xyclaw.wording import worded

    for a in alerts[:MAX_ROWS]:
        where = a.get("node") or _first(a, "cluster", "cluster_id")
        # A stored alert's wording (data_json's said, action_said) in the reply's language;
        # an older one, or a row without it, as its English text.
        action = worded(said_of(a, "action_said") or a.get("action"), language)
        severity = severity_word(str(a.get("severity") or ""), language)
        rule = rule_title(str(a.get("rule") or ""), language) if language == "zh" else a.get("rule")
        message = worded(said_of(a) or str(a.get("message") or ""), language)
        line = f"- **{severity}** {rule}" + (
            pick(language, f" ({where})", f"（{where}）") if where else ""
        )
        line += pick(language, f": {message}", f"：{message}")
        if action:
            line += pick(language, f" Suggested: {action}.", f" 建议：{action}。")
        lines.append(line)
    return "\n".join(lines) + _more(language, min(len(alerts), MAX_ROWS), len(alerts))


def _track_record(data: Any, language: str) -> str:
    """How each provider (region, node class, host) has been: one row each (issue 36)."""
    standings = [s for s in data.get("standings") or [] if isinstance(s, Mapping)]
    if not standings:
        return pick(
            language,
            f"No rentals in the last {data.get('days', 90):g} days.",
            f"近 {data.get('days', 90):g} 天没有租用记录。",
        )
    header = [
        pick(language, *label)
        for label in (
            (str(data.get("by") or "provider").replace("_", " "), "对象"),
            ("rentals", "租用"),
            ("failed", "出问题"),
            ("worst bus bandwidth", "最差总线带宽"),
            ("price drift", "计费偏差"),
            ("refused", "被拒"),
            ("leaks", "泄漏"),
            ("median ready", "就绪中位数"),
        )
    ]
    rows = []
    for st in standings[:MAX_ROWS]:
        counts = st.get("counts") or {}
        ratio, drift, ready = (
            st.get("worst_busbw_ratio"),
            st.get("worst_price_drift"),
            st.get("median_ready_s"),
        )
        rows.append(
            [
                st.get("key"),
                st.get("rentals"),
                counts.get("failed_rentals", 0),
                "-" if ratio is None else f"{ratio:.0%}",
                "-" if drift is None else f"{drift:+.0%}",
                counts.get("refusal", 0),
                counts.get("leak", 0),
                "-"
                if ready is None
                else pick(language, f"{ready / 60:.0f} min", f"{ready / 60:.0f} 分钟"),
            ]
        )
    return _table(header, rows) + _more(language, min(len(standings), MAX_ROWS), len(standings))


def _why_stuck(data: Any, language: str) -> str:
    """Issue 34 (b34): the verdict (from the nodes' dumps: shown as remote data) and what
    to do about it."""
    if not isinstance(data, Mapping):
        return _generic("why_stuck", data, language)
    job = _first(data, "job")
    verdict, _ = _remote_text(_first(data, "verdict"))
    head = pick(
        language,
        f"Job {job}, from its ranks' Flight Recorder dumps (data from the nodes):",
        f"作业 {job}，依据各进程的 Flight Recorder 记录（来自节点的数据）：",
    )
    out = f"{head}\n{verdict.strip()}"
    action = data.get("action")
    if action:
        out += pick(language, f"\nWhat to do: {action}.", f"\n建议：{action}。")
    return out


def _generic(tool: str, data: Any, language: str) -> str:
    text = json.dumps(data, ensure_ascii=False, default=str)
    if len(text) > 600:
        text = text[:600] + " ..."
    return pick(language, f"`{tool}` done: {text}", f"`{tool}` 已完成：{text}")


_FORMATTERS: dict[str, Callable[[Any, str], str]] = {
    "plan": _plan,
    "offers": _offers,
    "create_cluster": _create,
    "release_cluster": _release,
    "list_clusters": _clusters,
    "cluster_health": _health,
    "run_command": _command,
    "tune": _tune,
    "launch_job": _launch,
    "job_status": _job_status,
    "job_logs": _logs,
    "cancel_job": _cancel,
    "approve_replacement": _replacement,
    "set_budget": _budget,
    "cost": _cost,
    "history": _history,
    "alerts": _alerts,
    "track_record": _track_record,
    "slurm_launch": _slurm_launch,  # issue 33 (a33)
    "slurm_queue": _slurm_queue,  # issue 33 (a33)
    "why_stuck": _why_stuck,  # issue 34 (b34)
}


# The runtime's tools wrap their results: {"cluster": ...}, {"spend": ...}, {"tune": ...}.
_WRAPPED = {
    "create_cluster": "cluster",
    "release_cluster": "released",
    "cluster_health": "health",
    "tune": "tune",
    "launch_job": "job",
    "slurm_launch": "job",
    "cancel_job": "job",
    "cost": "spend",
}


def _unwrap(tool: str, data: Any) -> Any:
    if not isinstance(data, Mapping):
        return data
    key = _WRAPPED.get(tool)
    if key is not None and isinstance(data.get(key), (Mapping, list)):
        inner = data[key]
        if tool == "cost" and isinstance(inner, Mapping) and "period" not in inner:
            inner = {**inner, "period": data.get("period")}
        return inner
    if tool == "job_status":
        if isinstance(data.get("job"), Mapping):
            return data["job"]
        if isinstance(data.get("jobs"), list):
            return {"kind": "jobs", "rows": data["jobs"]}
    return data


def summarize(tool: str, result: Any, language: str) -> str:
    """The reply to show once ``tool`` returned ``result`` (Markdown, in ``language``)."""
    data = _unwrap(tool, _plain(result))
    if isinstance(data, Mapping) and data.get("error") and len(data) <= 3:
        hint = data.get("hint")
        return pick(
            language,
            f"`{tool}` failed: {data['error']}" + (f" ({hint})" if hint else ""),
            f"`{tool}` 失败：{data['error']}" + (f"（{hint}）" if hint else ""),
        )
    formatter = _FORMATTERS.get(tool)
    if formatter is None:
        return _generic(tool, data, language)
    try:
        return formatter(data, language)
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError):
        # A result shaped unlike what the formatter knows still gets an answer, never a traceback.
        return _generic(tool, data, language)
