"""What the real clouds' adapters (Lambda Cloud, AutoDL, Vast.ai, RunPod) and their shared
parts say when a rental, a listing or a key goes wrong (issue 35, c35p): the CLI and the
window show these errors in the ``[gui] language``. What the provider itself answered (its
message, an id, a name) is a figure, quoted as it came, never translated."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str]] = {
    # xyclaw.providers.http_retry and cloud_api: what any provider's API can do
    "provider.problem.timed_out": ("timed out ({error})", "超时（{error}）"),
    "provider.problem.timed_out_created": (
        "timed out ({error}); it may have been created",
        "超时（{error}），可能已经创建",
    ),
    "provider.problem.unreachable": ("could not be reached ({error})", "无法连接（{error}）"),
    "provider.problem.http": ("answered HTTP {status}", "返回了 HTTP {status}"),
    "provider.retry.gave_up": (
        "the {provider} provider {problem} on {method} {url} after {attempts} attempts",
        "{provider} 提供商在 {method} {url} 时{problem}，已试 {attempts} 次",
    ),
    "provider.retry.gave_up_hint": (
        "check that the provider is up (for the simulated cloud: xyclaw sim status) "
        "and try again; nothing was lost",
        "请确认提供商在线（模拟云用 xyclaw sim status 查看）后重试；没有丢失任何东西",
    ),
    "provider.refused": (
        "the {provider} provider refused: {message}",
        "{provider} 提供商拒绝了：{message}",
    ),
    "provider.hint.http_401": (
        "check the provider's API token in Settings",
        "请在设置里检查该提供商的 API token",
    ),
    "provider.hint.http_404": (
        "the provider no longer knows it; run `xyclaw clusters` to reconcile",
        "提供商已不认得它；运行 `xyclaw clusters` 对账",
    ),
    "provider.hint.http_422": (
        "try another region or fewer GPUs (`xyclaw offers` shows what is free)",
        "换一个区域或少要几张 GPU（`xyclaw offers` 显示空闲的机器）",
    ),
    "provider.create.gave_up": (
        "the {provider} provider {problem} when asked to create; gave up after {attempts} attempts",
        "请 {provider} 提供商创建时它{problem}；试了 {attempts} 次后放弃",
    ),
    "provider.create.gave_up_hint": (
        "nothing bills that XyClaw does not know: it looks for the instance by name at "
        "every start (`xyclaw clusters`) and releases it if it turns up",
        "不会有 XyClaw 不知道的计费：每次启动时它都按名字找这台实例（`xyclaw clusters`），"
        "找到就释放",
    ),
    "provider.json.not_json": (
        "the {provider} provider answered HTTP {status} with something that is not JSON",
        "{provider} 提供商返回了 HTTP {status}，内容不是 JSON",
    ),
    "provider.json.not_json_hint": (
        "the provider may be down or behind a proxy; try again later",
        "提供商可能宕机或在代理之后；请稍后再试",
    ),
    "provider.json.not_object": (
        "the {provider} provider answered with unexpected JSON",
        "{provider} 提供商返回的 JSON 不合预期",
    ),
    "provider.no_data": (
        "the {provider} provider answered without a data field",
        "{provider} 提供商的回答里没有 data 字段",
    ),
    "provider.sent_as": (
        "the {provider} provider sent {what} as {kind}",
        "{provider} 提供商发来的{what}是 {kind}，读不了",
    ),
    "provider.unreadable": (
        "the {provider} provider sent {what} XyClaw cannot read ({error})",
        "{provider} 提供商发来的{what} XyClaw 读不懂（{error}）",
    ),
    "provider.unreadable_hint": (
        "its API may have changed; update XyClaw, or report it with `xyclaw doctor`",
        "它的 API 可能变了；请更新 XyClaw，或用 `xyclaw doctor` 报告",
    ),
    "provider.cannot_fabric": (
        "{title} cannot rent a {fabric} fabric",
        "{title} 租不到 {fabric} 网络",
    ),
    "provider.any_region": ("any region", "任何区域"),
    "provider.asks_again_hint": (
        "XyClaw asks again at every start and every minute; check `xyclaw clusters`",
        "XyClaw 每次启动和每分钟都会再问一次；请查看 `xyclaw clusters`",
    ),
    "provider.check_clusters_hint": ("check `xyclaw clusters`", "请查看 `xyclaw clusters`"),
    # what a provider sent that could not be read
    "provider.what.instance_types": ("instance types", "实例类型"),
    "provider.what.instances": ("instances", "实例列表"),
    "provider.what.instance_type": ("instance type {name}", "实例类型 {name}"),
    "provider.what.launch_answer": ("a launch answer", "启动请求的回答"),
    "provider.what.instance_record": ("an instance record", "实例记录"),
    "provider.what.offers": ("offers", "报价"),
    "provider.what.offer": ("an offer", "一条报价"),
    "provider.what.charges": ("the charges", "费用记录"),
    "provider.what.charge": ("a charge", "一条费用"),
    "provider.what.gpu_stock": ("GPU stock of {region}", "{region} 的 GPU 库存"),
    "provider.what.create_answer": ("a create answer", "创建请求的回答"),
    "provider.what.deployment_record": ("a deployment record", "部署记录"),
    "provider.what.container_record": ("a container record", "容器记录"),
    "provider.what.answer": ("an answer", "回答"),
    "provider.what.graphql_answer": ("a GraphQL answer", "GraphQL 回答"),
    "provider.what.gpu_types": ("GPU types", "GPU 类型"),
    "provider.what.gpu_type": ("a GPU type", "一个 GPU 类型"),
    "provider.what.cluster_gpu_types": ("Instant Cluster GPU types", "Instant Cluster 的 GPU 类型"),
    "provider.what.cluster_gpu_type": (
        "an Instant Cluster GPU type",
        "一个 Instant Cluster 的 GPU 类型",
    ),
    "provider.what.create_cluster_answer": ("a createCluster answer", "createCluster 的回答"),
    "provider.what.billing_history": ("the billing history", "账单历史"),
    "provider.what.billing_record": ("a billing record", "一条账单记录"),
    "provider.what.pod_record": ("a pod record", "pod 记录"),
    # how a listing answered that XyClaw cannot trust (the state of the instances is unknown)
    "provider.listing.gone": ("with 410 (a deprecated endpoint)", "返回了 410（接口已弃用）"),
    "provider.listing.http": ("with HTTP {status}", "返回了 HTTP {status}"),
    "provider.listing.http_message": (
        "with HTTP {status} ({message})",
        "返回了 HTTP {status}（{message}）",
    ),
    "provider.listing.not_json": ("with something that is not JSON", "返回的不是 JSON"),
    "provider.listing.not_object": ("with JSON that is not an object", "返回的 JSON 不是对象"),
    "provider.listing.not_success": (
        "with success: false ({message})",
        "返回了 success: false（{message}）",
    ),
    "provider.listing.not_success_bare": ("with success: false", "返回了 success: false"),
    "provider.listing.no_instances": (
        "without an instances list (its shape changed)",
        "没有 instances 列表（格式变了）",
    ),
    "provider.listing.instance_fields": (
        "with an instance lacking id or actual_status",
        "里有实例缺少 id 或 actual_status",
    ),
    "provider.listing.token_again": (
        "with a page token it had already given",
        "给出了已经给过的翻页标记",
    ),
    "provider.listing.too_many_pages": ("with more than {pages} pages", "超过了 {pages} 页"),
    "provider.listing.short": (
        "with {rows} of the {total} instances it counts (a page)",
        "只有它所说 {total} 个实例中的 {rows} 个（少了一页）",
    ),
    "provider.listing.one_no_field": (
        "for one instance without an instances field",
        "（查单个实例时）没有 instances 字段",
    ),
    "provider.listing.one_shape": (
        "for one instance in a shape XyClaw cannot read",
        "（查单个实例时）格式是 XyClaw 读不懂的",
    ),
    "provider.listing.no_pods": (
        "without a list of pods (its shape changed)",
        "里没有 pod 清单（格式变了）",
    ),
    "provider.listing.pod_fields": (
        "with a pod lacking id or desiredStatus",
        "里有 pod 缺少 id 或 desiredStatus",
    ),
    "provider.listing.no_clusters": (
        "without a list of clusters (its shape changed)",
        "里没有集群清单（格式变了）",
    ),
    "provider.listing.cluster_fields": (
        "with a cluster lacking id or name",
        "里有集群缺少 id 或 name",
    ),
    "provider.listing.no_cluster_pods": (
        "without a list of the cluster's pods",
        "没有该集群的 pod 列表",
    ),
    "provider.listing.cluster_pod_fields": (
        "with a cluster pod lacking id or desiredStatus",
        "里有集群的 pod 缺少 id 或 desiredStatus",
    ),
    "provider.listing.one_cluster_shape": (
        "for one cluster in a shape XyClaw cannot read",
        "（查单个集群时）格式是 XyClaw 读不懂的",
    ),
    "provider.listing.one_pod_shape": (
        "for one pod in a shape XyClaw cannot read",
        "（查单个 pod 时）格式是 XyClaw 读不懂的",
    ),
    # Lambda Cloud
    "provider.lambda.no_key": ("no Lambda Cloud API key", "没有 Lambda Cloud 的 API key"),
    "provider.lambda.key_hint": (
        "create a key at https://cloud.lambdalabs.com/api-keys and store it with "
        "`xyclaw secrets set lambda_api_key`",
        "在 https://cloud.lambdalabs.com/api-keys 创建 key，"
        "再用 `xyclaw secrets set lambda_api_key` 保存",
    ),
    "provider.lambda.refused": (
        "Lambda Cloud refused: {message}",
        "Lambda Cloud 拒绝了：{message}",
    ),
    "provider.lambda.capacity_hint": (
        "try another region or GPU (`xyclaw offers --provider lambda` lists the regions with "
        "capacity now)",
        "换一个区域或 GPU 试试（`xyclaw offers --provider lambda` 列出现在有容量的区域）",
    ),
    "provider.lambda.quota_hint": (
        "terminate an instance you do not need, or ask Lambda support to raise your quota "
        "(it also rises as invoices are paid)",
        "终止一台用不着的实例，或请 Lambda 客服提高配额（按时付清账单后配额也会提高）",
    ),
    "provider.lambda.inactive_hint": (
        "activate the account at https://cloud.lambdalabs.com (payment method)",
        "请在 https://cloud.lambdalabs.com 激活账户（添加付款方式）",
    ),
    "provider.lambda.as_nodes": (
        "Lambda cannot rent {count} x {gpu} as {nodes} nodes",
        "Lambda 无法把 {count} x {gpu} 租成 {nodes} 个节点",
    ),
    "provider.lambda.no_type": (
        "Lambda has no instance type with {gpu}",
        "Lambda 没有带 {gpu} 的实例类型",
    ),
    "provider.lambda.no_type_hint": (
        "`xyclaw offers --provider lambda` lists what it rents",
        "`xyclaw offers --provider lambda` 列出它出租的机型",
    ),
    "provider.lambda.only_as": (
        "Lambda rents {gpu} only as {counts} one machine, not {count}",
        "Lambda 的 {gpu} 只按单台 {counts} 出租，不能租 {count} 张",
    ),
    "provider.lambda.no_free": (
        "Lambda has no {type} free in {region}",
        "Lambda 在 {region} 没有空闲的 {type}",
    ),
    "provider.lambda.no_free_any": (
        "Lambda has no {type} free in any region",
        "Lambda 在所有区域都没有空闲的 {type}",
    ),
    "provider.lambda.regions_now": (
        "regions with capacity now: {regions}",
        "现在有容量的区域：{regions}",
    ),
    "provider.lambda.none_now": (
        "none has capacity now; try another GPU or later",
        "现在没有区域有容量；换一种 GPU 或稍后再试",
    ),
    "provider.lambda.not_confirmed": (
        "Lambda did not confirm terminating {id}",
        "Lambda 没有确认终止 {id}",
    ),
    "provider.lambda.why_not.multi_node": (
        "Lambda on-demand instances are single machines (1 to 8 GPUs); "
        "they share no fabric XyClaw could tune, and 1-Click Clusters are not in the public API",
        "Lambda 的按需实例都是单台机器（1 到 8 张 GPU），彼此没有 XyClaw 可调优的网络；"
        "1-Click Clusters 不在公开 API 里",
    ),
    "provider.lambda.why_not.fabric": (
        "Lambda on-demand instances have no inter-node fabric XyClaw can promise",
        "Lambda 的按需实例之间没有 XyClaw 能保证的节点间网络",
    ),
    # Vast.ai
    "provider.vastai.no_key": ("no Vast.ai API key", "没有 Vast.ai 的 API key"),
    "provider.vastai.key_hint": (
        "create a key at https://cloud.vast.ai/manage-keys/ and store it with "
        "`xyclaw secrets set vastai_api_key`",
        "在 https://cloud.vast.ai/manage-keys/ 创建 key，"
        "再用 `xyclaw secrets set vastai_api_key` 保存",
    ),
    "provider.vastai.key_refused": (
        "Vast.ai did not accept the API key ({message})",
        "Vast.ai 不接受这个 API key（{message}）",
    ),
    "provider.vastai.refused": ("Vast.ai refused: {message}", "Vast.ai 拒绝了：{message}"),
    "provider.vastai.taken_hint": (
        "the offer was rented by someone else; `xyclaw offers` again",
        "这个报价已被别人租走；请再运行 `xyclaw offers`",
    ),
    "provider.vastai.credit_hint": (
        "add credit at https://cloud.vast.ai/billing/",
        "请在 https://cloud.vast.ai/billing/ 充值",
    ),
    "provider.vastai.unknown": (
        "Vast.ai answered the instance listing {what}: the state of its instances is "
        "unknown, so XyClaw keeps them as last seen and keeps metering them",
        "Vast.ai 的实例列表{what}：实例状态未知，XyClaw 按上次所见保留它们，并继续计费",
    ),
    "provider.vastai.unknown_hint": (
        "XyClaw asks again every minute; check https://cloud.vast.ai/instances/ "
        "and update XyClaw if its API changed",
        "XyClaw 每分钟会再问一次；请查看 https://cloud.vast.ai/instances/，"
        "若它的 API 变了请更新 XyClaw",
    ),
    "provider.vastai.several_machines": (
        "Vast.ai cannot rent {count} x {gpu} over several machines",
        "Vast.ai 无法跨多台机器租用 {count} x {gpu}",
    ),
    "provider.vastai.not_ask_id": (
        "{offer} is not a Vast.ai ask id",
        "{offer} 不是 Vast.ai 的 ask id",
    ),
    "provider.vastai.ask_gone": (
        "Vast.ai no longer offers ask {ask}, the host you approved; nothing was rented",
        "Vast.ai 已不再提供你批准的那台主机（ask {ask}）；没有租用任何机器",
    ),
    "provider.vastai.ask_gone_hint": (
        "get a new quote: `xyclaw offers --provider vastai` lists what is free now",
        "请重新询价：`xyclaw offers --provider vastai` 列出现在空闲的机器",
    ),
    "provider.vastai.no_offer": (
        "Vast.ai has no {count} x {gpu} offer with a direct SSH port",
        "Vast.ai 没有带直连 SSH 端口的 {count} x {gpu} 报价",
    ),
    "provider.vastai.no_offer_in": (
        "Vast.ai has no {count} x {gpu} offer with a direct SSH port in {region}",
        "Vast.ai 在 {region} 没有带直连 SSH 端口的 {count} x {gpu} 报价",
    ),
    "provider.vastai.free_now_hint": (
        "`xyclaw offers --provider vastai` lists what is free now",
        "`xyclaw offers --provider vastai` 列出现在空闲的机器",
    ),
    "provider.vastai.not_rented": (
        "Vast.ai did not rent offer {ask}: {message}",
        "Vast.ai 没有租出报价 {ask}：{message}",
    ),
    "provider.vastai.not_destroyed": (
        "Vast.ai did not destroy {id}: {message}",
        "Vast.ai 没有销毁 {id}：{message}",
    ),
    "provider.vastai.never_seen": (
        "Vast.ai destroyed {id}, which XyClaw had never seen",
        "Vast.ai 销毁了 {id}，但 XyClaw 从未见过它",
    ),
    "provider.vastai.why_not.multi_node": (
        "Vast.ai instances are single hosts rented from different owners; "
        "instances on different hosts share no private network XyClaw could give NCCL",
        "Vast.ai 的实例是从不同机主租来的单台主机；不同主机上的实例之间没有可交给 NCCL 的私有网络",
    ),
    "provider.vastai.why_not.fabric": (
        "Vast.ai offers no fabric between instances (each is one host)",
        "Vast.ai 的实例之间没有互联网络（每个实例是一台主机）",
    ),
    # AutoDL
    "provider.autodl.no_token": ("no AutoDL developer token", "没有 AutoDL 开发者 Token"),
    "provider.autodl.token_hint": (
        "store the developer token (AutoDL console -> 设置 -> 开发者Token) with "
        "`xyclaw secrets set autodl_token`; the elastic deployment API needs an "
        "enterprise-verified account",
        "用 `xyclaw secrets set autodl_token` 保存开发者 Token（AutoDL 控制台 -> 设置 -> "
        "开发者Token）；弹性部署 API 需要企业认证的账户",
    ),
    "provider.autodl.refused": (
        "AutoDL refused ({code}): {message}",
        "AutoDL 拒绝了（{code}）：{message}",
    ),
    "provider.autodl.quota_hint": (
        "top up the AutoDL account or raise its limits, then try again",
        "给 AutoDL 账户充值或提高限额后再试",
    ),
    "provider.autodl.capacity_hint": (
        "try another region (`xyclaw offers --provider autodl` shows stock)",
        "换一个区域试试（`xyclaw offers --provider autodl` 显示库存）",
    ),
    "provider.autodl.several_hosts": (
        "AutoDL cannot rent {count} x {gpu} over several hosts",
        "AutoDL 无法跨多台主机租用 {count} x {gpu}",
    ),
    "provider.autodl.at_most_8": (
        "AutoDL hosts have at most 8 GPUs; {count} asked",
        "AutoDL 的主机最多 8 张 GPU；要的是 {count} 张",
    ),
    "provider.autodl.no_ceiling": (
        "XyClaw has no price ceiling for {gpu} on AutoDL",
        "XyClaw 没有 AutoDL 上 {gpu} 的价格上限",
    ),
    "provider.autodl.no_ceiling_hint": (
        "add {gpu} = <CNY per GPU-hour> under [price_ceilings] in autodl.toml",
        "在 autodl.toml 的 [price_ceilings] 下加上 {gpu} = <每 GPU 小时的 CNY 价格>",
    ),
    "provider.autodl.has_idle": ("{region} has {idle} idle", "{region} 有 {idle} 张空闲"),
    "provider.autodl.seen_more": ("{first}; {rest}", "{first}；{rest}"),
    "provider.autodl.no_idle": (
        "AutoDL has no {count} x {gpu} idle in {where}",
        "AutoDL 在 {where} 没有空闲的 {count} x {gpu}",
    ),
    "provider.autodl.no_idle_seen": (
        "AutoDL has no {count} x {gpu} idle in {where} ({seen})",
        "AutoDL 在 {where} 没有空闲的 {count} x {gpu}（{seen}）",
    ),
    "provider.autodl.no_idle_hint": (
        "try another region or fewer GPUs (`xyclaw offers --provider autodl`)",
        "换一个区域或少要几张 GPU（`xyclaw offers --provider autodl`）",
    ),
    "provider.autodl.not_listed": (
        "AutoDL no longer lists deployment {id} after stopping it",
        "停止部署 {id} 之后，AutoDL 不再列出它",
    ),
    "provider.autodl.unknown_regions": (
        "unknown regions {unknown}; known: {known}",
        "未知的区域 {unknown}；已知的有：{known}",
    ),
    "provider.autodl.cuda_order": (
        "cuda_v_from must not be above cuda_v_to",
        "cuda_v_from 不能大于 cuda_v_to",
    ),
    "provider.autodl.why_not.multi_node": (
        "AutoDL elastic deployment containers are independent hosts with no "
        "network between them that NCCL could use; XyClaw rents one container (1 to 8 GPUs)",
        "AutoDL 弹性部署的容器是互相独立的主机，之间没有 NCCL 能用的网络；"
        "XyClaw 只租一个容器（1 到 8 张 GPU）",
    ),
    "provider.autodl.why_not.fabric": (
        "AutoDL elastic deployment has no inter-node fabric",
        "AutoDL 弹性部署没有节点间网络",
    ),
    # RunPod
    "provider.runpod.no_key": ("no RunPod API key", "没有 RunPod 的 API key"),
    "provider.runpod.key_hint": (
        "create a key at https://www.runpod.io/console/user/settings (API Keys) and store it "
        "with `xyclaw secrets set runpod_api_key`",
        "在 https://www.runpod.io/console/user/settings（API Keys）创建 key，"
        "再用 `xyclaw secrets set runpod_api_key` 保存",
    ),
    "provider.runpod.key_refused": (
        "RunPod did not accept the API key ({message})",
        "RunPod 不接受这个 API key（{message}）",
    ),
    "provider.runpod.refused": ("RunPod refused: {message}", "RunPod 拒绝了：{message}"),
    "provider.runpod.graphql_refused": (
        "RunPod's GraphQL API refused: {message}",
        "RunPod 的 GraphQL API 拒绝了：{message}",
    ),
    "provider.runpod.cloud_hint": (
        "try the other cloud (secure or community) or another GPU",
        "换另一种云（secure 或 community）或另一种 GPU 试试",
    ),
    "provider.runpod.resources_hint": (
        "try another GPU type or data centre, or fewer pods",
        "换一种 GPU 类型或数据中心，或少要几个 pod",
    ),
    "provider.runpod.listing.pod": ("pod", " pod "),  # spaced: it stands between Chinese
    "provider.runpod.listing.cluster": ("cluster", "集群"),
    "provider.runpod.unknown": (
        "RunPod answered the {listing} listing {what}: the state of its pods is unknown, "
        "so XyClaw keeps them as last seen and keeps metering them",
        "RunPod 的{listing}列表{what}：pod 状态未知，XyClaw 按上次所见保留它们，并继续计费",
    ),
    "provider.runpod.unknown_hint": (
        "XyClaw asks again every minute; check https://www.runpod.io/console/pods "
        "and update XyClaw if its API changed",
        "XyClaw 每分钟会再问一次；请查看 https://www.runpod.io/console/pods，"
        "若它的 API 变了请更新 XyClaw",
    ),
    "provider.runpod.several_pods": (
        "RunPod cannot rent {count} x {gpu} over several pods",
        "RunPod 无法跨多个 pod 租用 {count} x {gpu}",
    ),
    "provider.runpod.no_stock": (
        "RunPod has no {count} x {gpu} in stock",
        "RunPod 没有 {count} x {gpu} 的库存",
    ),
    "provider.runpod.no_stock_in": (
        "RunPod has no {count} x {gpu} in stock in the {region}",
        "RunPod 在 {region} 没有 {count} x {gpu} 的库存",
    ),
    "provider.runpod.in_stock_hint": (
        "`xyclaw offers --provider runpod` lists what is in stock now",
        "`xyclaw offers --provider runpod` 列出现在有库存的机器",
    ),
    "provider.runpod.cluster_fabric": (
        "RunPod Instant Clusters have no {fabric} fabric",
        "RunPod Instant Cluster 没有 {fabric} 网络",
    ),
    "provider.runpod.cluster_network_hint": ("their network: {network}", "它们的网络：{network}"),
    "provider.runpod.cluster_network": (
        "Instant Cluster: a private network within one data center, 100 to 3200 Gb/s on "
        "eth1-eth8 as RunPod says; planned at its 100 Gb/s floor, measured by nccl-tests",
        "Instant Cluster：同一数据中心内的私有网络，按 RunPod 的说法在 eth1-eth8 上有 "
        "100 到 3200 Gb/s；按最低的 100 Gb/s 规划，由 nccl-tests 实测",
    ),
    "provider.runpod.cluster_pods": (
        "RunPod Instant Clusters have 2 to 8 pods, not {pods}",
        "RunPod Instant Cluster 有 2 到 8 个 pod，不能是 {pods} 个",
    ),
    "provider.runpod.cluster_pods_hint": (
        "ask for 2 to 8 nodes, or another provider",
        "请要 2 到 8 个节点，或换一家提供商",
    ),
    "provider.runpod.no_cluster": (
        "RunPod has no Instant Cluster of {pods} x {per_pod} {gpu}",
        "RunPod 没有 {pods} x {per_pod} {gpu} 的 Instant Cluster",
    ),
    "provider.runpod.no_cluster_in": (
        "RunPod has no Instant Cluster of {pods} x {per_pod} {gpu} in {region}",
        "RunPod 在 {region} 没有 {pods} x {per_pod} {gpu} 的 Instant Cluster",
    ),
    "provider.runpod.no_cluster_hint": (
        "`xyclaw offers --provider runpod` lists the cluster GPU types and data "
        "centres with stock now (a cluster pod has all of its type's GPUs)",
        "`xyclaw offers --provider runpod` 列出现在有库存的集群 GPU 类型和数据中心"
        "（集群里的一个 pod 占用该类型的全部 GPU）",
    ),
    "provider.runpod.no_split": (
        "{count} GPUs do not split into pods of {per_pod}",
        "{count} 张 GPU 无法分成每个 {per_pod} 张的 pod",
    ),
    "provider.runpod.no_split_hint": ("ask for a whole number of nodes", "请要整数个节点"),
    "provider.runpod.no_cluster_id": (
        "RunPod has no cluster {id}, which XyClaw had never seen",
        "RunPod 没有集群 {id}，XyClaw 也从未见过它",
    ),
    "provider.runpod.deleted_unseen": (
        "RunPod deleted {id}, which XyClaw had never seen",
        "RunPod 删除了 {id}，但 XyClaw 从未见过它",
    ),
    "provider.runpod.terminated_unseen": (
        "RunPod terminated {id}, which XyClaw had never seen",
        "RunPod 终止了 {id}，但 XyClaw 从未见过它",
    ),
    # why an offer a marketplace listed is not among XyClaw's offers (`xyclaw offers`)
    "provider.left_out.no_direct_port": (
        "no direct port: XyClaw cannot reach SSH on it",
        "没有直连端口：XyClaw 连不上它的 SSH",
    ),
    "provider.left_out.out_of_stock": ("out of stock", "无库存"),
    "provider.left_out.no_cluster_price": ("no cluster price", "没有集群价格"),
    "provider.left_out.not_read": ("not read ({error})", "未能读取（{error}）"),
    # xyclaw.providers.real: keys and settings files
    "provider.real.not_configured": (
        "{title} is not configured: no {secret} in the secret store",
        "{title} 尚未配置：密钥库里没有 {secret}",
    ),
    "provider.real.not_configured_hint": (
        "run `xyclaw secrets set {secret}` (it needs {account})",
        "请运行 `xyclaw secrets set {secret}`（需要：{account}）",
    ),
    "provider.real.unreadable_file": ("{path} cannot be read: {error}", "无法读取 {path}：{error}"),
    "provider.real.unreadable_file_hint": (
        "fix the file (UTF-8 TOML) or remove it",
        "请修正这个文件（UTF-8 TOML）或删掉它",
    ),
    "provider.real.bad_file": ("{path}: {error}", "{path}：{error}"),
    "provider.real.bad_file_hint": (
        "see docs/providers.md for the keys",
        "各个键的说明见 docs/providers.md",
    ),
    # what a provider says of a rented cluster's or node's state (ClusterInfo/NodeInfo.error)
    "provider.lambda.state.unhealthy": (
        "Lambda reports the instance unhealthy",
        "Lambda 报告该实例不健康",
    ),
    "provider.lambda.state.preempted": ("Lambda preempted the instance", "Lambda 抢占了该实例"),
    "provider.vastai.state.stopped": (
        "Vast.ai stopped the instance (outbid, or its host stopped it); its storage "
        "still bills until it is released",
        "Vast.ai 停止了该实例（出价被超过，或其主机停止了它）；释放之前它的存储仍在计费",
    ),
    "provider.vastai.state.offline": (
        "the Vast.ai host is offline; the instance may still bill",
        "Vast.ai 主机离线；该实例可能仍在计费",
    ),
    "provider.runpod.state.exited": (
        "the pod exited; its disk bills until it is released",
        "该 pod 已退出；释放之前它的磁盘仍在计费",
    ),
    "provider.autodl.state.stopped_itself": (
        "the container stopped by itself (its start command ended)",
        "容器自行停止了（它的启动命令已结束）",
    ),
    # why a provider cannot do what a request needs (Capabilities.why_not): the planner, a
    # quote and the agents show these
    "provider.why_not.unsupported": ("{feature} is not supported", "不支持 {feature}"),
    "provider.why_not.host_keys": (
        "{provider} does not hand over host keys: the first SSH connection trusts the key it sees",
        "{provider} 不提供主机密钥：第一次 SSH 连接会信任它看到的密钥",
    ),
    "provider.lambda.why_not.stop_start": (
        "Lambda cannot stop an instance: it bills until it is terminated",
        "Lambda 无法停止实例：它会一直计费到被终止为止",
    ),
    "provider.lambda.why_not.spot": (
        "Lambda has no spot or preemptible on-demand instances",
        "Lambda 没有竞价实例，也没有可抢占的按需实例",
    ),
    "provider.lambda.why_not.billing_ledger": (
        "Lambda's API has no billing ledger: XyClaw meters each second from the instance's "
        "price per hour",
        "Lambda 的 API 没有账单明细：XyClaw 按实例每小时的价格逐秒计量",
    ),
    "provider.lambda.why_not.custom_image": (
        "instances boot Lambda Stack (Ubuntu with PyTorch and CUDA); XyClaw's image names are "
        "not Lambda images",
        "实例启动的是 Lambda Stack（带 PyTorch 和 CUDA 的 Ubuntu）；"
        "XyClaw 的镜像名不是 Lambda 的镜像",
    ),
    "provider.vastai.why_not.stop_start": (
        "XyClaw releases a Vast.ai instance by destroying it: a stopped instance keeps billing "
        "its storage, and its GPUs may be rented by someone else",
        "XyClaw 以销毁的方式释放 Vast.ai 实例：停止的实例仍按存储计费，它的 GPU 也可能被别人租走",
    ),
    "provider.vastai.why_not.spot": (
        "Vast.ai interruptible instances are bids; XyClaw rents on demand only (a too-low bid "
        "still creates a stopped, storage-billing instance)",
        "Vast.ai 的可中断实例靠出价租用；XyClaw 只按需租用"
        "（出价过低仍会创建一个已停止、按存储计费的实例）",
    ),
    "provider.vastai.why_not.billing_ledger": (
        "XyClaw meters a Vast.ai instance from its own price read back after renting it (GPU, "
        "storage) and its billed traffic; Vast's charges listing is read to compare, not to "
        "meter",
        "XyClaw 按租用后读回的实例自身价格（GPU、存储）和计费流量为 Vast.ai 实例计量；"
        "Vast 的费用清单只用来对照，不用来计量",
    ),
    "provider.vastai.why_not.host_system": (
        "Vast.ai instances are Docker containers: no systemd and no sysctl (XyClaw's bootstrap "
        "and NCCL tuning use neither; a step that needs them must ask for this capability)",
        "Vast.ai 的实例是 Docker 容器：没有 systemd，也没有 sysctl（XyClaw 的初始化和 NCCL "
        "调优都不用它们；需要它们的步骤必须先要求这项能力）",
    ),
    "provider.runpod.why_not.stop_start": (
        "XyClaw releases a RunPod pod by terminating it: a stopped pod keeps billing its "
        "volume, and its GPU may be gone when it starts again",
        "XyClaw 以终止的方式释放 RunPod pod：停止的 pod 仍按卷计费，再启动时它的 GPU 可能已经没了",
    ),
    "provider.runpod.why_not.spot": (
        "RunPod interruptible pods are bids (GraphQL podRentInterruptable); XyClaw rents on "
        "demand only",
        "RunPod 的可中断 pod 靠出价租用（GraphQL podRentInterruptable）；XyClaw 只按需租用",
    ),
    "provider.runpod.why_not.billing_ledger": (
        "XyClaw meters a RunPod pod from the price RunPod reports for it after renting it "
        "(adjustedCostPerHr); RunPod's billing history is read to compare, not to meter",
        "XyClaw 按租用后 RunPod 报出的价格（adjustedCostPerHr）为 pod 计量；"
        "RunPod 的账单历史只用来对照，不用来计量",
    ),
    "provider.runpod.why_not.host_system": (
        "RunPod pods are Docker containers: no systemd and no sysctl (XyClaw's bootstrap and "
        "NCCL tuning use neither; a step that needs them must ask for this capability)",
        "RunPod 的 pod 是 Docker 容器：没有 systemd，也没有 sysctl（XyClaw 的初始化和 NCCL "
        "调优都不用它们；需要它们的步骤必须先要求这项能力）",
    ),
    "provider.autodl.why_not.stop_start": (
        "a stopped AutoDL deployment does not start again; rent a new one",
        "停止的 AutoDL 部署不能再启动；请租一个新的",
    ),
    "provider.autodl.why_not.spot": (
        "AutoDL elastic deployment has no spot tier",
        "AutoDL 的弹性部署没有竞价档位",
    ),
    "provider.autodl.why_not.billing_ledger": (
        "the elastic deployment API has no billing ledger: XyClaw meters each second from the "
        "container's price",
        "弹性部署 API 没有账单明细：XyClaw 按容器的价格逐秒计量",
    ),
    "provider.slurm.why_not.custom_image": (
        "a container image needs the site's pyxis plugin (srun --container-image)",
        "容器镜像需要站点装有 pyxis 插件（srun --container-image）",
    ),
    "provider.slurm.why_not.host_keys": (
        "the nodes are the scheduler's: XyClaw logs in at the login node only",
        "节点归调度器管：XyClaw 只登录到登录节点",
    ),
    # the simulated cloud: what it says of a node or a cluster that failed
    "provider.sim.boot_failed": (
        "node {hostname} failed to boot: {why}",
        "节点 {hostname} 启动失败：{why}",
    ),
    "provider.sim.boot.xid79": (
        "GPU {gpu} fell off the bus (Xid 79) during POST",
        "GPU {gpu} 在开机自检时掉卡（Xid 79）",
    ),
    "provider.sim.boot.ib_down": (
        "the InfiniBand port stayed down (no link on mlx5_{gpu})",
        "InfiniBand 端口一直没起来（mlx5_{gpu} 无链路）",
    ),
    "provider.sim.boot.no_answer": (
        "the node did not answer on its management network within the boot timeout",
        "节点在启动超时之前没有在管理网络上应答",
    ),
    "provider.sim.boot.ecc": (
        "uncorrectable ECC error on GPU {gpu} during the burn-in test",
        "GPU {gpu} 在老化测试中出现不可纠正的 ECC 错误",
    ),
    "provider.sim.did_not_start": (
        "node {hostname} did not start: {error}",
        "节点 {hostname} 没有启动：{error}",
    ),
    "provider.sim.after_restart": ("{error} (after the cloud restarted)", "{error}（云重启之后）"),
    "provider.sim.not_back": (
        "node {hostname} did not come back after a restart",
        "节点 {hostname} 在重启之后没有恢复",
    ),
    "provider.sim.nodes_failed": (
        "{failed} of {total} nodes failed: {errors}",
        "{total} 个节点中有 {failed} 个失败：{errors}",
    ),
}
