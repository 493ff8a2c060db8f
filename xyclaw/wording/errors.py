"""Wording of errors: ``key: (English, Chinese)``, ``str.format`` fields in braces."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # -- SSH: a node that is down or does not answer (what a lost node's alert says) -------------
    "error.ssh.refused": ("{host} refused the connection", "{host} 拒绝了连接"),
    "error.ssh.refused.hint": (
        "is the machine up and sshd listening on that port? check Port in your ssh config",
        "机器是否开着、sshd 是否在该端口监听？检查 ssh 配置中的 Port",
    ),
    "error.ssh.no_answer": (
        "no answer from {host} within {seconds} s",
        "{host} 在 {seconds} 秒内没有应答",
    ),
    "error.ssh.no_answer.hint": (
        "check that the machine is running and the address is right; a firewall may drop the"
        " packets; raise ssh.connect_timeout_s on slow links",
        "检查机器是否在运行、地址是否正确；防火墙可能丢弃了数据包；链路慢时调大"
        " ssh.connect_timeout_s",
    ),
}
