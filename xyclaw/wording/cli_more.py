"""The command line's last English lines (issue 35, c35): what ``xyclaw chat`` prints itself,
an offers file's field errors and the guard's own errors, in the ``[gui] language``.
English entries are the texts the commands printed before."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # -- xyclaw chat (and the token line `xyclaw ask` shares) -----------------------------------
    "cli.chat.banner": (
        "XyClaw chat ({brain}), conversation {cid}. /help for commands.",
        "XyClaw 对话（{brain}），对话 {cid}。输入 /help 查看命令。",
    ),
    "cli.chat.conversation": ("conversation {cid}", "对话 {cid}"),
    "cli.chat.pending_mark": (" (approval pending)", "（等待批准）"),
    "cli.chat.switch_usage": ("usage: /switch N", "用法：/switch N"),
    "cli.chat.revoke_usage": ("usage: /revoke N", "用法：/revoke N"),
    "cli.chat.revoked": ("revoked", "已撤销"),
    "cli.chat.interrupted": ("(interrupted)", "（已中断）"),
    "cli.chat.allowance": (
        "{id:>4}  {tool} `{what}` on {cluster} in '{title}'",
        "{id:>4}  {tool} `{what}`，集群 {cluster}，对话“{title}”",
    ),
    "cli.chat.card_elsewhere": (
        "(a card waits in conversation {cid}, {title}: /switch {cid})",
        "（对话 {cid}“{title}”里有一张卡片在等待：/switch {cid}）",
    ),
    "cli.chat.prompt": ("you> ", "你> "),
    "cli.chat.approve_prompt": (
        "approve? [a]pprove / [r]eject / [e]dit > ",
        "批准吗？[a] 批准 / [r] 拒绝 / [e] 修改 > ",
    ),
    "cli.chat.not_remembered": (
        "(only commands and tuning can be remembered; this one asks every time)",
        "（只有命令和调优可以记住；这一项每次都会询问）",
    ),
    "cli.chat.edit_prompt": (
        'new arguments as JSON (e.g. {{"option": 2}}): ',
        '新的参数，JSON 格式（例如 {{"option": 2}}）：',
    ),
    "cli.chat.not_json": ("that is not JSON; nothing changed", "这不是 JSON；没有改动"),
    "cli.chat.not_object": ("give a JSON object", "请给出一个 JSON 对象"),
    "cli.chat.tokens": (
        "({tokens_in} tokens in, {tokens_out} out, {cost})",
        "（输入 {tokens_in} tokens，输出 {tokens_out}，{cost}）",
    ),
}
