"""What people type, said back (issue 35, b35): the planner's and the money parsers' errors
(``7B``, ``48h``, ``8-32``, ``500 CNY``), which ``xyclaw plan`` and ``xyclaw up --budget`` show
as usage errors, and the CLI's reconcile and ledger lines."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # -- xyclaw.planner.parse / xyclaw.catalog.money -----------------------------------------
    "error.typed.too_long": ("{head}... is not {what}: too long", "{head}... 不是{what}：太长了"),
    "error.typed.what.count": ("a count", "有效的数量"),
    "error.typed.what.token_count": ("a token count", "有效的 token 数"),
    "error.typed.what.context": ("a context length", "有效的上下文长度"),
    "error.typed.what.model_size": ("a model size", "有效的模型规模"),
    "error.typed.what.duration": ("a duration", "有效的时长"),
    "error.typed.what.gpu_count": ("a GPU count", "有效的 GPU 数量"),
    "error.typed.what.amount": ("an amount", "有效的金额"),
    "error.typed.not_count": (
        "{text} is not {what}; expected a number with an optional K, M, B or T suffix,"
        " such as 7B, 13b, 300M or 1.5e9",
        "{text} 不是{what}；应为数字，可带 K、M、B 或 T 后缀，例如 7B、13b、300M 或 1.5e9",
    ),
    "error.typed.count_too_large": (
        "{text} is more than XyClaw plans for; expected at most {most}",
        "{text} 超出了 XyClaw 的规划范围；最多 {most}",
    ),
    "error.typed.not_positive": (
        "{text} is not {what}; expected more than zero",
        "{text} 不是{what}；应大于零",
    ),
    "error.typed.size_small": (
        "{text} is only {count} parameters; expected a size such as 7B or 1.5e9"
        " (did you forget the B?)",
        "{text} 只有 {count} 个参数；应为 7B 或 1.5e9 这样的规模（是不是漏了 B？）",
    ),
    "error.typed.not_duration": (
        "{text} is not a duration; expected a number with a unit, such as 48h, 2d, 90m or 1d12h",
        "{text} 不是有效的时长；应为带单位的数字，例如 48h、2d、90m 或 1d12h",
    ),
    "error.typed.duration_too_long": (
        "{text} is longer than XyClaw plans for; expected at most 10 years",
        "{text} 超出了 XyClaw 的规划范围；最长 10 年",
    ),
    "error.typed.not_gpu_range": (
        "{text} is not a GPU count; expected N, MIN-MAX or N+, such as 8-32",
        "{text} 不是有效的 GPU 数量；应为 N、MIN-MAX 或 N+，例如 8-32",
    ),
    "error.typed.gpus_at_most": (
        "{text}: expected at most {most} GPUs",
        "{text}：最多 {most} 张 GPU",
    ),
    "error.typed.gpus_at_least": ("{text}: expected at least 1 GPU", "{text}：至少 1 张 GPU"),
    "error.typed.range_order": (
        "{text}: the range must go from small to large, such as 8-32",
        "{text}：范围应从小到大，例如 8-32",
    ),
    "error.typed.not_budget": (
        "{text} is not an amount; expected a number such as 500 or 500 CNY",
        "{text} 不是有效的金额；应为 500 或 500 CNY 这样的数",
    ),
    "error.typed.budget_positive": ("{text}: expected a budget above zero", "{text}：预算应大于零"),
    "error.typed.not_amount": (
        "{text} is not an amount; expected a number such as 3.5",
        "{text} 不是有效的金额；应为 3.5 这样的数",
    ),
    "error.typed.not_finite_amount": ("{text} is not a finite amount", "{text} 不是有限的金额"),
    "error.typed.negative_amount": (
        "{text} is negative; expected an amount of 0 or more",
        "{text} 是负数；金额应大于等于 0",
    ),
    "error.typed.amount_too_large": (
        "{text} is too large; expected at most {most}",
        "{text} 太大了；最多 {most}",
    ),
    "error.typed.too_many_places": (
        "{text} has more than 6 decimal places",
        "{text} 的小数超过 6 位",
    ),
    "error.typed.not_number": ("{text} is not a number", "{text} 不是数字"),
    "error.typed.not_finite": ("{text} is not a finite number", "{text} 不是有限的数"),
    "error.typed.beyond_plans": (
        "{text} is more than XyClaw plans for (at most {most})",
        "{text} 超出了 XyClaw 的规划范围（最多 {most}）",
    ),
    # -- xyclaw.catalog.fabrics ----------------------------------------------------------------
    "error.typed.not_fabric": (
        "{text} is not a fabric; expected one of {names}"
        " (or ib-<generation>-<Gb/s>, roce-<Gb/s>, eth-<Gb/s>)",
        "{text} 不是有效的网络；应为以下之一：{names}"
        "（或 ib-<代>-<Gb/s>、roce-<Gb/s>、eth-<Gb/s>）",
    ),
    "error.typed.no_link_rate": (
        "{text} has no link rate; expected a rate in Gb/s such as roce-100",
        "{text} 没有链路速率；应带上 Gb/s 速率，例如 roce-100",
    ),
    "error.typed.ib_generation": (
        "{text}: unknown InfiniBand generation {generation}; expected one of {names}",
        "{text}：未知的 InfiniBand 代 {generation}；应为以下之一：{names}",
    ),
    "error.typed.ib_rate": (
        "{text}: InfiniBand {generation} runs at {gbps} Gb/s",
        "{text}：InfiniBand {generation} 的速率是 {gbps} Gb/s",
    ),
    "error.typed.or_family": (
        "{problem}; a family ({families}) also works",
        "{problem}；也可以只给网络类别（{families}）",
    ),
    # -- xyclaw.catalog.loader: an offers file (`xyclaw plan --offers`) -----------------------
    "error.typed.catalog_unreadable": (
        "cannot read the catalog file {path}: {why}",
        "无法读取报价文件 {path}：{why}",
    ),
    "error.typed.no_such_file": ("No such file or directory", "没有这个文件或目录"),
    "error.typed.catalog_unreadable_hint": (
        "check that the file exists and is readable",
        "请确认文件存在且可读",
    ),
    "error.typed.catalog_not_utf8": (
        "{path} is not UTF-8 text (offset {offset}): not a CSV file of offers",
        "{path} 不是 UTF-8 文本（偏移 {offset}）：不是报价的 CSV 文件",
    ),
    "error.typed.catalog_not_utf8_hint": (
        "give a CSV file saved as UTF-8 (docs/planner.md shows its columns)",
        "请给出以 UTF-8 保存的 CSV 文件（docs/planner.md 列出了它的各列）",
    ),
    # -- xyclaw.planner.ranking ----------------------------------------------------------------
    "error.typed.unknown_gpu": ("unknown GPU model {gpu}", "未知的 GPU 型号 {gpu}"),
    "error.typed.no_offer_in": ("no offer is in {field} {value}", "{field} {value} 中没有报价"),
    "error.typed.known": ("known: {names}", "已知：{names}"),
    # -- xyclaw.engine: a provider not checked, a ledger not read ------------------------------
    "error.typed.reconcile_failed": ("{provider}: {problem}", "{provider}：{problem}"),
    "error.typed.reconcile_no_answer": (
        "it did not answer within {seconds} s; its clusters are shown as last seen",
        "{seconds} 秒内没有应答；它的集群按上次所见显示",
    ),
    "error.typed.ledger_unavailable": (
        "{provider}'s ledger is unavailable: {problem}",
        "{provider} 的账单暂时无法读取：{problem}",
    ),
    # -- xyclaw.tuning: the ports a probe found down, as one cause's detail --------------------
    "common.semicolons": ("{first}; {rest}", "{first}；{rest}"),
    # -- the CLI ---------------------------------------------------------------------------------
    "cli.usage.flag_problem": ("{flag}: {problem}", "{flag}：{problem}"),
    "cli.plan_note": ("xyclaw plan: {text}", "xyclaw plan：{text}"),
    "cli.reconcile.not_checked": ("warning: could not check {error}", "警告：无法核对 {error}"),
    "cli.reconcile.orphan_released": (
        "released orphan {name} (it billed but XyClaw did not expect it)",
        "已释放孤儿实例 {name}（它在计费，但不是 XyClaw 预期的）",
    ),
    "cli.reconcile.orphan": (
        "ORPHAN {name} bills but is not XyClaw's: release it if it is not yours",
        "孤儿实例 {name} 在计费，但不属于 XyClaw：如果不是你的，请释放它",
    ),
    "cli.reconcile.interrupted": (
        "released {name}: its set-up was interrupted",
        "已释放 {name}：它的准备过程被中断了",
    ),
    "cli.reconcile.finished": ("finished releasing {name}", "已完成释放 {name}"),
    "cli.reconcile.gone": ("{name} is gone from its provider", "{name} 已不在它的提供商处"),
}
