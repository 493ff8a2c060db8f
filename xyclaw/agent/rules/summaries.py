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

from xyclaw.agent.rules.texts import reason_text, say, say_or
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
        return say(language, "sum_span_h", hours=hours)
    days = hours / 24
    shown = f"{days:,.0f}" if days >= 10 else f"{days:.1f}"
    return say(language, "sum_span_days", shown=shown)


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
            say(
                language,
                "sum_how_far_it_misses_the_fastest_on_cards",
                gpus=gpus,
                gpu=gpu,
                fabric=fabric,
                took=took,
                more=more,
                asked=asked,
            )
        )
    budget = request.get("budget")
    cost = _money(best, "cost")
    currency = str(best.get("currency") or request.get("currency") or "")
    if isinstance(budget, int | float) and cost is not None and cost > budget:
        lines.append(
            say(
                language,
                "sum_how_far_it_misses_the_cheapest_x_costs",
                gpus=gpus,
                gpu=gpu,
                cost=_amount(cost, currency),
                amount=_amount(cost - budget, currency),
                budget=_amount(float(budget), currency),
            )
        )
    return lines


def _more(language: str, shown: int, total: int) -> str:
    if total <= shown:
        return ""
    return say(language, "sum_more_and_more", count=total - shown)


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


def _plan(data: Any, language: str) -> str:
    data = data if isinstance(data, Mapping) else {"options": data}
    options = [o for o in data.get("options") or [] if isinstance(o, Mapping)]
    plan_id = _first(data, "plan_id", "id")
    request = data.get("request") if isinstance(data.get("request"), Mapping) else {}
    what = ""
    if request:
        task = str(request.get("task"))
        what = say_or(language, f"task.{task}", task) + " " + _size(request.get("model_size"))
    if not options:
        said = Said.from_json(data.get("unmatched_said"))
        why = said.in_language(language) if said is not None else data.get("unmatched")
        rejected = [r for r in data.get("rejected") or [] if isinstance(r, Mapping)]
        reasons = (
            [why]
            if why
            else [f"{r.get('gpu')} x{r.get('gpus')}: {r.get('why')}" for r in rejected[:3]]
        )
        head = (
            say(language, "sum_plan_no_option_for", what=what)
            if what
            else say(language, "sum_plan_no_option")
        )
        tail = say(language, "sum_plan_loosen_a_limit_budget")
        miss = _how_far_it_misses(request, rejected, language)
        return "\n".join([head, *[f"- {r}" for r in reasons], *miss, tail])
    header = say(language, "sum_plan_header")
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
                else say(language, "sum_plan_single_node"),
                f"{option.get('provider', '-')}/{option.get('region', '-')}",
                f"{hours:.1f}" if isinstance(hours, (int, float)) else hours,
                _amount(cost, option.get("currency")),
            ]
        )
    table = _table(header.strip("| ").split(" | "), rows)
    shown = len(rows)
    intro = (
        (
            say(language, "sum_plan_intro", plan_id=plan_id)
            if plan_id is not None
            else say(language, "sum_plan_intro_the_plan")
        )
        + (say(language, "sum_plan_intro_for", what=what) if what else "")
        + (
            say(language, "sum_plan_intro_best_one")
            if shown == 1
            else say(language, "sum_plan_intro_best", shown=shown)
        )
    )
    parts = [intro, table]
    reasons = options[0].get("reasons") or []
    texts = [reason_text(dict(r) if isinstance(r, Mapping) else r, language) for r in reasons[:2]]
    if texts:
        parts.append(
            say(language, "sum_plan_why_1")
            + say(language, "sum_semicolon").join(t for t in texts if t)
        )
    notes = [str(n) for n in data.get("notes") or [] if n]
    parts += [f"- {n}" for n in notes[:3]]
    if data.get("offers_source") == "catalog":
        parts.append(say(language, "sum_plan_prices_are_the_built"))
    parts.append(say(language, "sum_plan_say_rent_option_1"))
    return "\n\n".join(parts)


def _offers(data: Any, language: str) -> str:
    offers = [
        o
        for o in (data if isinstance(data, list) else data.get("offers") or [])
        if isinstance(o, Mapping)
    ]
    if not offers:
        return say(language, "sum_offers_no_offers_match")
    header = say(language, "sum_offers_header").split("|")
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
        shape += say(language, "sum_cluster_line_nodes_x", nodes=nodes, per_node=per_node)
    where = cluster.get("region")
    fabric = cluster.get("fabric")
    on = (
        say(language, "sum_cluster_line_one_node")
        if fabric == "none"
        else say(language, "sum_cluster_line_on", fabric=fabric)
    )
    return (
        say(language, "sum_cluster_line", shape=shape, on=on)
        + (say(language, "sum_cluster_line_in", where=where) if where else "")
        + (
            say(
                language,
                "sum_cluster_line_price",
                price=_amount(price, currency),
                hourly=_amount(hourly, currency),
            )
            if price is not None
            else ""
        )
        + say(language, "sum_cluster_line_state", state=_state(language, cluster.get("state")))
    )


