"""What ``xyclaw doctor`` says of each check and what to set up next (issue 35): the same
texts the CLI prints in English, worded in Chinese when ``[gui] language`` says so."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "op.doctor.python": ("Python {version} at {executable}", "Python {version}，位于 {executable}"),
    "op.doctor.python.fix": ("install Python 3.11 or newer", "安装 Python 3.11 或更新的版本"),
    "op.doctor.no_display.fix": (
        "on a machine with no display run `xvfb-run -a xyclaw`, or set "
        "QT_QPA_PLATFORM=offscreen; the command-line tools work without one",
        "在没有显示器的机器上运行 `xvfb-run -a xyclaw`，或设置 QT_QPA_PLATFORM=offscreen；"
        "命令行工具不需要显示器",
    ),
    "op.doctor.qt.no_answer": (
        "the Qt probe did not answer ({error})",
        "Qt 探测没有应答（{error}）",
    ),
    "op.doctor.qt.no_answer.fix": ("reinstall: make run", "重新安装：`make run`"),
    "op.doctor.qt.no_display": (
        "there is no display here (DISPLAY and WAYLAND_DISPLAY are not set), "
        "so the desktop app cannot open",
        "这里没有显示器（DISPLAY 和 WAYLAND_DISPLAY 都没有设置），桌面应用无法打开",
    ),
    "op.doctor.qt.cannot_open_exit": (
        "Qt cannot open a window (exit {code}): {said}",
        "Qt 无法打开窗口（退出码 {code}）：{said}",
    ),
    "op.doctor.qt.libraries.fix": (
        "install the system libraries Qt names (on Debian/Ubuntu from a checkout: "
        "`make system-deps`), or set QT_QPA_PLATFORM=offscreen",
        "安装 Qt 提到的系统库（在 Debian/Ubuntu 的源码目录里：`make system-deps`），"
        "或设置 QT_QPA_PLATFORM=offscreen",
    ),
    "op.doctor.qt.ok": ("Qt {qt} platform {platform}", "Qt {qt}，平台 {platform}"),
    "op.doctor.qt.cannot_open": ("Qt cannot open a window: {error}", "Qt 无法打开窗口：{error}"),
    "op.doctor.qt.unknown_error": ("unknown error", "未知错误"),
    "op.doctor.data_folder.not_writable": (
        "{folder} is not writable ({error})",
        "{folder} 不可写（{error}）",
    ),
    "op.doctor.data_folder.not_writable.fix": (
        "fix its permissions, or set XYCLAW_HOME to a writable folder",
        "修正它的权限，或把 XYCLAW_HOME 设为一个可写的文件夹",
    ),
    "op.doctor.database.newer": (
        "schema version {version} is newer than this XyClaw ({latest})",
        "数据库结构版本 {version} 比这个 XyClaw 的（{latest}）更新",
    ),
    "op.doctor.database.newer.fix": ("upgrade XyClaw", "升级 XyClaw"),
    "op.doctor.database.created": (
        "{path} will be created on first use",
        "{path} 会在第一次使用时创建",
    ),
    "op.doctor.database.version": (
        "{path}, schema version {version}{note}",
        "{path}，结构版本 {version}{note}",
    ),
    "op.doctor.database.migrates": (
        " (migrates to {latest} on next start)",
        "（下次启动时迁移到 {latest}）",
    ),
    "op.doctor.secrets.file": (
        "no OS keyring in use; secrets go to {path} (mode 0600)",
        "没有使用系统密钥环；密钥保存在 {path}（权限 0600）",
    ),
    "op.doctor.secrets.keyring": ("OS keyring: {name}", "系统密钥环：{name}"),
    "op.doctor.ssh.found_keys_and_agent": (
        "found {keys} and an SSH agent",
        "找到 {keys} 和一个 SSH 代理",
    ),
    "op.doctor.ssh.found_keys": ("found {keys}", "找到 {keys}"),
    "op.doctor.ssh.found_agent": ("found an SSH agent", "找到一个 SSH 代理"),
    "op.doctor.ssh.none": (
        "no private key in {folder} and no SSH agent",
        "{folder} 里没有私钥，也没有 SSH 代理",
    ),
    "op.doctor.ssh.none.fix": (
        "only needed for your own hosts: run `ssh-keygen -t ed25519` (the simulated cloud "
        "needs none)",
        "只有你自己的主机需要：运行 `ssh-keygen -t ed25519`（模拟云不需要）",
    ),
    "op.doctor.llm.rules": (
        "built-in rules brain (no LLM endpoint set)",
        "内置规则大脑（没有设置 LLM 端点）",
    ),
    "op.doctor.llm.preset": (
        "preset {preset} with its default endpoint",
        "预设 {preset}，使用它的默认端点",
    ),
    "op.doctor.llm.no_answer": ("{url} did not answer ({error})", "{url} 没有应答（{error}）"),
    "op.doctor.llm.no_answer.fix": (
        "check [llm] base_url and that the server is running",
        "检查 [llm] base_url，以及服务器是否在运行",
    ),
    "op.doctor.llm.refused": ("{url} refused the API key", "{url} 拒绝了 API 密钥"),
    "op.doctor.llm.wants_key": (
        "{url} wants an API key and none is stored",
        "{url} 需要 API 密钥，但没有保存",
    ),
    "op.doctor.llm.store_key.fix": (
        "store it: `xyclaw secrets set {name}` (or in the app's Settings)",
        "保存它：`xyclaw secrets set {name}`（或在应用的设置里）",
    ),
    "op.doctor.llm.http": ("{url} answered HTTP {status}", "{url} 返回 HTTP {status}"),
    "op.doctor.llm.http.fix": (
        "check [llm] base_url (it should end in /v1 for most servers)",
        "检查 [llm] base_url（多数服务器应以 /v1 结尾）",
    ),
    "op.doctor.llm.ok": ("{url} answers", "{url} 有应答"),
    "op.doctor.guard.service": ("; user service {unit}", "；用户服务 {unit}"),
    "op.doctor.guard.install": (
        "; to run it from login: `xyclaw guard install`",
        "；要在登录时运行它：`xyclaw guard install`",
    ),
    "op.doctor.guard.running": ("{status}{service}", "{status}{service}"),
    "op.doctor.guard.off": (
        "not running, and [guard] autostart is off: budgets and idle release hold only"
        " while the desktop app or `xyclaw guard` runs",
        "没有运行，且 [guard] autostart 已关闭：预算和空闲释放只在桌面应用或 "
        "`xyclaw guard` 运行时生效",
    ),
    "op.doctor.guard.off.fix": (
        "set [guard] autostart = true, or `xyclaw guard install` (docs/guard.md)",
        "设置 [guard] autostart = true，或运行 `xyclaw guard install`（见 docs/guard.md）",
    ),
    "op.doctor.guard.auto": (
        "not running; it starts by itself whenever a cluster is live{service}",
        "没有运行；有集群在运行时它会自己启动{service}",
    ),
    "op.doctor.hosts.none": ("none at {path} (your own machines)", "{path} 不存在（你自己的机器）"),
    "op.doctor.hosts.count": ("{n} host(s) in {path}", "{path} 中有 {n} 台主机"),
    "op.doctor.hosts.count_sites": (
        "{n} host(s) and {sites} Slurm site(s) in {path}",
        "{path} 中有 {n} 台主机、{sites} 个 Slurm 站点",
    ),
    "op.doctor.next.hosts": (
        "your own GPU machine over SSH: `xyclaw hosts add gpu1 --host 10.0.0.5 --user root "
        "--gpu A100-80G --gpus 8`, then `xyclaw hosts test gpu1`",
        "通过 SSH 使用你自己的 GPU 机器：`xyclaw hosts add gpu1 --host 10.0.0.5 --user root "
        "--gpu A100-80G --gpus 8`，然后 `xyclaw hosts test gpu1`",
    ),
    "op.doctor.next.model": (
        "a model for the agents (the rules agent answers now): `xyclaw model-key deepseek` "
        '(or openai, qwen, ...), then `[llm] preset = "deepseek"` in config.toml or the '
        "app's Settings, Model",
        "给智能体配一个模型（现在由规则智能体回答）：`xyclaw model-key deepseek`"
        '（或 openai、qwen 等），然后在 config.toml 里写 `[llm] preset = "deepseek"`，'
        "或在应用的设置 > 模型里选择",
    ),
    "op.doctor.next.cloud": (
        "a real cloud: `xyclaw secrets set lambda_api_key` (Lambda Cloud), "
        "`vastai_api_key` (Vast.ai), `runpod_api_key` (RunPod) or "
        "`autodl_token` (AutoDL); see docs/providers.md",
        "真实的云：`xyclaw secrets set lambda_api_key`（Lambda Cloud）、"
        "`vastai_api_key`（Vast.ai）、`runpod_api_key`（RunPod）或 "
        "`autodl_token`（AutoDL）；见 docs/providers.md",
    ),
}
