"""What ``xyclaw demo`` says and asks (issue 35): in a Chinese setting the demo asks the rules
brain in Chinese, so the brain answers in Chinese as it does in the window, and its own
frame, the tool-call lines and the approval lines are Chinese too."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    "agent.demo.rules_only": (
        "(the demo uses the rules brain; [llm] preset is {preset})",
        "（演示使用内置规则大脑；[llm] 预设为 {preset}）",
    ),
    "agent.demo.conversation": ("Demo", "演示"),
    "agent.demo.start": (
        "XyClaw demo: conversation {cid}, rules brain, simulated cloud",
        "XyClaw 演示：对话 {cid}，内置规则大脑，模拟云",
    ),
    # the requests, as a person would type them (the rules brain reads both languages)
    "agent.demo.ask_plan": (
        "LoRA fine-tune a {model} model on 8 GPUs, budget 2000 CNY",
        "用8张卡LoRA微调{model}模型，预算2000元",
    ),
    "agent.demo.ask_rent": ("rent option 1", "租方案1"),
    "agent.demo.ask_tune": ("tune {cluster}", "给 {cluster} 做 NCCL 调优"),
    "agent.demo.ask_launch": (
        "launch {sample} on {cluster}",
        "在 {cluster} 上启动 {sample}",
    ),
    "agent.demo.ask_status": ("status of job {job}", "任务 {job} 怎么样了"),
    "agent.demo.ask_logs": ("logs of job {job}", "看一下任务 {job} 的日志"),
    "agent.demo.ask_release": ("release {cluster}", "释放 {cluster}"),
    "agent.demo.ask_cost": ("how much did I spend today?", "今天花了多少钱？"),
    "agent.demo.ask_history": ("show the last 5 clusters", "显示最近 5 个集群"),
    # the steps' titles
    "agent.demo.step_plan": ("plan", "规划"),
    "agent.demo.step_rent": ("rent", "租用"),
    "agent.demo.step_tune": ("tune", "调优"),
    "agent.demo.step_launch": ("launch", "启动"),
    "agent.demo.step_follow": ("follow", "跟踪"),
    "agent.demo.step_release": ("release", "释放"),
    "agent.demo.step_history": ("history", "历史"),
    # the transcript's frame
    "agent.demo.you": ("-- {step}: you> {text}", "-- {step}：你> {text}"),
    "agent.demo.approval": ("   approval ({effect}): {title}", "   需要批准（{effect}）：{title}"),
    "agent.demo.approving": ("   approving on your behalf (demo)", "   代你批准（演示）"),
    "agent.demo.call": ("   {tool}: {status}", "   {tool}：{status}"),
    "agent.demo.call_note": ("   {tool}: {status} ({note})", "   {tool}：{status}（{note}）"),
    "agent.demo.cluster_up": ("   cluster {cluster} is up", "   集群 {cluster} 已就绪"),
    "agent.demo.asked": (
        "   (asked for the status {count} times while the job ran)",
        "   （作业运行期间查询了 {count} 次状态）",
    ),
    "agent.demo.finished": ("demo finished in {seconds:.1f} s", "演示完成，用时 {seconds:.1f} 秒"),
    "agent.demo.failed": ("demo failed: {why}", "演示失败：{why}"),
    "agent.demo.no_option": ("the plan found no option", "规划没有找到任何选项"),
    "agent.demo.no_cluster": ("no cluster came up", "没有集群就绪"),
    "agent.demo.not_called": (
        "step {step}: the rules brain did not call {tool}",
        "步骤 {step}：规则大脑没有调用 {tool}",
    ),
    "agent.demo.call_ended": (
        "step {step}: {tool} {status}: {error}",
        "步骤 {step}：{tool} {status}：{error}",
    ),
    "agent.demo.job_ended": ("job {job} {state}", "作业 {job} {state}"),
    "agent.demo.job_late": (
        "job {job} still {state} at the deadline",
        "到期限时作业 {job} 仍为 {state}",
    ),
    # a tool call's status and an approval card's effect, as the transcript names them
    "agent.demo.status_running": ("running", "运行中"),
    "agent.demo.status_done": ("done", "完成"),
    "agent.demo.status_pending_approval": ("pending_approval", "等待批准"),
    "agent.demo.status_approved": ("approved", "已批准"),
    "agent.demo.status_rejected": ("rejected", "已拒绝"),
    "agent.demo.status_failed": ("failed", "失败"),
    "agent.demo.effect_read": ("read", "只读"),
    "agent.demo.effect_spend": ("spend", "花钱"),
    "agent.demo.effect_destroy": ("destroy", "销毁"),
    "agent.demo.effect_exec": ("exec", "执行命令"),
    # a long remote output cut for the model and the summaries (xyclaw.agent.tools.wrap_remote)
    "agent.truncated": (
        "showing the last {limit} of {total} characters; the full text is in XyClaw",
        "只显示最后 {limit} 个字符（共 {total} 个）；完整内容在 XyClaw 里",
    ),
}