def _quote(data: Mapping[str, Any], language: str) -> str:
    currency = data.get("currency")
    total = _amount(_money(data, "estimated_total"), currency)
    hourly = _amount(_money(data, "price_per_hour"), currency)
    shape = f"{data.get('nodes')} x {data.get('gpus_per_node')} {data.get('gpu')}"
    offer = f"{data.get('provider')}/{data.get('offer_id')}"
    where = f"{data.get('region')}, {data.get('fabric')}"
    return say(
        language,
        "sum_quote_quote_h_about_in",
        shape=shape,
        offer=offer,
        where=where,
        hourly=hourly,
        total=total,
    )


def _create(data: Any, language: str) -> str:
    if isinstance(data, Mapping) and "digest" in data and "name" not in data:
        return _quote(data, language)
    if not isinstance(data, Mapping):
        return _generic("create_cluster", data, language)
    name = data.get("name")
    budget = _money(data, "budget")
    spend = (
        say(
            language,
            "sum_create_budget_xyclaw_releases_it",
            budget=_amount(budget, data.get("currency")),
        )
        if budget
        else ""
    )
    state = str(data.get("state") or "")
    if state not in ("ready", "running"):
        shown = _state(language, state) if language == "zh" else state.capitalize()
        tail = say(
            language, "sum_create_setting_up", state=shown or say(language, "sum_create_starting")
        )
    else:
        tail = say(language, "sum_create_billing_runs_per_second")
    line = _cluster_line(data, language)
    return say(language, "sum_create_rented", name=name, line=line, spend=spend, tail=tail)


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
        what = say(
            language, "sum_replacement_in_h", shape=shape, region=quote.get("region"), hourly=hourly
        )
    return say(
        language,
        "sum_replacement_approved_renting_a_replacement",
        nodes=nodes,
        cluster=ask.get("cluster"),
        what=what,
        job=job,
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
    was = _amount(before, currency) if before is not None else say(language, "sum_none")
    more = (
        say(language, "sum_budget_about_h_more_at", hours=hours, hourly=_amount(hourly, currency))
        if hours is not None and hours > 0
        else ""
    )
    return say(
        language,
        "sum_budget_the_budget_of_is",
        name=cluster.get("name"),
        budget=_amount(budget, currency),
        was=was,
        spent=_amount(spent, currency),
        more=more,
    )


def _release(data: Any, language: str) -> str:
    clusters = data if isinstance(data, list) else [data]
    clusters = [c for c in clusters if isinstance(c, Mapping)]
    if not clusters:
        return say(language, "sum_release_there_was_nothing_to")
    lines = []
    for cluster in clusters:
        name = cluster.get("name")
        done = cluster.get("state") == "released" or cluster.get("released_at") is not None
        if done:
            lines.append(say(language, "sum_release_released_billing_stopped", name=name))
        else:
            lines.append(
                say(
                    language,
                    "sum_release_releasing",
                    name=name,
                    state=_state(language, cluster.get("state")),
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
        return say(language, "sum_clusters_no_live_clusters")
    header = say(language, "sum_clusters_header").split("|")
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
    head = say(
        language,
        "sum_health_head",
        cluster=data.get("cluster"),
        state=_state(language, data.get("state")),
        count=len(nodes),
        alerts=alert_text or say(language, "sum_none"),
        running=say(language, "sum_health_job_running") if data.get("job_running") else "",
    )
    header = say(language, "sum_health_header").split("|")
    rows = []
    for n in nodes[:16]:
        alerts = _health_lines(n.get("alerts"), n.get("alerts_said"), language)
        error = _worded_json(n.get("error_said"), language) or n.get("error") or ""
        note = say(language, "sum_semicolon").join(alerts[:2]) or error
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
        label = say(language, "sum_command_exit", node=node, code=code)
        blocks.append(label + "\n" + _remote_block(output or "(no output)", MAX_COMMAND_LINES))
    head = say(language, "sum_command_ran_on_node_s", nodes=len(data), ok=ok, failed=failed)
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
    fabric = (
        say(language, "sum_tune_one_node") if data.get("fabric") == "none" else data.get("fabric")
    )
    if language == "zh":  # the English names the tuner's own word for what it kept
        kept = say(
            language, "sum_tune_recommended" if kept == "recommended" else "sum_tune_current"
        )
    head = say(
        language,
        "sum_tune_head",
        cluster=data.get("cluster"),
        fabric=fabric,
        headline=headline,
        kept=kept,
    ) + (
        say(language, "sum_tune_decision", decision=decision)
        if decision
        else say(language, "sum_tune_end")
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
    on = say(language, "sum_launch_on", cluster=cluster) if cluster else ""
    return say(
        language,
        "sum_launch",
        job_line=_job_line(data, language),
        on=on,
        state=_state(language, state),
        ident=ident,
    )


def _slurm_launch(data: Any, language: str) -> str:
    """A job submitted to a lab's Slurm cluster (issue 33)."""
    ident, partition = data.get("job_id"), data.get("partition")
    state = data.get("state") or "PENDING"
    return say(
        language,
        "sum_slurm_launch_submitted_job_to_partition",
        ident=ident,
        partition=partition,
        state=state,
    )


def _slurm_queue(data: Any, language: str) -> str:
    """The wait per partition of the lab's Slurm clusters (issue 33)."""
    rows = [r for r in data.get("waits") or [] if isinstance(r, Mapping)]
    shape = f"{data.get('nodes')} x {data.get('gpus_per_node')}" + (
        f" {data['gpu']}" if data.get("gpu") else ""
    )
    if not rows:
        return say(language, "sum_slurm_queue_no_partition_of_the", shape=shape)
    lines = []
    for r in rows[:MAX_ROWS]:
        wait = r.get("wait_s")
        when = (
            say(language, "sum_slurm_queue_runs_now")
            if wait is not None and wait <= 60
            else say(language, "sum_slurm_queue_wait_unknown")
            if wait is None
            else say(language, "sum_slurm_queue_waits", minutes=-(-int(wait) // 60))
        )
        free = r.get("free_gpus")
        lines.append(
            say(
                language,
                "sum_slurm_queue_gpu_s_free",
                site=r.get("site"),
                partition=r.get("partition"),
                free=free,
                when=when,
            )
        )
    head = say(language, "sum_slurm_queue_the_queue_for_gpus", shape=shape)
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
            say(language, "sum_job_status_step", step=step) + (f"/{total}" if total else "") + pct
        )
    elif isinstance(data.get("progress"), (int, float)):
        parts.append(say(language, "sum_job_status_done", progress=data["progress"]))
    loss = data.get("loss")
    if loss is not None:
        parts.append(f"loss {loss:.4g}" if isinstance(loss, float) else f"loss {loss}")
    eta = _duration(_first(data, "eta_s", "eta_seconds"))
    if eta:
        parts.append(say(language, "sum_job_status_eta", eta=eta))
    if data.get("error"):
        parts.append(say(language, "sum_job_status_error", error=data["error"]))
    line = _job_line(data, language)
    joined = say(language, "sum_job_status_comma").join(parts)
    return say(language, "sum_job_status", line=line, parts=joined)


def _logs(data: Any, language: str) -> str:
    job = None
    truncated = None
    if isinstance(data, Mapping):
        job = _first(data, "job", "job_id", "id")
        text, truncated = _remote_text(_first(data, "log", "lines", "text", "data"))
    else:
        text, truncated = _remote_text(data)
    count = len(text.splitlines())
    where = say(language, "sum_logs_of_job", job=job) if job is not None else ""
    if not text.strip():
        return say(language, "sum_logs_no_log_lines_yet", where=where)
    head = say(language, "sum_logs_last_log_line_s", min=min(count, MAX_LOG_LINES), where=where)
    if truncated:
        if language == "zh":  # the tool's own note, kept as a Said beside its English
            truncated = _said_in(language, data, truncated)
        head += say(language, "sum_logs_truncated", truncated=truncated)
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
    return say(
        language,
        "sum_cancel",
        job_line=_job_line(data, language),
        state=_state(language, data.get("state")),
    )


def _period_label(period: Any, language: str, cluster: Any = None) -> str:
    if period in ("today", "month", "last_month", "all"):
        return say(language, f"period.{period}")
    if period == "cluster" or cluster:
        return say(language, "sum_period_label_on", cluster=cluster)
    if isinstance(period, str) and period:
        return say(language, "sum_period_label_in", period=period)
    return say(language, "sum_period_label_so_far")


def _cost(data: Any, language: str) -> str:
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return say(language, "sum_cost_spent", data=data)
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
    parts = [say(language, "sum_cost_spent_2", total_text=total_text, label=label)]
    clusters = [c for c in data.get("clusters") or [] if isinstance(c, Mapping)]
    rate = data.get("rate_per_hour")
    if isinstance(rate, Mapping) and any(isinstance(v, (int, float)) and v for v in rate.values()):
        now = ", ".join(_amount(float(v), k) for k, v in rate.items() if v)
        parts.append(say(language, "sum_cost_live_clusters_cost_per", now=now))
    if len(clusters) > 1:
        header = say(language, "sum_cost_cluster_cost").split("|")
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
    "id",
    "name",
    "state",
    "gpu",
    "kind",
    "message",
    "created_at",
    "at",
    "cost",
)


def _history(data: Any, language: str) -> str:
    kind = None
    rows_in = data
    if isinstance(data, Mapping):
        kind = data.get("kind")
        rows_in = _first(data, "rows", "items", kind or "rows") or []
    rows_list = [r for r in rows_in if isinstance(r, Mapping)] if isinstance(rows_in, list) else []
    known = ("jobs", "clusters", "plans", "events", "conversations")
    kind_key = f"history.{kind}" if kind in known else "history.entries"
    if not rows_list:
        return say(language, "sum_history_none", kind=say(language, kind_key))
    columns = [k for k in _HISTORY_COLUMNS if any(k in r for r in rows_list)]
    if any("cost" not in r and _money(r, "cost") is not None for r in rows_list):
        columns.append("cost")
    header = [say(language, f"column.{key}") for key in columns]
    rows = []
    for r in rows_list[: MAX_ROWS * 2]:
        row: list[Any] = []
        for key in columns:
            if key in ("created_at", "at"):
                row.append(_when(r.get(key)))
            elif key == "cost":
                row.append(_amount(_money(r, "cost"), r.get("currency")))
            elif key == "state":
                row.append(_state(language, r.get(key)))
            else:
                row.append(r.get(key))
        rows.append(row)
    kind_text = say(language, kind_key)
    if len(rows) == 1:
        head = say(language, "sum_history_head_one", kind=kind_text.rstrip("s"))
    else:
        head = say(language, "sum_history_head", count=len(rows), kind=kind_text)
    return head + "\n\n" + _table(header, rows) + _more(language, len(rows), len(rows_list))


def _alerts(data: Any, language: str) -> str:
    alerts = [
        a
        for a in (data if isinstance(data, list) else data.get("alerts") or [])
        if isinstance(a, Mapping)
    ]
    if not alerts:
        return say(language, "sum_alerts_no_open_alerts")
    lines = [say(language, "sum_alerts_open_alert_s", alerts_count=len(alerts))]
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
            say(language, "sum_alerts_where", where=where) if where else ""
        )
        line += say(language, "sum_alerts_message", message=message)
        if action:
            line += say(language, "sum_alerts_suggested", action=action)
        lines.append(line)
    return "\n".join(lines) + _more(language, min(len(alerts), MAX_ROWS), len(alerts))


def _track_record(data: Any, language: str) -> str:
    """How each provider (region, node class, host) has been: one row each (issue 36)."""
    standings = [s for s in data.get("standings") or [] if isinstance(s, Mapping)]
    if not standings:
        return say(language, "sum_track_record_no_rentals_in_the", days=data.get("days", 90))
    by = str(data.get("by") or "provider").replace("_", " ")
    header = [
        by if language != "zh" else say(language, "track.by"),
        *(
            say(language, f"track.{column}")
            for column in ("rentals", "failed", "worst_busbw", "drift", "refused", "leaks", "ready")
        ),
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
                "-" if ready is None else say(language, "sum_track_record_min", minutes=ready / 60),
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
    head = say(language, "sum_why_stuck_job_from_its_ranks", job=job)
    out = f"{head}\n{verdict.strip()}"
    action = data.get("action")
    if action:
        out += say(language, "sum_why_stuck_what_to_do", action=action)
    return out


def _generic(tool: str, data: Any, language: str) -> str:
    text = json.dumps(data, ensure_ascii=False, default=str)
    if len(text) > 600:
        text = text[:600] + " ..."
    return say(language, "sum_generic_done", tool=tool, text=text)


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
        return say(language, "sum_failed", tool=tool, error=data["error"]) + (
            say(language, "hint", hint=hint) if hint else ""
        )
    formatter = _FORMATTERS.get(tool)
    if formatter is None:
        return _generic(tool, data, language)
    try:
        return formatter(data, language)
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError):
        # A result shaped unlike what the formatter knows still gets an answer, never a traceback.
        return _generic(tool, data, language)
