"""Wording of the planner's reasons: ``plan.reason.<rule>`` or ``plan.reason.<rule>/<form>``.

The planner (:func:`xyclaw.planner.rules.explain`) gives each reason its English text and
its figures; English keeps that text (:func:`xyclaw.wording.reason_in`), so the entries'
English here is the same sentence as a template. ``what`` is worded by the planner in both
languages (``what`` and ``what_zh``).
"""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # issue 33: a Slurm partition's queue
    "plan.reason.queue/now": (
        "partition {partition}: {free} GPU(s) free, runs now",
        "分区 {partition}：{free} 张卡空闲，现在就能跑",
    ),
    "plan.reason.queue/wait": (
        "partition {partition}: {free} GPU(s) free of the {gpus} needed; Slurm expects it to"
        " start in about {minutes} min",
        "分区 {partition}：需要 {gpus} 张卡，空闲 {free} 张；Slurm 预计约 {minutes} 分钟后开始",
    ),
    "plan.reason.queue/unknown": (
        "partition {partition}: {free} GPU(s) free of the {gpus} needed; the site does not say"
        " how long the queue is",
        "分区 {partition}：需要 {gpus} 张卡，空闲 {free} 张；集群没说要排多久",
    ),
    # issue 36: the user's own history of a provider and node class
    "plan.reason.memory-node-class": (
        "your history: {provider}'s {gpu} {fabric} nodes in {region} failed on {failed} of"
        " {rented} rentals in the last 30 days ({what}); ranked down",
        "你的历史记录：{provider} 在 {region} 的 {gpu} {fabric} 节点近 30 天 {rented} 次租用中"
        "有 {failed} 次出问题（{what}）；已排后",
    ),
    "plan.reason.memory-node-class-once": (
        "your history: {provider}'s {gpu} {fabric} nodes in {region} failed on {failed} of"
        " {rented} rentals in the last 30 days ({what})",
        "你的历史记录：{provider} 在 {region} 的 {gpu} {fabric} 节点近 30 天 {rented} 次租用中"
        "有 {failed} 次出问题（{what}）",
    ),
    "plan.reason.memory-price-drift": (
        "your history: {provider} billed up to {drift} over the quoted price on {times} of"
        " {rented} rentals in the last 30 days; ranked down",
        "你的历史记录：{provider} 近 30 天 {rented} 次租用中有 {times} 次实际计费高于报价，"
        "最多高 {drift}；已排后",
    ),
    "plan.reason.memory-provider": (
        "your history: {provider} left {leaks} machine(s) billing unseen and refused"
        " {refusals} rental(s) in the last 30 days",
        "你的历史记录：{provider} 近 30 天有 {leaks} 台机器在未察觉时计费，"
        "拒绝了 {refusals} 次租用",
    ),
    "plan.reason.small-jobs-roce/roce": (
        "<=8 cards on a {size} model: RoCE takes only {extra} longer than InfiniBand for less"
        " money (seed 004 rule 1)",
        "{size} 模型 8 卡以内：RoCE 只比 InfiniBand 慢 {extra}，花钱更少（规则 1）",
    ),
    "plan.reason.small-jobs-roce/ib": (
        "<=8 cards on a {size} model: InfiniBand saves only {saved} of the time; RoCE is the"
        " better value (seed 004 rule 1)",
        "{size} 模型 8 卡以内：InfiniBand 只省 {saved} 的时间，RoCE 更划算（规则 1）",
    ),
    "plan.reason.mid-cluster-ib/ib": (
        "16-32 cards on {size} training: InfiniBand; RoCE would take {longer} longer"
        " (seed 004 rule 2)",
        "16-32 卡训练 {size}：用 InfiniBand；RoCE 要多用 {longer} 的时间（规则 2）",
    ),
    "plan.reason.mid-cluster-ib/other": (
        "16-32 cards on {size} training favour InfiniBand: this takes {longer} longer than on"
        " IB (seed 004 rule 2)",
        "16-32 卡训练 {size} 宜用 InfiniBand：这个选项比 IB 慢 {longer}（规则 2）",
    ),
    "plan.reason.large-cluster-ib-only/ib": (
        "above 32 cards only InfiniBand holds up (seed 004 rule 3)",
        "超过 32 卡只有 InfiniBand 撑得住（规则 3）",
    ),
    "plan.reason.large-cluster-ib-only/other": (
        "above 32 cards only InfiniBand holds up: this takes {times}x the IB time"
        " (seed 004 rule 3)",
        "超过 32 卡只有 InfiniBand 撑得住：这个选项耗时是 IB 的 {times} 倍（规则 3）",
    ),
    "plan.reason.cost-sensitive-roce": (
        "on a budget RoCE fits: 30-50% less network hardware than IB (seed 004 rule 4)",
        "预算有限时 RoCE 合适：网络硬件比 IB 省 30-50%（规则 4）",
    ),
    "plan.reason.performance-ib": (
        "speed first: InfiniBand keeps the GPUs busiest (seed 004 rule 5)",
        "速度优先：InfiniBand 让 GPU 最忙（规则 5）",
    ),
    "plan.reason.gpu-fabric-match/slow": (
        "{gpu} wants >= {wants} Gb/s between nodes; {gbps} Gb/s slows it (seed 004 rule 6)",
        "{gpu} 需要节点间 ≥{wants} Gb/s；{gbps} Gb/s 会拖慢它（规则 6）",
    ),
    "plan.reason.gpu-fabric-match/fine": (
        "{gpu} is fine on {gbps} Gb/s RoCE (seed 004 rule 6)",
        "{gpu} 用 {gbps} Gb/s RoCE 就够（规则 6）",
    ),
    "plan.reason.roce-pfc-ecn": (
        "RoCE needs PFC and ECN on the switches, else latency jitters (seed 004 rule 7)",
        "RoCE 交换机要开 PFC 和 ECN，否则延迟抖动（规则 7）",
    ),
    "plan.reason.tcp-ethernet": (
        "plain TCP Ethernet: GPUs reach 35-45% utilization against up to 92% on IB (seed 004)",
        "普通 TCP 以太网：GPU 利用率只有 35-45%，IB 最高可达 92%",
    ),
    "plan.reason.single-node": (
        "one node: {link} only, no inter-node network",
        "单机：只走 {link}，没有节点间网络",
    ),
    "plan.reason.time": (
        "{formula} = {flops} FLOPs at {util} of peak: {hours} h with 10 min setup",
        "{formula} = {flops} FLOPs，达到峰值算力的 {util}：约 {hours} 小时（含 10 分钟准备）",
    ),
    "plan.reason.memory/train": (
        "{used} of {usable} GiB usable per GPU, sharded over {gpus}",
        "每卡用 {used} GiB，可用 {usable} GiB，分片到 {gpus} 张卡",
    ),
    "plan.reason.memory/serve": (
        "{used} of {usable} GiB usable per GPU (weights and KV cache)",
        "每卡用 {used} GiB，可用 {usable} GiB（权重和 KV 缓存）",
    ),
    "plan.reason.throughput": (
        "{replicas} replica(s) of {tp} GPU(s), batch {batch}: {capacity} req/s for {rate}"
        " wanted, {ms} ms per token",
        "{replicas} 个副本，每个 {tp} 张卡，batch {batch}：可承载 {capacity} req/s，"
        "需要 {rate}，每 token {ms} ms",
    ),
    "plan.reason.tier-30d/long": (
        "30-day tier at {price} per card-hour",
        "30 天档，每卡时 {price}",
    ),
    "plan.reason.tier-30d/short": (
        "30-day tier at {price}: paying 30 days beats {hours} h on demand",
        "30 天档 {price}：包 30 天比按需用 {hours} 小时更便宜",
    ),
    "plan.reason.tier-30d-not-rented/listed": (
        "{provider} lists a 30-day tier at {price} per card-hour ({total} for this run) but"
        " rents only on demand, the price shown",
        "{provider} 标有 30 天档，每卡时 {price}（本次共 {total}），"
        "但只按需出租：这里显示的是按需价",
    ),
    "plan.reason.tier-30d-not-rented/assumed": (
        "{provider} lists a 30-day tier at {price} per card-hour ({total} for this run) but"
        " rents only on demand, the price shown; that tier is an assumed figure",
        "{provider} 的 30 天档估计为每卡时 {price}（本次共 {total}），"
        "但只按需出租：这里显示的是按需价",
    ),
    "plan.reason.assumed-price": (
        "the price is an assumed figure, not a quoted one",
        "价格是估计值，不是平台报价",
    ),
    "plan.reason.host/vetted": ("{provider}: {host}", "{provider}：{host}"),
    "plan.reason.host/community": (
        "{provider}: {host}; its owner is not the provider: send it no secret you can avoid",
        "{provider}：{host}；社区主机的所有者不是平台：尽量不要向它发送密钥",
    ),
    "plan.reason.assumed-tokens": (
        "{tokens} training tokens assumed; give --tokens",
        "按 {tokens} 训练 token 估算；可用 --tokens 指定",
    ),
    "plan.reason.assumed-rate": (
        "{rate} req/s assumed; give --rate",
        "按 {rate} req/s 估算；可用 --rate 指定",
    ),
}
