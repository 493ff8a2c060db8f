"""Wording of a turn that goes wrong (issue 26): what a model endpoint sent that is not an
answer, a reply with too many tool calls, arguments out of range, and the rules brain's words
back for a request it cannot act on safely. ``key: (English, Chinese)``."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # -- what an endpoint sent instead of an answer (xyclaw.agent.llm) --------------------------
    "agent.turn.endpoint.malformed": (
        "{where} sent a stream line that is not JSON: {line}",
        "{where} 发来的流数据行不是 JSON：{line}",
    ),
    "agent.turn.endpoint.malformed_hint": (
        "the server does not speak OpenAI's streaming format; check [llm] base_url, or use"
        " another server",
        "该服务不支持 OpenAI 的流式格式；请检查 [llm] base_url，或换一个服务",
    ),
    "agent.turn.endpoint.html": (
        "{where} answered with a web page ({content_type}: {start}) instead of a stream of"
        " completions",
        "{where} 返回了一个网页（{content_type}：{start}），而不是补全结果的数据流",
    ),
    "agent.turn.endpoint.html_hint": (
        "[llm] base_url points at a web site or a login page; an OpenAI-compatible URL usually"
        " ends in /v1",
        "[llm] base_url 指向了网站或登录页；OpenAI 兼容的地址通常以 /v1 结尾",
    ),
    "agent.turn.endpoint.not_stream": (
        "{where} answered {content_type} ({start}) instead of a stream of events",
        "{where} 返回的是 {content_type}（{start}），而不是事件流",
    ),
    "agent.turn.endpoint.lost": (
        "the connection to {where} broke in the middle of its answer ({why})",
        "与 {where} 的连接在回答中途断开（{why}）",
    ),
    "agent.turn.endpoint.lost_hint": ("try again", "请重试"),
    "agent.turn.endpoint.empty": (
        "{where} sent no answer: {what}",
        "{where} 没有给出回答：{what}",
    ),
    "agent.turn.endpoint.no_events": (
        "the stream ended without a single event",
        "数据流没有任何事件就结束了",
    ),
    "agent.turn.endpoint.no_choices": (
        "{chunks} chunk(s), none with a choice (an empty choices list)",
        "{chunks} 个数据块，没有一个带有 choice（choices 列表为空）",
    ),
    "agent.turn.endpoint.null_deltas": (
        "{chunks} chunk(s) whose deltas were empty or null",
        "{chunks} 个数据块，其 delta 都为空或 null",
    ),
    "agent.turn.endpoint.empty_hint": (
        "try again; if it happens again, the server is not OpenAI-compatible enough: pick"
        " another model or server in Settings",
        "请重试；如果仍然如此，说明该服务与 OpenAI 不够兼容：请在设置里换一个模型或服务",
    ),
    "agent.turn.endpoint.deadline": (
        "{where} had not finished its answer after {seconds} s ({chars} characters so far)",
        "{where} 在 {seconds} 秒内没有答完（已收到 {chars} 个字符）",
    ),
    "agent.turn.endpoint.deadline_hint": (
        "try again, raise [llm] timeout_s, or pick a faster model",
        "请重试、调大 [llm] timeout_s，或换一个更快的模型",
    ),
    "agent.turn.reasoning_only": (
        "The model gave no answer, only its reasoning:\n\n{reasoning}",
        "模型没有给出回答，只有推理过程：\n\n{reasoning}",
    ),
    # -- the graph's limits -------------------------------------------------------------------
    "agent.turn.too_many_calls": (
        "The model asked for {count} tool calls in one reply; at most {limit} are allowed, so"
        " none of them ran. Ask for fewer things at once, or pick another model in Settings.",
        "模型在一次回复里要调用 {count} 次工具，最多允许 {limit} 次，所以一次都没有执行。"
        "请一次少问几件事，或在设置里换一个模型。",
    ),
    "agent.turn.recursion": (
        "The turn stopped after {steps} steps without an answer. Ask again with a narrower"
        " request.",
        "这一轮执行了 {steps} 步仍没有结果，已停止。请把请求说得更具体些再问。",
    ),
    # -- a tool call's arguments (xyclaw.agent.arguments) -------------------------------------
    "agent.turn.arg.range": (
        "{name} must be between {low} and {high}, got {value}",
        "{name} 必须在 {low} 到 {high} 之间，收到的是 {value}",
    ),
    "agent.turn.arg.not_finite": (
        "{name} must be a finite number between {low} and {high}, got {value}",
        "{name} 必须是 {low} 到 {high} 之间的有限数，收到的是 {value}",
    ),
    "agent.turn.arg.too_large": (
        "{name} is a number of {digits} digits; numbers here must be between {low} and {high}",
        "{name} 是一个 {digits} 位的数字；这里的数字必须在 {low} 到 {high} 之间",
    ),
}
