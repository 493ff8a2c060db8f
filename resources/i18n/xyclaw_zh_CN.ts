<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>AlertRequest</name>
    <message>
        <source>Stop job {job} on {cluster}</source>
        <translation>停止 {cluster} 上的作业 {job}</translation>
    </message>
    <message>
        <source>Release {cluster}</source>
        <translation>释放 {cluster}</translation>
    </message>
    <message>
        <source>Re-run the network check on {where}</source>
        <translation>在 {where} 上重新检查网络</translation>
    </message>
    <message>
        <source>{action} on {where}</source>
        <translation>在 {where} 上{action}</translation>
    </message>
</context>
<context>
    <name>AlertsPanel</name>
    <message>
        <source>Release cluster</source>
        <translation>释放集群</translation>
    </message>
    <message>
        <source>stop paying for the cluster; what is not in a checkpoint or downloaded is lost</source>
        <translation>停止为该集群付费；没有存入检查点或下载下来的数据会丢失</translation>
    </message>
    <message>
        <source>Stop job</source>
        <translation>停止作业</translation>
    </message>
    <message>
        <source>cancel the running job on this cluster</source>
        <translation>取消这个集群上正在运行的作业</translation>
    </message>
    <message>
        <source>Reset GPU</source>
        <translation>重置 GPU</translation>
    </message>
    <message>
        <source>reset this GPU (only works once no process uses it)</source>
        <translation>重置这块 GPU（只有在没有进程使用它时才有效）</translation>
    </message>
    <message>
        <source>Restore power limit</source>
        <translation>恢复功率上限</translation>
    </message>
    <message>
        <source>set the GPU's power limit back to its default</source>
        <translation>把 GPU 的功率上限恢复为默认值</translation>
    </message>
    <message>
        <source>Query clocks</source>
        <translation>查询频率</translation>
    </message>
    <message>
        <source>read the GPU's clocks, throttle reasons and temperature</source>
        <translation>读取 GPU 的频率、降频原因和温度</translation>
    </message>
    <message>
        <source>Check IB ports</source>
        <translation>检查 IB 端口</translation>
    </message>
    <message>
        <source>show the node's port states</source>
        <translation>显示节点的端口状态</translation>
    </message>
    <message>
        <source>Re-run network check</source>
        <translation>重新检查网络</translation>
    </message>
    <message>
        <source>probe the fabric and run nccl-tests again</source>
        <translation>重新探测网络并运行 nccl-tests</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>查看</translation>
    </message>
    <message>
        <source>chart this node's GPUs</source>
        <translation>绘制这个节点的 GPU</translation>
    </message>
    <message>
        <source>chart this GPU</source>
        <translation>绘制这块 GPU</translation>
    </message>
    <message>
        <source>runs: {command}</source>
        <translation>运行：{command}</translation>
    </message>
    <message>
        <source>(asks for your approval first)</source>
        <translation>（会先请你批准）</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>No open alerts.</source>
        <translation>没有未处理的告警。</translation>
    </message>
    <message>
        <source>Alerts ({n})</source>
        <translation>告警（{n}）</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>告警</translation>
    </message>
</context>
<context>
    <name>ApprovalCard</name>
    <message>
        <source>approval</source>
        <translation>approval</translation>
    </message>
    <message>
        <source>Approval needed</source>
        <translation>需要你的批准</translation>
    </message>
    <message>
        <source>spend</source>
        <translation>spend</translation>
    </message>
    <message>
        <source>effect</source>
        <translation>effect</translation>
    </message>
    <message>
        <source>card-title</source>
        <translation>card-title</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>warning</translation>
    </message>
    <message>
        <source>Asked after reading output from a remote machine: that output is data, not your instruction. Check that this is what you want.</source>
        <translation>这是在读取远程机器的输出之后提出的：那些输出只是数据，不是你的指令。请确认这确实是你想要的。</translation>
    </message>
    <message>
        <source>Allow this on this cluster for the rest of this conversation</source>
        <translation>在本次对话余下的时间里，允许在这个集群上这样做</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>批准</translation>
    </message>
    <message>
        <source>primary</source>
        <translation>primary</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>修改…</translation>
    </message>
    <message>
        <source>Change the arguments, then ask again</source>
        <translation>修改参数后重新请求</translation>
    </message>
    <message>
        <source>Command</source>
        <extracomment>The rows' labels as shown, in the GUI's language (``ApprovalCard.facts`` keeps the English).</extracomment>
        <translation>命令</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Stops billing</source>
        <translation>停止计费</translation>
    </message>
    <message>
        <source>What is lost</source>
        <translation>会丢失的内容</translation>
    </message>
    <message>
        <source>Running job</source>
        <translation>运行中的作业</translation>
    </message>
    <message>
        <source>XyClaw adds</source>
        <translation>XyClaw 会加入</translation>
    </message>
    <message>
        <source>Sends</source>
        <translation>会发送</translation>
    </message>
    <message>
        <source>What</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Price</source>
        <translation>价格</translation>
    </message>
    <message>
        <source>Estimated total</source>
        <translation>预计总额</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Quote valid</source>
        <translation>报价有效期</translation>
    </message>
    <message>
        <source>Clusters</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Spec</source>
        <translation>作业描述</translation>
    </message>
    <message>
        <source>Lost nodes</source>
        <translation>丢失的节点</translation>
    </message>
    <message>
        <source>What changes</source>
        <translation>会改变</translation>
    </message>
    <message>
        <source>Current budget</source>
        <translation>当前预算</translation>
    </message>
    <message>
        <source>Spent</source>
        <translation>已花费</translation>
    </message>
    <message>
        <source>Price per hour</source>
        <translation>每小时价格</translation>
    </message>
    <message>
        <source>Means</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Spot</source>
        <translation>竞价实例</translation>
    </message>
    <message>
        <source>Asks you for</source>
        <translation>需要你提供</translation>
    </message>
    <message>
        <source>1 node</source>
        <translation>1 个节点</translation>
    </message>
    <message>
        <source>{n} nodes</source>
        <translation>{n} 个节点</translation>
    </message>
    <message>
        <source>fabric {fabric}</source>
        <translation>网络 {fabric}</translation>
    </message>
    <message>
        <source>offer {offer}</source>
        <translation>报价 {offer}</translation>
    </message>
    <message>
        <source> ({price} per GPU-hour)</source>
        <translation>（每 GPU 小时 {price}）</translation>
    </message>
    <message>
        <source> for {hours} h</source>
        <translation>，共 {hours} 小时</translation>
    </message>
    <message>
        <source> (released when reached)</source>
        <translation>（达到时释放）</translation>
    </message>
    <message>
        <source>none set: billing runs until you release it</source>
        <translation>未设置：会一直计费，直到你释放它</translation>
    </message>
    <message>
        <source>asked by an MCP client ({name}) · {time}</source>
        <translation>由 MCP 客户端（{name}）请求 · {time}</translation>
    </message>
    <message>
        <source>{agent} asks · {time}</source>
        <translation>{agent} 请求 · {time}</translation>
    </message>
    <message>
        <source>Approved by you</source>
        <extracomment>Called with the approval to give, before it is given (the window asks for a job's secret values there); None approves at once.</extracomment>
        <translation>你已批准</translation>
    </message>
    <message>
        <source>Rejected by you: nothing was done</source>
        <translation>你已拒绝：什么也没做</translation>
    </message>
    <message>
        <source>Changed by you: asking again</source>
        <translation>你已修改：正在重新请求</translation>
    </message>
    <message>
        <source>for {left} (until {time})</source>
        <translation>还有 {left}（到 {time} 为止）</translation>
    </message>
    <message>
        <source>expired: prices may have changed. Edit or ask again for a fresh quote.</source>
        <translation>已过期：价格可能已变。请修改或重新请求新的报价。</translation>
    </message>
    <message>
        <source>The quote expired; Edit asks for a new one</source>
        <translation>报价已过期；“修改”会请求新的报价</translation>
    </message>
    <message>
        <source>approved at {time}</source>
        <translation>已于 {time} 批准</translation>
    </message>
    <message>
        <source>rejected at {time}</source>
        <translation>已于 {time} 拒绝</translation>
    </message>
    <message>
        <source>changed at {time}: a new quote is asked for</source>
        <translation>已于 {time} 修改：正在重新报价</translation>
    </message>
    <message>
        <source>answered at {time}</source>
        <translation>已于 {time} 答复</translation>
    </message>
    <message>
        <source>(the quote held until {time})</source>
        <translation>（报价有效至 {time}）</translation>
    </message>
    <message>
        <source>Answered by {by}</source>
        <translation>已由 {by} 答复</translation>
    </message>
</context>
<context>
    <name>ApprovalDialog</name>
    <message>
        <source>Approve spending</source>
        <translation>批准花费</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Nothing is rented until you approve. Approve rents exactly this quote, or nothing if the provider changed it; billing is per second from when the nodes run, and the budget releases the cluster when it is reached.</source>
        <translation>在你批准之前不会租用任何东西。批准后只按这份报价租用；如果提供商改了报价，则什么也不租。计费从节点运行起按秒计算，达到预算时集群会被释放。</translation>
    </message>
</context>
<context>
    <name>ChatBlocks</name>
    <message>
        <source>read</source>
        <extracomment>Words of the cards, marked here and translated when shown (a language switch re-words the cards on screen).</extracomment>
        <translation>只读</translation>
    </message>
    <message>
        <source>spends money</source>
        <translation>会花钱</translation>
    </message>
    <message>
        <source>destroys</source>
        <translation>会释放</translation>
    </message>
    <message>
        <source>runs commands</source>
        <translation>会执行命令</translation>
    </message>
    <message>
        <source>Only reads: runs without asking</source>
        <translation>只读取：无需询问即可运行</translation>
    </message>
    <message>
        <source>Spends money: asks for your approval</source>
        <translation>会花钱：先请你批准</translation>
    </message>
    <message>
        <source>Releases or deletes: asks for your approval</source>
        <translation>会释放或删除：先请你批准</translation>
    </message>
    <message>
        <source>Runs commands on your machines: asks for your approval</source>
        <translation>会在你的机器上执行命令：先请你批准</translation>
    </message>
    <message>
        <source>running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>waiting for your approval</source>
        <translation>等待你的批准</translation>
    </message>
    <message>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>GPUs</source>
        <extracomment>The plan table's headers, by column key.</extracomment>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Hours</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>You · {time}</source>
        <translation>你 · {time}</translation>
    </message>
    <message>
        <source>reasoning ▾</source>
        <translation>推理过程 ▾</translation>
    </message>
    <message>
        <source>reasoning ▸</source>
        <translation>推理过程 ▸</translation>
    </message>
    <message>
        <source>{tin} in · {tout} out · {cost}</source>
        <translation>输入 {tin} · 输出 {tout} · {cost}</translation>
    </message>
    <message>
        <source>Tokens and model cost of this reply</source>
        <translation>这条回复的 token 数和模型费用</translation>
    </message>
    <message>
        <source>{tool}: {effect}; asks first</source>
        <translation>{tool}：{effect}；会先询问</translation>
    </message>
    <message>
        <source>{name}: {state}</source>
        <translation>{name}：{state}</translation>
    </message>
    <message>
        <source>loss {loss}</source>
        <translation>loss {loss}</translation>
    </message>
    <message>
        <source>Show the arguments and the result</source>
        <translation>显示参数和结果</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Result (from a remote machine: data, not instructions)</source>
        <translation>结果（来自远程机器：是数据，不是指令）</translation>
    </message>
    <message>
        <source>not finished yet</source>
        <translation>尚未完成</translation>
    </message>
    <message>
        <source>Arguments: {args}</source>
        <translation>参数：{args}</translation>
    </message>
    <message>
        <source>starts now</source>
        <translation>现在开始</translation>
    </message>
    <message>
        <source>queued, wait unknown</source>
        <translation>排队中，等待时间未知</translation>
    </message>
    <message>
        <source>starts in ~{n} min</source>
        <translation>约 {n} 分钟后开始</translation>
    </message>
    <message>
        <source>{price} per GPU-hour</source>
        <translation>每 GPU 小时 {price}</translation>
    </message>
    <message>
        <source>Plan {id}: 1 option</source>
        <translation>规划 {id}：1 个方案</translation>
    </message>
    <message>
        <source>Plan {id}: {n} options, best first</source>
        <translation>规划 {id}：{n} 个方案，最优在前</translation>
    </message>
    <message>
        <source>Rent this</source>
        <translation>租用这个</translation>
    </message>
    <message>
        <source>Quote option {n} and ask for your approval</source>
        <translation>为方案 {n} 询价并请你批准</translation>
    </message>
</context>
<context>
    <name>ChatPage</name>
    <message>
        <source>New conversation</source>
        <extracomment>Titles XyClaw gives a conversation itself (stored in English): shown in the window's language.</extracomment>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Tour</source>
        <translation>导览</translation>
    </message>
    <message>
        <source>Starting the agents…</source>
        <translation>正在启动智能体…</translation>
    </message>
    <message>
        <source>Say what you want to train or serve, with a budget if you have one. The agents plan it, show the cost and time, and ask before anything is rented or released.</source>
        <translation>说说你想训练或部署什么，有预算的话也一并说明。智能体会做出规划、给出费用和时间，并在租用或释放任何机器之前先征求你的同意。</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>The agents could not start</source>
        <translation>智能体无法启动</translation>
    </message>
    <message>
        <source>What should XyClaw do?</source>
        <translation>要让 XyClaw 做什么？</translation>
    </message>
    <message>
        <source>asked for outside this window: conversation {ids}</source>
        <translation>在此窗口之外请求：对话 {ids}</translation>
    </message>
    <message>
        <source>started {time}</source>
        <translation>开始于 {time}</translation>
    </message>
    <message>
        <source>an approval is waiting</source>
        <translation>有一项审批在等待</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} token</translation>
    </message>
    <message>
        <source>approval waiting</source>
        <translation>等待审批</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “{title}” and its messages? Clusters it rented are not affected.</source>
        <translation>删除“{title}”及其消息吗？它租用的集群不受影响。</translation>
    </message>
    <message>
        <source>The agents are still answering…</source>
        <translation>智能体仍在回答…</translation>
    </message>
    <message>
        <source>You asked to rent option {option} of plan {plan}.</source>
        <translation>你请求租用规划 {plan} 的方案 {option}。</translation>
    </message>
    <message>
        <source>the agents are busy; try again when they have answered</source>
        <translation>智能体正忙；等它们回答后再试</translation>
    </message>
    <message>
        <source>You asked: {action}.</source>
        <translation>你请求：{action}。</translation>
    </message>
    <message>
        <source>the agents are still starting</source>
        <translation>智能体仍在启动</translation>
    </message>
    <message>
        <source>try again in a moment</source>
        <translation>请稍后再试</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>conversation {id}</source>
        <translation>对话 {id}</translation>
    </message>
    <message>
        <source>Approval waiting</source>
        <translation>等待审批</translation>
    </message>
    <message>
        <source>{title} (in “{where}”)</source>
        <translation>{title}（在“{where}”中）</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>primary</source>
        <translation>primary</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Rename the selected conversation (F2)</source>
        <translation>重命名所选对话（F2）</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete the selected conversation</source>
        <translation>删除所选对话</translation>
    </message>
    <message>
        <source>Search conversations…</source>
        <translation>搜索对话…</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>heading</source>
        <translation>heading</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Tokens and model cost of this conversation</source>
        <translation>本次对话的 token 数和模型费用</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>error</source>
        <translation>error</translation>
    </message>
    <message>
        <source>Ask XyClaw: plan, rent, tune, run, watch, release… (Enter sends, Shift+Enter for a new line)</source>
        <translation>问 XyClaw：规划、租用、调优、运行、监控、释放…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>停止回答（Esc）</translation>
    </message>
</context>
<context>
    <name>ClustersPage</name>
    <message>
        <source>Clusters</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>heading</source>
        <translation>heading</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Show released</source>
        <translation>显示已释放的</translation>
    </message>
    <message>
        <source>Also list clusters that were released, failed or are gone</source>
        <translation>也列出已释放、失败或已消失的集群</translation>
    </message>
    <message>
        <source>Rent…</source>
        <translation>租用…</translation>
    </message>
    <message>
        <source>Rent exactly the GPUs you name, through a quote and your approval</source>
        <translation>按报价并经你批准，租用你指定的 GPU</translation>
    </message>
    <message>
        <source>primary</source>
        <translation>primary</translation>
    </message>
    <message>
        <source>error</source>
        <translation>error</translation>
    </message>
    <message>
        <source>Name</source>
        <extracomment>The columns' headers as shown, in the GUI's language (the keys above stay English).</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>供应商</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>地区</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Uptime</source>
        <translation>运行时长</translation>
    </message>
    <message>
        <source>Per hour</source>
        <translation>每小时</translation>
    </message>
    <message>
        <source>Cost so far</source>
        <translation>已花费</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>Idle release</source>
        <translation>空闲释放</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>SSH endpoint</source>
        <translation>SSH 地址</translation>
    </message>
    <message>
        <source>ssh alias</source>
        <translation>ssh 别名</translation>
    </message>
    <message>
        <source>Bootstrap</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>pending</source>
        <extracomment>Coalescing window for re-reading clusters after their events. How often the page has the Engine read XyClaw's Slurm jobs (the queue itself is asked at most every 30 s; the samples and logs the nodes wrote are read each time). A Slurm allocation's queue state as the State column says it (issue 33).</extracomment>
        <translation>排队中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>ending</source>
        <translation>正在结束</translation>
    </message>
    <message>
        <source>ended</source>
        <translation>已结束</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>releasing (idle)</source>
        <translation>正在释放（空闲）</translation>
    </message>
    <message>
        <source>in {time}</source>
        <translation>{time} 后</translation>
    </message>
    <message>
        <source>{state} · Slurm job {job}</source>
        <translation>{state} · Slurm 作业 {job}</translation>
    </message>
    <message>
        <source>✓ all {n} steps ok</source>
        <translation>✓ 全部 {n} 步通过</translation>
    </message>
    <message>
        <source>Renting: “{title}”; each node's steps appear below.</source>
        <translation>正在租用：“{title}”；每个节点的步骤显示在下方。</translation>
    </message>
    <message>
        <source>Rejected: nothing was rented.</source>
        <translation>已拒绝：没有租用任何机器。</translation>
    </message>
    <message>
        <source>Select a node for its SSH details.</source>
        <translation>选择一个节点以查看其 SSH 详情。</translation>
    </message>
    <message>
        <source>A community host on {provider} ({host}): its owner is not {provider} and can see what runs there</source>
        <translation>{provider} 上的社区主机（{host}）：其所有者不是 {provider}，能看到上面运行的内容</translation>
    </message>
    <message>
        <source>no provider id</source>
        <translation>没有供应商编号</translation>
    </message>
    <message>
        <source>{provider} · community host</source>
        <translation>{provider} · 社区主机</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Idle release is off (billing.idle_release_minutes = 0)</source>
        <translation>空闲释放已关闭（billing.idle_release_minutes = 0）</translation>
    </message>
    <message>
        <source>Released after {minutes} min with every GPU idle and no job running; the countdown starts when XyClaw warns</source>
        <translation>所有 GPU 空闲且没有作业运行 {minutes} 分钟后释放；XyClaw 发出提醒时开始倒计时</translation>
    </message>
    <message>
        <source>no budget</source>
        <translation>无预算</translation>
    </message>
    <message>
        <source>{share} of {budget}</source>
        <translation>{budget} 的 {share}</translation>
    </message>
    <message>
        <source>{cost} of {budget}</source>
        <translation>{cost} / {budget}</translation>
    </message>
    <message>
        <source>{n} live</source>
        <translation>{n} 个在用</translation>
    </message>
    <message>
        <source>nothing live</source>
        <translation>没有在用的集群</translation>
    </message>
    <message>
        <source>nothing billing</source>
        <translation>没有计费</translation>
    </message>
    <message>
        <source>{n} ended</source>
        <translation>{n} 个已结束</translation>
    </message>
    <message>
        <source>Select a cluster to see its nodes</source>
        <translation>选择一个集群以查看其节点</translation>
    </message>
    <message>
        <source>no region</source>
        <translation>无地区</translation>
    </message>
    <message>
        <source>fabric {fabric}</source>
        <translation>网络 {fabric}</translation>
    </message>
    <message>
        <source>{price} per GPU-hour</source>
        <translation>每 GPU 小时 {price}</translation>
    </message>
    <message>
        <source>image {image}</source>
        <translation>镜像 {image}</translation>
    </message>
    <message>
        <source>asked {time}</source>
        <translation>申请于 {time}</translation>
    </message>
    <message>
        <source>ready {time} (after {duration})</source>
        <translation>{time} 就绪（用时 {duration}）</translation>
    </message>
    <message>
        <source>released {time}</source>
        <translation>{time} 释放</translation>
    </message>
    <message>
        <source>budget {amount}</source>
        <translation>预算 {amount}</translation>
    </message>
    <message>
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <source>failed: {error}</source>
        <translation>失败：{error}</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>No nodes yet: the provider is creating them.</source>
        <translation>还没有节点：供应商正在创建。</translation>
    </message>
    <message>
        <source>Running since</source>
        <translation>运行开始于</translation>
    </message>
    <message>
        <source>Terminated</source>
        <translation>已终止</translation>
    </message>
    <message>
        <source>&lt;b&gt;ssh alias&lt;/b&gt; {alias}: with this block in ~/.ssh/config (Copy ssh config), {command} reaches the node:</source>
        <translation>&lt;b&gt;ssh 别名&lt;/b&gt; {alias}：把这段配置放进 ~/.ssh/config（复制 ssh 配置）后，{command} 即可登录该节点：</translation>
    </message>
    <message>
        <source>No SSH endpoint yet.</source>
        <translation>还没有 SSH 地址。</translation>
    </message>
    <message>
        <source>No SSH endpoint: the node is gone.</source>
        <translation>没有 SSH 地址：节点已不存在。</translation>
    </message>
    <message>
        <source>Host key</source>
        <translation>主机密钥</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>no results seen in this session.</source>
        <translation>本次会话中没有看到结果。</translation>
    </message>
    <message>
        <source>Copied the Host block for {alias}: paste it into ~/.ssh/config</source>
        <translation>已复制 {alias} 的 Host 配置：请粘贴到 ~/.ssh/config</translation>
    </message>
    <message>
        <source>job {job} is stopped</source>
        <translation>作业 {job} 会被停止</translation>
    </message>
    <message>
        <source>files only on the nodes' own disks (copy results and checkpoints off first)</source>
        <translation>只在节点本地磁盘上的文件（请先把结果和检查点拷出来）</translation>
    </message>
    <message>
        <source>the nodes' SSH endpoints and their ssh aliases ({aliases})</source>
        <translation>节点的 SSH 地址及其 ssh 别名（{aliases}）</translation>
    </message>
    <message>
        <source>{rate}/h for {n} GPUs</source>
        <translation>{n} 个 GPU 每小时 {rate}</translation>
    </message>
    <message>
        <source>nothing bills now</source>
        <translation>当前没有计费</translation>
    </message>
    <message>
        <source>{billing} stops once {provider} confirms; {cost} charged so far</source>
        <translation>{billing}，在 {provider} 确认后停止；目前已花费 {cost}</translation>
    </message>
    <message>
        <source>Release {name}</source>
        <translation>释放 {name}</translation>
    </message>
    <message>
        <source>you, from the Clusters page</source>
        <translation>你，在集群页面</translation>
    </message>
    <message>
        <source>Release cluster</source>
        <translation>释放集群</translation>
    </message>
    <message>
        <source>Releasing cannot be undone: the machines go back to the provider.</source>
        <translation>释放无法撤销：机器将归还给供应商。</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>释放</translation>
    </message>
    <message>
        <source>Kept {name}: nothing was released.</source>
        <translation>保留了 {name}：没有释放任何机器。</translation>
    </message>
    <message>
        <source>Releasing {name}: billing stops once {provider} confirms.</source>
        <translation>正在释放 {name}：{provider} 确认后停止计费。</translation>
    </message>
    <message>
        <source>Tuning {name}: the operations panel shows each step.</source>
        <translation>正在调优 {name}：操作面板会显示每一步。</translation>
    </message>
    <message>
        <source>Quoting {n} × {gpu} from {provider}…</source>
        <translation>正在向 {provider} 询价 {n} × {gpu}…</translation>
    </message>
    <message>
        <source>card-title</source>
        <translation>card-title</translation>
    </message>
    <message>
        <source>Tune</source>
        <translation>调优</translation>
    </message>
    <message>
        <source>Probe the fabric, measure all-reduce, try the recommended NCCL settings and keep the better</source>
        <translation>探测网络，测量 all-reduce，试用推荐的 NCCL 设置并保留更好的那个</translation>
    </message>
    <message>
        <source>Release…</source>
        <translation>释放…</translation>
    </message>
    <message>
        <source>Give the machines back: billing stops, what is only on their disks is lost</source>
        <translation>归还机器：停止计费，只存在它们磁盘上的数据会丢失</translation>
    </message>
    <message>
        <source>danger</source>
        <translation>danger</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Node details</source>
        <translation>节点详情</translation>
    </message>
    <message>
        <source>Copy ssh config</source>
        <translation>复制 ssh 配置</translation>
    </message>
    <message>
        <source>Copy a Host block for ~/.ssh/config, so that `ssh &lt;alias&gt;` reaches this node</source>
        <translation>复制一段 ~/.ssh/config 的 Host 配置，使 `ssh &lt;别名&gt;` 能连到这个节点</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <source>x axis</source>
        <translation>横轴</translation>
    </message>
    <message>
        <source>Curve</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Differences only</source>
        <translation>只看不同之处</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Wall time</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Tokens seen</source>
        <translation>已处理 token</translation>
    </message>
    <message>
        <source>Money spent</source>
        <translation>已花费</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Comparing {n} jobs</source>
        <translation>对比 {n} 个作业</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>wall time ({unit})</source>
        <translation>耗时（{unit}）</translation>
    </message>
    <message>
        <source>tokens seen</source>
        <translation>已处理 token</translation>
    </message>
    <message>
        <source>money spent ({currency})</source>
        <translation>已花费（{currency}）</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>No points on this axis for: {runs}</source>
        <translation>以下运行在这个轴上没有数据点：{runs}</translation>
    </message>
    <message>
        <source>h</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>min</source>
        <translation>分钟</translation>
    </message>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Setting or result</source>
        <translation>设置或结果</translation>
    </message>
    <message>
        <source>{shown} of {total} rows</source>
        <translation>{total} 行中的 {shown} 行</translation>
    </message>
    <message>
        <source>{total} rows</source>
        <translation>{total} 行</translation>
    </message>
</context>
<context>
    <name>EditArgs</name>
    <message>
        <source>plan</source>
        <extracomment>The tools' argument names as the Edit dialog labels them.</extracomment>
        <translation>方案</translation>
    </message>
    <message>
        <source>option</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>provider</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>GPU count</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>每节点 GPU 数</translation>
    </message>
    <message>
        <source>region</source>
        <translation>地区</translation>
    </message>
    <message>
        <source>fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>timeout (s)</source>
        <translation>超时（秒）</translation>
    </message>
    <message>
        <source>job spec</source>
        <translation>作业描述</translation>
    </message>
    <message>
        <source>job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>lines</source>
        <translation>行数</translation>
    </message>
    <message>
        <source>quote digest</source>
        <translation>报价摘要</translation>
    </message>
    <message>
        <source>task</source>
        <translation>任务类型</translation>
    </message>
    <message>
        <source>model parameters</source>
        <translation>模型参数量</translation>
    </message>
    <message>
        <source>training tokens</source>
        <translation>训练 token 数</translation>
    </message>
    <message>
        <source>deadline (hours)</source>
        <translation>期限（小时）</translation>
    </message>
    <message>
        <source>requests per second</source>
        <translation>每秒请求数</translation>
    </message>
</context>
<context>
    <name>EditArgsDialog</name>
    <message>
        <source>Edit the request</source>
        <translation>修改请求</translation>
    </message>
    <message>
        <source>Change what the agent asked for. XyClaw quotes the changed request again and asks you to approve it.</source>
        <translation>修改智能体的请求。XyClaw 会为修改后的请求重新报价，并再次请你批准。</translation>
    </message>
    <message>
        <source>error</source>
        <translation>error</translation>
    </message>
</context>
<context>
    <name>Fabric</name>
    <message>
        <source>single node</source>
        <translation>单机</translation>
    </message>
    <message>
        <source>One machine: its GPUs talk over NVLink or PCIe, no network fabric between nodes is used (none to choose or tune)</source>
        <translation>单台机器：GPU 之间经 NVLink 或 PCIe 通信，不使用节点间网络（无需选择或调优）</translation>
    </message>
    <message>
        <source>The network between the nodes: {fabric}</source>
        <translation>节点间网络：{fabric}</translation>
    </message>
</context>
<context>
    <name>FileDialog</name>
    <message>
        <source>Look in:</source>
        <translation>查找范围：</translation>
    </message>
    <message>
        <source>File name:</source>
        <translation>文件名：</translation>
    </message>
    <message>
        <source>Files of type:</source>
        <translation>文件类型：</translation>
    </message>
</context>
<context>
    <name>GpuHeatmap</name>
    <message>
        <source>utilization %</source>
        <extracomment>the image's colours as 0xffRRGGBB, kept up to date by whoever sets the image (column by column as it moves): drawn as they are, which costs a seventh of drawing the indexed image (Qt converts that at every paint); None: indexed</extracomment>
        <translation>利用率 %</translation>
    </message>
    <message>
        <source>no data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>{name} GPU {slot}: {value} at {time}</source>
        <translation>{name} GPU {slot}：{time} 时 {value}</translation>
    </message>
    <message>
        <source>{node}: click to chart its GPUs</source>
        <translation>{node}：点击以绘制它的 GPU</translation>
    </message>
</context>
<context>
    <name>History</name>
    <message>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>setting up</source>
        <translation>准备中</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>recovering</source>
        <translation>恢复中</translation>
    </message>
    <message>
        <source>lost contact</source>
        <translation>失去联系</translation>
    </message>
    <message>
        <source>requested</source>
        <translation>已请求</translation>
    </message>
    <message>
        <source>provisioning</source>
        <translation>开通中</translation>
    </message>
    <message>
        <source>bootstrapping</source>
        <translation>初始化中</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>releasing</source>
        <translation>释放中</translation>
    </message>
    <message>
        <source>released</source>
        <translation>已释放</translation>
    </message>
    <message>
        <source>gone</source>
        <translation>已消失</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>terminating</source>
        <translation>正在终止</translation>
    </message>
    <message>
        <source>terminated</source>
        <translation>已终止</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>a non-zero exit</source>
        <translation>非零退出</translation>
    </message>
    <message>
        <source>a lost node</source>
        <translation>节点丢失</translation>
    </message>
    <message>
        <source>a GPU error (XID)</source>
        <translation>GPU 错误（XID）</translation>
    </message>
    <message>
        <source>an NCCL timeout</source>
        <translation>NCCL 超时</translation>
    </message>
    <message>
        <source>an NCCL error</source>
        <translation>NCCL 错误</translation>
    </message>
    <message>
        <source>a CUDA error</source>
        <translation>CUDA 错误</translation>
    </message>
    <message>
        <source>running out of GPU memory</source>
        <translation>GPU 显存不足</translation>
    </message>
    <message>
        <source>a cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>an unreachable node</source>
        <translation>节点无法连接</translation>
    </message>
    <message>
        <source>the budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>the time limit</source>
        <translation>时间上限</translation>
    </message>
    <message>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>critical</source>
        <translation>严重</translation>
    </message>
    <message>
        <source>before tuning</source>
        <translation>调优前</translation>
    </message>
    <message>
        <source>with the new settings</source>
        <translation>使用新设置</translation>
    </message>
    <message>
        <source>check</source>
        <translation>复查</translation>
    </message>
    <message>
        <source>recommended from the fabric probe</source>
        <translation>根据网络探测推荐</translation>
    </message>
    <message>
        <source>kept as they were (already healthy)</source>
        <translation>保持原样（已经健康）</translation>
    </message>
    <message>
        <source>chosen by measuring</source>
        <translation>经测量选定</translation>
    </message>
    <message>
        <source>set by you</source>
        <translation>由你设置</translation>
    </message>
    <message>
        <source>Rented</source>
        <translation>租用</translation>
    </message>
    <message>
        <source>Node up</source>
        <translation>节点启动</translation>
    </message>
    <message>
        <source>Node failed</source>
        <translation>节点失败</translation>
    </message>
    <message>
        <source>Bootstrapped</source>
        <translation>初始化完成</translation>
    </message>
    <message>
        <source>Fabric probed</source>
        <translation>探测网络</translation>
    </message>
    <message>
        <source>Bus bandwidth measured</source>
        <translation>测量总线带宽</translation>
    </message>
    <message>
        <source>NCCL settings</source>
        <translation>NCCL 设置</translation>
    </message>
    <message>
        <source>Alert</source>
        <translation>告警</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>Failover</source>
        <translation>故障转移</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Recovery</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Job created</source>
        <translation>创建作业</translation>
    </message>
    <message>
        <source>Attempt started</source>
        <translation>尝试开始</translation>
    </message>
    <message>
        <source>Attempt ended</source>
        <translation>尝试结束</translation>
    </message>
    <message>
        <source>Job ended</source>
        <translation>作业结束</translation>
    </message>
    <message>
        <source>Release requested</source>
        <translation>请求释放</translation>
    </message>
    <message>
        <source>Released</source>
        <translation>已释放</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>提供商</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>地域</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>Nodes x GPUs per node</source>
        <translation>节点数 × 每节点 GPU 数</translation>
    </message>
    <message>
        <source>Fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Price per GPU-hour</source>
        <translation>每 GPU 小时价格</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>Duration (s)</source>
        <translation>时长（秒）</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Lowest loss</source>
        <translation>最低 loss</translation>
    </message>
    <message>
        <source>Tokens/s after warm-up</source>
        <translation>预热后的 token/秒</translation>
    </message>
    <message>
        <source>MFU (estimated)</source>
        <translation>MFU（估算）</translation>
    </message>
    <message>
        <source>Cost per M tokens</source>
        <translation>每百万 token 费用</translation>
    </message>
    <message>
        <source>Cost per epoch</source>
        <translation>每轮费用</translation>
    </message>
    <message>
        <source>Cost per 1k requests</source>
        <translation>每千次请求费用</translation>
    </message>
    <message>
        <source>Training method</source>
        <translation>训练方式</translation>
    </message>
    <message>
        <source>All-reduce bus bandwidth</source>
        <translation>all_reduce 总线带宽</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>uncorrectable ECC error</source>
        <translation>不可纠正的 ECC 错误</translation>
    </message>
    <message>
        <source>GPUs idle while a job runs</source>
        <translation>作业运行时 GPU 空闲</translation>
    </message>
    <message>
        <source>GPU memory full</source>
        <translation>GPU 显存已满</translation>
    </message>
    <message>
        <source>a GPU went missing</source>
        <translation>一块 GPU 不见了</translation>
    </message>
    <message>
        <source>power throttling</source>
        <translation>功耗降频</translation>
    </message>
    <message>
        <source>a slow GPU</source>
        <translation>一块 GPU 偏慢</translation>
    </message>
    <message>
        <source>thermal throttling</source>
        <translation>过热降频</translation>
    </message>
    <message>
        <source>GPU driver error (XID)</source>
        <translation>GPU 驱动错误（XID）</translation>
    </message>
    <message>
        <source>NCCL timeout</source>
        <translation>NCCL 超时</translation>
    </message>
    <message>
        <source>network traffic collapsed</source>
        <translation>网络流量骤降</translation>
    </message>
    <message>
        <source>a slow node</source>
        <translation>一个节点偏慢</translation>
    </message>
    <message>
        <source>a node stopped answering</source>
        <translation>一个节点停止响应</translation>
    </message>
    <message>
        <source>GPUs busy but doing little</source>
        <translation>GPU 忙碌但几乎没做事</translation>
    </message>
    <message>
        <source>a slow rank</source>
        <translation>一个慢进程</translation>
    </message>
    <message>
        <source>a slow network link</source>
        <translation>一条变慢的网络链路</translation>
    </message>
    <message>
        <source>where a hung job's ranks parted</source>
        <translation>挂起作业的进程在哪里分道</translation>
    </message>
    <message>
        <source>the fabric slower than when tuned</source>
        <translation>网络比调优时慢</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>tuning</source>
        <translation>调优</translation>
    </message>
    <message>
        <source>reconciliation</source>
        <translation>对账</translation>
    </message>
    <message>
        <source>budget and idle guard</source>
        <translation>预算与空闲守护</translation>
    </message>
    <message>
        <source>idle release</source>
        <translation>空闲释放</translation>
    </message>
    <message>
        <source>job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>orphan</source>
        <translation>孤儿实例</translation>
    </message>
    <message>
        <source>billing</source>
        <translation>计费</translation>
    </message>
    <message>
        <source>Spec</source>
        <translation>规格</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>NCCL environment</source>
        <translation>NCCL 环境</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>{nodes} x {per} {gpu} from {provider} in {region}, {fabric}, {price} per GPU-hour</source>
        <translation>{nodes} × {per} {gpu}，来自 {provider}（{region}），{fabric}，每 GPU 小时 {price}</translation>
    </message>
    <message>
        <source>the node answers SSH and passed its checks</source>
        <translation>节点 SSH 已连通并通过了检查</translation>
    </message>
    <message>
        <source>{n} nodes answer SSH and passed their checks</source>
        <translation>{n} 个节点可以 SSH 登录并通过了检查</translation>
    </message>
    <message>
        <source>{fabric} over {transport}, {active} of {total} NICs active</source>
        <translation>{fabric}，经由 {transport}，{total} 块网卡中 {active} 块在用</translation>
    </message>
    <message>
        <source>{fabric} over {transport}</source>
        <translation>{fabric}，经由 {transport}</translation>
    </message>
    <message>
        <source>{collective} {phase}: {avg} GB/s average, {peak} GB/s peak ({transport})</source>
        <translation>{collective} {phase}：平均 {avg} GB/s，峰值 {peak} GB/s（{transport}）</translation>
    </message>
    <message>
        <source>applied, {how}</source>
        <translation>已应用，{how}</translation>
    </message>
    <message>
        <source>proposed, {how}</source>
        <translation>已提出，{how}</translation>
    </message>
    <message>
        <source>cleared at {time}</source>
        <translation>于 {time} 解除</translation>
    </message>
    <message>
        <source>still open when the history ends</source>
        <translation>到记录结束时仍未解除</translation>
    </message>
    <message>
        <source>attempt {n} after {cause}</source>
        <translation>因{cause}而开始第 {n} 次尝试</translation>
    </message>
    <message>
        <source>resumed from step {step}</source>
        <translation>从第 {step} 步继续</translation>
    </message>
    <message>
        <source>attempt {n}</source>
        <translation>第 {n} 次尝试</translation>
    </message>
    <message>
        <source>attempt {n}: {state}</source>
        <translation>第 {n} 次尝试：{state}</translation>
    </message>
    <message>
        <source>because of {cause}</source>
        <translation>原因：{cause}</translation>
    </message>
    <message>
        <source>exit code {code}</source>
        <translation>退出码 {code}</translation>
    </message>
</context>
<context>
    <name>HistoryMemory</name>
    <message>
        <source>provider</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>region</source>
        <translation>地区</translation>
    </message>
    <message>
        <source>node class</source>
        <translation>节点类型</translation>
    </message>
    <message>
        <source>host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>XID error</source>
        <translation>XID 错误</translation>
    </message>
    <message>
        <source>uncorrectable ECC errors</source>
        <translation>不可纠正的 ECC 错误</translation>
    </message>
    <message>
        <source>GPU fell off the bus</source>
        <translation>GPU 掉卡</translation>
    </message>
    <message>
        <source>straggler</source>
        <translation>掉队节点</translation>
    </message>
    <message>
        <source>fabric stall</source>
        <translation>网络停滞</translation>
    </message>
    <message>
        <source>low bus bandwidth</source>
        <translation>总线带宽偏低</translation>
    </message>
    <message>
        <source>never came up</source>
        <translation>未能启动</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>被拒绝</translation>
    </message>
    <message>
        <source>left billing unseen</source>
        <translation>未察觉时仍在计费</translation>
    </message>
    <message>
        <source>billed off the quote</source>
        <translation>计费偏离报价</translation>
    </message>
    <message>
        <source>{cost} / M tokens</source>
        <translation>{cost} / 百万 token</translation>
    </message>
    <message>
        <source>{cost} / 1k requests</source>
        <translation>{cost} / 千次请求</translation>
    </message>
    <message>
        <source>{cost} / epoch</source>
        <translation>{cost} / 轮</translation>
    </message>
</context>
<context>
    <name>HistoryPage</name>
    <message>
        <source>History</source>
        <extracomment>The job list's columns hidden until asked for: cost per result and MFU.</extracomment>
        <translation>历史</translation>
    </message>
    <message>
        <source>Every cluster and job XyClaw ran, from this computer's history: it works offline, and nothing here asks a provider.</source>
        <translation>XyClaw 运行过的每个集群和作业，来自本机的历史记录：离线可用，这里不会访问任何提供商。</translation>
    </message>
    <message>
        <source>Search names, clusters, ids… (Ctrl+F)</source>
        <translation>搜索名称、集群、编号…（Ctrl+F）</translation>
    </message>
    <message>
        <source>Period</source>
        <translation>时间段</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>提供商</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>Lowest cost shown (in the run's currency)</source>
        <translation>显示的最低费用（按该次运行的币种）</translation>
    </message>
    <message>
        <source>Highest cost shown (– for no limit)</source>
        <translation>显示的最高费用（– 表示不限）</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Clusters</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Hosts and providers</source>
        <translation>主机与平台</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>编号</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Cost per result</source>
        <translation>单位产出费用</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>地域</translation>
    </message>
    <message>
        <source>Fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Rented</source>
        <translation>租用</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>回放</translation>
    </message>
    <message>
        <source>Play back the selected run (Enter)</source>
        <translation>回放所选的运行（Enter）</translation>
    </message>
    <message>
        <source>Overlay the curves and table the settings of the selected jobs (Ctrl+Shift+C)</source>
        <translation>叠加所选作业的曲线并列出它们的设置（Ctrl+Shift+C）</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Write what is shown below to JSON or CSV (Ctrl+E)</source>
        <translation>把下方显示的内容写成 JSON 或 CSV（Ctrl+E）</translation>
    </message>
    <message>
        <source>Launch again…</source>
        <translation>再次启动…</translation>
    </message>
    <message>
        <source>Launch a new job with the selected job's spec (on the Jobs page)</source>
        <translation>用所选作业的规格启动新作业（在“作业”页）</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Read the history again (F5)</source>
        <translation>重新读取历史（F5）</translation>
    </message>
    <message>
        <source>Pick a job or a cluster and press Replay to play it back; pick two or more jobs (Ctrl+click) and press Compare to overlay their curves.</source>
        <translation>选择一个作业或集群并按“回放”来重放它；选择两个或更多作业（Ctrl+点击）并按“对比”来叠加它们的曲线。</translation>
    </message>
    <message>
        <source>any time</source>
        <translation>任何时间</translation>
    </message>
    <message>
        <source>today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>this year</source>
        <translation>今年</translation>
    </message>
    <message>
        <source>between dates</source>
        <translation>指定日期之间</translation>
    </message>
    <message>
        <source>all providers</source>
        <translation>所有提供商</translation>
    </message>
    <message>
        <source>all GPUs</source>
        <translation>所有 GPU</translation>
    </message>
    <message>
        <source>all states</source>
        <translation>所有状态</translation>
    </message>
    <message>
        <source>jobs</source>
        <translation>个作业</translation>
    </message>
    <message>
        <source>clusters</source>
        <translation>个集群</translation>
    </message>
    <message>
        <source>{shown} of {total} {what} · {cost} in all</source>
        <translation>显示 {shown}/{total} {what} · 共 {cost}</translation>
    </message>
    <message>
        <source>Compare ({n})</source>
        <translation>对比（{n}）</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Written: {files}</source>
        <translation>已写入：{files}</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>JSON (*.json);;CSV (*.csv)</source>
        <translation>JSON (*.json);;CSV (*.csv)</translation>
    </message>
</context>
<context>
    <name>HostKeyDialog</name>
    <message>
        <source>Log in</source>
        <extracomment>How long a connecting thread waits for the user before it refuses the host.</extracomment>
        <translation>登录</translation>
    </message>
    <message>
        <source>{host} asks you to log in.</source>
        <translation>{host} 要求你登录。</translation>
    </message>
    <message>
        <source>Unknown host key</source>
        <translation>未知的主机密钥</translation>
    </message>
    <message>
        <source>XyClaw has never connected to {host}. Trust its key?</source>
        <translation>XyClaw 从未连接过 {host}。要信任它的密钥吗？</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Key type</source>
        <translation>密钥类型</translation>
    </message>
    <message>
        <source>Fingerprint</source>
        <translation>指纹</translation>
    </message>
    <message>
        <source>Compare the fingerprint with the one your provider shows, or run ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on the machine. Trust records the key in XyClaw's own known-hosts file; a different key later is refused.</source>
        <translation>请把指纹与供应商显示的指纹比对，或在那台机器上运行 ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub。信任后，密钥会记入 XyClaw 自己的 known_hosts 文件；以后出现不同的密钥会被拒绝。</translation>
    </message>
    <message>
        <source>Host key changed: connection refused</source>
        <translation>主机密钥已变更：已拒绝连接</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>a host</source>
        <translation>某台主机</translation>
    </message>
    <message>
        <source>XyClaw refused to connect: the host key of {hosts} has CHANGED.</source>
        <translation>XyClaw 拒绝连接：{hosts} 的主机密钥已经变更。</translation>
    </message>
    <message>
        <source>On record</source>
        <translation>已记录的</translation>
    </message>
    <message>
        <source>Presented now</source>
        <translation>现在出示的</translation>
    </message>
    <message>
        <source>someone may be intercepting the connection, or the machine was re-installed. Check the new fingerprint with the provider before removing the old one.</source>
        <translation>可能有人在截取连接，或者那台机器被重装了。在删除旧密钥之前，请先向供应商核实新的指纹。</translation>
    </message>
    <message>
        <source>heading</source>
        <translation>heading</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Do not connect</source>
        <translation>不要连接</translation>
    </message>
    <message>
        <source>Trust and connect</source>
        <translation>信任并连接</translation>
    </message>
    <message>
        <source>primary</source>
        <translation>primary</translation>
    </message>
</context>
<context>
    <name>JobPanel</name>
    <message>
        <source>no job</source>
        <translation>没有作业</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>预计剩余</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Job: {name} ({state})</source>
        <translation>作业：{name}（{state}）</translation>
    </message>
</context>
<context>
    <name>JobsPage</name>
    <message>
        <source>Nothing was launched.</source>
        <extracomment>Lines of a job's log read when it is opened (and after a filter changes). Lines kept in the log view while following (older ones scroll away).</extracomment>
        <translation>未启动任何作业。</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Training and inference jobs: follow them live, launch, cancel, launch again.</source>
        <translation>训练和推理作业：实时跟踪、启动、取消、再次启动。</translation>
    </message>
    <message>
        <source>Launch…</source>
        <translation>启动…</translation>
    </message>
    <message>
        <source>Launch a job from its spec file (Ctrl+L)</source>
        <translation>从规格文件启动作业 (Ctrl+L)</translation>
    </message>
    <message>
        <source>Show finished</source>
        <translation>显示已结束</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Read the jobs again (F5)</source>
        <translation>重新读取作业 (F5)</translation>
    </message>
    <message>
        <source>Dismiss this message</source>
        <translation>关闭这条消息</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>编号</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>尝试</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>预计剩余</translation>
    </message>
    <message>
        <source>Cost so far</source>
        <translation>目前费用</translation>
    </message>
    <message>
        <source>No jobs yet. Press Launch… and pick a spec file (resources/examples has samples), or ask in the chat.</source>
        <translation>还没有作业。点“启动…”并选一个规格文件（resources/examples 里有示例），或在对话中提出。</translation>
    </message>
    <message>
        <source>Select a job for its progress, charts, log and events.</source>
        <translation>选择一个作业，查看其进度、图表、日志和事件。</translation>
    </message>
    <message>
        <source>Cancel job…</source>
        <translation>取消作业…</translation>
    </message>
    <message>
        <source>Stop the job on every node after a confirmation; the cluster stays</source>
        <translation>确认后在每个节点上停止作业；集群保留</translation>
    </message>
    <message>
        <source>Why is it stuck?</source>
        <translation>为什么卡住？</translation>
    </message>
    <message>
        <source>Ask every rank for its Flight Recorder dump (the job keeps running) and say which rank the others wait for, on which node, in which collective</source>
        <translation>请每个进程写出 Flight Recorder 记录（作业继续运行），指出其他进程在等哪个进程、在哪个节点、哪次集合通信</translation>
    </message>
    <message>
        <source>Launch again…</source>
        <translation>再次启动…</translation>
    </message>
    <message>
        <source>Launch a new job with this job's spec</source>
        <translation>用此作业的规格启动新作业</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>Loss by step</source>
        <translation>各步损失</translation>
    </message>
    <message>
        <source>No loss or throughput read from the log yet.</source>
        <translation>尚未从日志读到损失或吞吐量。</translation>
    </message>
    <message>
        <source>Search the log…</source>
        <translation>搜索日志…</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>进程序号</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
    <message>
        <source>Show new lines as they come and keep the end in view</source>
        <translation>新行到达时即显示，并保持显示末尾</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Ended</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>Ended by</source>
        <translation>结束原因</translation>
    </message>
    <message>
        <source>Resumed from</source>
        <translation>恢复自</translation>
    </message>
    <message>
        <source>What happened</source>
        <translation>经过</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>级别</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Cluster rented for it</source>
        <translation>为其租用的集群</translation>
    </message>
    <message>
        <source>Running time</source>
        <translation>运行时长</translation>
    </message>
    <message>
        <source>Cost per result</source>
        <translation>单位产出费用</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>M tokens/s</source>
        <translation>百万 token/秒</translation>
    </message>
    <message>
        <source>k tokens/s</source>
        <translation>千 token/秒</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Throughput ({unit})</source>
        <translation>吞吐量（{unit}）</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>service</source>
        <translation>服务</translation>
    </message>
    <message>
        <source>no cluster yet</source>
        <translation>尚无集群</translation>
    </message>
    <message>
        <source>{name} · {state} · on {cluster} · attempt {attempt}</source>
        <translation>{name} · {state} · 在 {cluster} 上 · 第 {attempt} 次尝试</translation>
    </message>
    <message>
        <source>step {step} of {total} (%p%)</source>
        <translation>第 {step} 步，共 {total} 步 (%p%)</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>no step read yet</source>
        <translation>尚未读到步数</translation>
    </message>
    <message>
        <source>ETA {eta}</source>
        <translation>预计剩余 {eta}</translation>
    </message>
    <message>
        <source>ETA: not yet known</source>
        <translation>预计剩余：尚不可知</translation>
    </message>
    <message>
        <source>cost so far {cost}</source>
        <translation>目前费用 {cost}</translation>
    </message>
    <message>
        <source>loss {loss}</source>
        <translation>损失 {loss}</translation>
    </message>
    <message>
        <source>{rate} tokens/s</source>
        <translation>{rate} token/秒</translation>
    </message>
    <message>
        <source>checkpoint at step {step}</source>
        <translation>检查点在第 {step} 步</translation>
    </message>
    <message>
        <source>started {when}</source>
        <translation>开始于 {when}</translation>
    </message>
    <message>
        <source>ended {when}</source>
        <translation>结束于 {when}</translation>
    </message>
    <message>
        <source>cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>the first steps are warming up; the ETA follows</source>
        <translation>前几步还在预热，之后给出预计剩余时间</translation>
    </message>
    <message>
        <source>the log has not said how many steps there are</source>
        <translation>日志还没有给出总步数</translation>
    </message>
    <message>
        <source>no step read from the log yet</source>
        <translation>还没有从日志中读到步数</translation>
    </message>
    <message>
        <source>not forwarded yet</source>
        <translation>尚未转发</translation>
    </message>
    <message>
        <source>Service at {url} · {rate} requests/s · latency {latency} ms</source>
        <translation>服务地址 {url} · 每秒 {rate} 个请求 · 延迟 {latency} 毫秒</translation>
    </message>
    <message>
        <source>step {step}</source>
        <translation>第 {step} 步</translation>
    </message>
    <message>
        <source>(its share of the cluster while it ran)</source>
        <translation>（运行期间所占集群费用）</translation>
    </message>
    <message>
        <source>yes: released when the job is done</source>
        <translation>是：作业完成后释放</translation>
    </message>
    <message>
        <source>no: the cluster stays when the job ends</source>
        <translation>否：作业结束后集群保留</translation>
    </message>
    <message>
        <source>{cost} per M tokens</source>
        <translation>每百万 token {cost}</translation>
    </message>
    <message>
        <source>{cost} per epoch</source>
        <translation>每轮 {cost}</translation>
    </message>
    <message>
        <source>{cost} per 1k requests</source>
        <translation>每千次请求 {cost}</translation>
    </message>
    <message>
        <source>Counted when the spec names the model in its environment: XYCLAW_MODEL_PARAMS (7B) and XYCLAW_TRAINING (full or lora)</source>
        <translation>作业描述的环境变量写明模型时才计算：XYCLAW_MODEL_PARAMS（如 7B）和 XYCLAW_TRAINING（full 或 lora）</translation>
    </message>
    <message>
        <source>{mfu} ({k}N FLOPs per token, {gpus} x {gpu})</source>
        <translation>{mfu}（每 token {k}N FLOPs，{gpus} × {gpu}）</translation>
    </message>
    <message>
        <source>all nodes</source>
        <translation>全部节点</translation>
    </message>
    <message>
        <source>{shown} of {total} lines</source>
        <translation>{total} 行中的 {shown} 行</translation>
    </message>
    <message>
        <source>Not following this job live: {error}</source>
        <translation>未能实时跟随此作业：{error}</translation>
    </message>
    <message>
        <source>Launch a job from its spec</source>
        <translation>从规格文件启动作业</translation>
    </message>
    <message>
        <source>Job specs (*.yaml *.yml);;All files (*)</source>
        <translation>作业规格 (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Launching: “{title}”; the operations panel shows each step.</source>
        <translation>正在启动：“{title}”；操作面板显示每一步。</translation>
    </message>
    <message>
        <source>Job {name} runs.</source>
        <translation>作业 {name} 已在运行。</translation>
    </message>
    <message>
        <source>attempt {n}</source>
        <translation>第 {n} 次尝试</translation>
    </message>
    <message>
        <source>the work since its last checkpoint</source>
        <translation>自上次检查点以来的计算</translation>
    </message>
    <message>
        <source>Cancel job {name}</source>
        <translation>取消作业 {name}</translation>
    </message>
    <message>
        <source>you, from the Jobs page</source>
        <translation>你，在“作业”页</translation>
    </message>
    <message>
        <source>Cancel job</source>
        <translation>取消作业</translation>
    </message>
    <message>
        <source>Its processes are stopped on every node (SIGTERM, then SIGKILL after a grace period). The cluster stays and keeps billing.</source>
        <translation>它在每个节点上的进程都会被停止（先 SIGTERM，宽限期后 SIGKILL）。集群保留并继续计费。</translation>
    </message>
    <message>
        <source>Cancel the job</source>
        <translation>取消该作业</translation>
    </message>
    <message>
        <source>Asking every rank of {name} for its dump…</source>
        <translation>正在请 {name} 的每个进程写出记录…</translation>
    </message>
    <message>
        <source>The ranks of {name} answered.</source>
        <translation>{name} 的各进程已回应。</translation>
    </message>
    <message>
        <source>What to do: {action}</source>
        <translation>建议：{action}</translation>
    </message>
    <message>
        <source>Kept {name} running.</source>
        <translation>{name} 继续运行。</translation>
    </message>
    <message>
        <source>Cancelling {name}…</source>
        <translation>正在取消 {name}…</translation>
    </message>
    <message>
        <source>{name} is {state}.</source>
        <translation>{name}：{state}。</translation>
    </message>
</context>
<context>
    <name>LaunchDialog</name>
    <message>
        <source>training</source>
        <extracomment>The target value that means "rent a cluster for this job". A spec's ``kind`` as the launch dialog words it (the spec's own word is English).</extracomment>
        <translation>训练</translation>
    </message>
    <message>
        <source>service</source>
        <translation>服务</translation>
    </message>
    <message>
        <source>Launch {name}</source>
        <translation>启动 {name}</translation>
    </message>
    <message>
        <source>{name}: {count} × {gpu} ({provider}), no new cost</source>
        <translation>{name}：{count} × {gpu}（{provider}），无新增费用</translation>
    </message>
    <message>
        <source>Rent {count} × {gpu} for this job (quote and approval first)</source>
        <translation>为此作业租用 {count} × {gpu}（先报价并批准）</translation>
    </message>
    <message>
        <source>No cluster is ready and the spec asks for no GPUs to rent: rent one on the Clusters page, or add resources.gpu to the spec.</source>
        <translation>没有就绪的集群，规格也没有要求租用 GPU：请在“集群”页租一个，或在规格中加上 resources.gpu。</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Run on</source>
        <translation>运行于</translation>
    </message>
    <message>
        <source>XyClaw adds</source>
        <translation>XyClaw 会加入</translation>
    </message>
    <message>
        <source>Sends</source>
        <translation>会发送</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Get a quote…</source>
        <translation>获取报价…</translation>
    </message>
    <message>
        <source>{cluster} does not fit this job: it asks for {nodes} × {per_node} {gpu}, {cluster} has {have_nodes} × {have_per_node} {have_gpu}. It may not start, or run out of GPU memory; choose another cluster or rent one.</source>
        <translation>{cluster} 不适合这个作业：作业要 {nodes} × {per_node} 张 {gpu}，{cluster} 只有 {have_nodes} × {have_per_node} 张 {have_gpu}。作业可能无法启动，或显存不够；请换一个集群，或租用新的。</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>line {line}</source>
        <translation>第 {line} 行</translation>
    </message>
    <message>
        <source>Refused: {where}: {message}</source>
        <translation>被拒绝：{where}：{message}</translation>
    </message>
    <message>
        <source>a new cluster (rented first)</source>
        <translation>新集群（先租用）</translation>
    </message>
    <message>
        <source>Runs on {place}: {nodes} node(s), {gpus}</source>
        <translation>运行于 {place}：{nodes} 个节点，{gpus}</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>无 GPU</translation>
    </message>
    <message>
        <source>Uploads {source} → {target}: {files} file(s), {size} bytes</source>
        <translation>上传 {source} → {target}：{files} 个文件，{size} 字节</translation>
    </message>
    <message>
        <source>Environment of node 0:</source>
        <translation>节点 0 的环境变量：</translation>
    </message>
    <message>
        <source>Setup, as each node runs it:</source>
        <translation>准备命令（每个节点实际执行的）：</translation>
    </message>
    <message>
        <source>Run, as each node runs it:</source>
        <translation>运行命令（每个节点实际执行的）：</translation>
    </message>
    <message>
        <source>Warning: {where}: {message}</source>
        <translation>警告：{where}：{message}</translation>
    </message>
    <message>
        <source>Quote to approve: {quote}</source>
        <translation>需要批准的报价：{quote}</translation>
    </message>
    <message>
        <source>No quote: {why}</source>
        <translation>没有报价：{why}</translation>
    </message>
    <message>
        <source>Nothing was rented, uploaded or run.</source>
        <translation>未租用、未上传、未运行任何东西。</translation>
    </message>
</context>
<context>
    <name>LaunchFlow</name>
    <message>
        <source>Estimated total</source>
        <translation>预计总额</translation>
    </message>
    <message>
        <source>none: the spec sets no max_runtime, so it bills {price}/h until the job ends and you release the cluster</source>
        <translation>无：作业描述未设 max_runtime，按 {price}/小时 计费，直到作业结束且你释放集群</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>XyClaw</source>
        <translation>XyClaw</translation>
    </message>
    <message>
        <source>Navigation</source>
        <translation>导航</translation>
    </message>
    <message>
        <source>Operations</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Data: {folder}</source>
        <extracomment>Pages built right after the window's first paint rather than when first shown.</extracomment>
        <translation>数据：{folder}</translation>
    </message>
    <message>
        <source>XyClaw is still running</source>
        <translation>XyClaw 仍在运行</translation>
    </message>
    <message>
        <source>It keeps watching your clusters, budgets and idle machines. Quit from the tray menu.</source>
        <translation>它会继续看护你的集群、预算和空闲机器。要退出，请用托盘菜单。</translation>
    </message>
</context>
<context>
    <name>MemoryView</name>
    <message>
        <source>One line per</source>
        <translation>每行一个</translation>
    </message>
    <message>
        <source>From this computer's history. The planner ranks a node class that failed on two rentals in 30 days, or a provider that billed over its quote, down and says why (turn it off per plan).</source>
        <translation>来自这台电脑上的历史记录。30 天内两次租用出问题的节点类型、或实际计费高于报价的平台，规划器会排后并说明原因（每次规划可关闭）。</translation>
    </message>
    <message>
        <source>What happened</source>
        <translation>发生了什么</translation>
    </message>
    <message>
        <source>Cost per result by provider, GPU model and month</source>
        <translation>按平台、GPU 型号和月份的单位产出费用</translation>
    </message>
    <message>
        <source>Rentals</source>
        <translation>租用次数</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>出问题</translation>
    </message>
    <message>
        <source>XIDs</source>
        <translation>XID</translation>
    </message>
    <message>
        <source>ECC</source>
        <translation>ECC</translation>
    </message>
    <message>
        <source>Worst bus bandwidth</source>
        <translation>最差总线带宽</translation>
    </message>
    <message>
        <source>Never came up</source>
        <translation>未能启动</translation>
    </message>
    <message>
        <source>Refused</source>
        <translation>被拒</translation>
    </message>
    <message>
        <source>Leaks</source>
        <translation>泄漏</translation>
    </message>
    <message>
        <source>Price drift</source>
        <translation>计费偏差</translation>
    </message>
    <message>
        <source>Ready in (median)</source>
        <translation>就绪用时（中位数）</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>What</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Month</source>
        <translation>月份</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Per M tokens</source>
        <translation>每百万 token</translation>
    </message>
    <message>
        <source>Per 1k requests</source>
        <translation>每千次请求</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>{rentals} rentals from {providers} providers remembered</source>
        <translation>记得 {providers} 个平台的 {rentals} 次租用</translation>
    </message>
</context>
<context>
    <name>MetricCurves</name>
    <message>
        <source>GPU utilization</source>
        <extracomment>The heatmap's least height: its plot MIN_PLOT_PX tall, with its time axis under it.</extracomment>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>显存占用</translation>
    </message>
    <message>
        <source>Power</source>
        <translation>功率</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>NIC throughput (per node, in + out)</source>
        <translation>网卡吞吐（每节点，收 + 发）</translation>
    </message>
</context>
<context>
    <name>MonitorPage</name>
    <message>
        <source>Click a row of the heatmap to chart that GPU, or a node's name for all its GPUs.</source>
        <translation>点击热力图的一行以绘制那块 GPU，或点击节点名以绘制它的全部 GPU。</translation>
    </message>
    <message>
        <source>Monitor</source>
        <translation>监控</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>stop charting the picked GPUs</source>
        <translation>不再绘制所选的 GPU</translation>
    </message>
    <message>
        <source>No cluster is being watched yet.

Rent one from Chat or the Clusters page: its GPUs show here as soon as the first samples arrive.</source>
        <translation>还没有正在监控的集群。

在对话或集群页面租用一个：收到第一批采样后，它的 GPU 就会显示在这里。</translation>
    </message>
    <message>
        <source>The monitor could not read the telemetry (see the log).</source>
        <translation>监控无法读取遥测数据（请查看日志）。</translation>
    </message>
    <message>
        <source>GPU utilization {util}% (nvidia-smi)</source>
        <translation>GPU 利用率 {util}%（nvidia-smi）</translation>
    </message>
    <message>
        <source>SM active {sm}% · tensor pipe {tensor}% · DRAM {dram}% (DCGM)</source>
        <translation>SM 活跃 {sm}% · 张量管线 {tensor}% · 显存带宽 {dram}%（DCGM）</translation>
    </message>
    <message>
        <source>{n} of {total} nodes without DCGM</source>
        <translation>{total} 个节点中有 {n} 个没有 DCGM</translation>
    </message>
    <message>
        <source>no DCGM on these nodes: a busy loop is told from work by the power it draws</source>
        <translation>这些节点没有 DCGM：按功耗区分空转与真实计算</translation>
    </message>
    <message>
        <source>no samples yet</source>
        <translation>还没有采样</translation>
    </message>
    <message>
        <source>newest sample {age}</source>
        <translation>最新采样于 {age}</translation>
    </message>
    <message>
        <source>1 node</source>
        <translation>1 个节点</translation>
    </message>
    <message>
        <source>{n} nodes</source>
        <translation>{n} 个节点</translation>
    </message>
    <message>
        <source>{name} · {nodes} · {gpus} GPUs · {age} · last {minutes} min</source>
        <translation>{name} · {nodes} · {gpus} 个 GPU · {age} · 最近 {minutes} 分钟</translation>
    </message>
    <message>
        <source>{n} s ago</source>
        <translation>{n} 秒前</translation>
    </message>
    <message>
        <source>{n} min ago</source>
        <translation>{n} 分钟前</translation>
    </message>
</context>
<context>
    <name>MonitorWiring</name>
    <message>
        <source>that alert has just cleared</source>
        <translation>该告警刚刚已解除</translation>
    </message>
    <message>
        <source>no job runs on {cluster} now</source>
        <translation>{cluster} 上现在没有运行的作业</translation>
    </message>
    <message>
        <source>the agents are not running</source>
        <translation>智能体没有在运行</translation>
    </message>
    <message>
        <source>restart XyClaw to use alert actions</source>
        <translation>重启 XyClaw 后再使用告警操作</translation>
    </message>
</context>
<context>
    <name>OperationsPanel</name>
    <message>
        <source>Operations</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>: {message}</source>
        <translation>：{message}</translation>
    </message>
    <message>
        <source>No operations yet.</source>
        <translation>还没有操作。</translation>
    </message>
    <message>
        <source>{running} running, {finished} finished</source>
        <translation>{running} 个运行中，{finished} 个已结束</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Clear finished</source>
        <translation>清除已完成的</translation>
    </message>
</context>
<context>
    <name>Pages</name>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Tell XyClaw what you want to train or serve; its agents plan it.</source>
        <translation>告诉 XyClaw 你想训练或部署什么；它的智能体来规划。</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>Compare GPU models, cluster sizes, fabrics, cost and time.</source>
        <translation>比较 GPU 型号、集群规模、网络、费用和时间。</translation>
    </message>
    <message>
        <source>Clusters</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Clusters you rent or own: state, nodes, cost so far.</source>
        <translation>你租用或自有的集群：状态、节点、目前费用。</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Training and inference jobs: launch, logs, cancel, resume.</source>
        <translation>训练和推理作业：启动、日志、取消、恢复。</translation>
    </message>
    <message>
        <source>Monitor</source>
        <translation>监控</translation>
    </message>
    <message>
        <source>Live GPU and network charts for every node, with alerts.</source>
        <translation>每个节点的实时 GPU 与网络图表，以及告警。</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Past clusters, jobs, charges and conversations, offline.</source>
        <translation>过去的集群、作业、费用和对话，可离线查看。</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Providers, hosts, the LLM endpoint, budgets and theme.</source>
        <translation>提供商、主机、LLM 端点、预算和主题。</translation>
    </message>
</context>
<context>
    <name>PlanChart</name>
    <message>
        <source>Cost against time of every option that fits, with the Pareto front: the options nothing else beats on both. Plan to see it.</source>
        <translation>每个可行方案的费用与时间，以及帕累托前沿：在费用和时间上都没有别的方案能胜过的那些。规划后即可看到。</translation>
    </message>
    <message>
        <source>Nothing fits, so there is nothing to chart: the table lists the closest shapes and the limit each breaks.</source>
        <translation>没有可行方案，所以没有图可画：表格列出了最接近的配置以及各自超出的限制。</translation>
    </message>
    <message>
        <source>days</source>
        <translation>天</translation>
    </message>
    <message>
        <source>hours</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>run time</source>
        <translation>运行时间</translation>
    </message>
    <message>
        <source>serving time</source>
        <translation>服务时间</translation>
    </message>
    <message>
        <source>thousand {currency}</source>
        <translation>千 {currency}</translation>
    </message>
    <message>
        <source>, log scale</source>
        <translation>，对数刻度</translation>
    </message>
    <message>
        <source>{what} ({unit})</source>
        <translation>{what}（{unit}）</translation>
    </message>
    <message>
        <source>cost ({unit})</source>
        <translation>费用（{unit}）</translation>
    </message>
    <message>
        <source>InfiniBand</source>
        <extracomment>How many options and rejected shapes the report lists (the saved plan keeps as many). Seed 004's selection rules, by the rule names the planner attaches to options. Seed 004's fabric comparison (its own figures, quoted as data, not as physics). Chart colours by fabric family (readable on the light and the dark chart background).</extracomment>
        <translation>InfiniBand</translation>
    </message>
    <message>
        <source>RoCE</source>
        <translation>RoCE</translation>
    </message>
    <message>
        <source>TCP Ethernet</source>
        <translation>TCP 以太网</translation>
    </message>
    <message>
        <source>one node</source>
        <translation>单机</translation>
    </message>
    <message>
        <source>Pareto front ({n})</source>
        <translation>帕累托前沿（{n}）</translation>
    </message>
</context>
<context>
    <name>PlanPage</name>
    <message>
        <source>Plan a cluster</source>
        <translation>规划集群</translation>
    </message>
    <message>
        <source>heading</source>
        <translation>heading</translation>
    </message>
    <message>
        <source>What to run and the limits on it. XyClaw ranks every way to rent it by cost and time; nothing is rented until you approve a quote.</source>
        <translation>要运行什么以及它的限制。XyClaw 按费用和时间为每种租用方式排序；在你批准报价之前不会租用任何东西。</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>planTask</source>
        <translation>planTask</translation>
    </message>
    <message>
        <source>field-error</source>
        <translation>field-error</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>模型大小</translation>
    </message>
    <message>
        <source>planModelSize</source>
        <translation>planModelSize</translation>
    </message>
    <message>
        <source>13B, 70B or 1.5e9 parameters</source>
        <translation>13B、70B 或 1.5e9 个参数</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token 数</translation>
    </message>
    <message>
        <source>planTokens</source>
        <translation>planTokens</translation>
    </message>
    <message>
        <source>training tokens, e.g. 1B (optional)</source>
        <translation>训练 token 数，例如 1B（可选）</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>planGpus</source>
        <translation>planGpus</translation>
    </message>
    <message>
        <source>8, 8-32 or 16+ (optional)</source>
        <translation>8、8-32 或 16+（可选）</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>planGpu</source>
        <translation>planGpu</translation>
    </message>
    <message>
        <source>Use my history</source>
        <translation>参考我的历史记录</translation>
    </message>
    <message>
        <source>Ranks down what failed or over-billed, and says why: node classes that failed on two rentals in 30 days and providers that billed over their quote go after the others, each with its reason (History: Hosts and providers)</source>
        <translation>出过问题或多收费的排后，并说明原因：30 天内两次租用出问题的节点类型、以及实际计费高于报价的平台排在其他方案之后，并各自说明原因（历史：主机与平台）</translation>
    </message>
    <message>
        <source>LoRA fine-tune</source>
        <translation>LoRA 微调</translation>
    </message>
    <message>
        <source>Full fine-tune</source>
        <translation>全参数微调</translation>
    </message>
    <message>
        <source>Pretrain</source>
        <translation>预训练</translation>
    </message>
    <message>
        <source>Inference (serve)</source>
        <translation>推理（部署）</translation>
    </message>
    <message>
        <source>Any fabric</source>
        <extracomment>(value, label, translated): the built-in fabrics are shown by their names.</extracomment>
        <translation>任意网络</translation>
    </message>
    <message>
        <source>InfiniBand (any)</source>
        <translation>InfiniBand（任意）</translation>
    </message>
    <message>
        <source>RoCE v2 (any)</source>
        <translation>RoCE v2（任意）</translation>
    </message>
    <message>
        <source>TCP Ethernet (any)</source>
        <translation>TCP 以太网（任意）</translation>
    </message>
    <message>
        <source>One node only (no fabric)</source>
        <translation>仅单节点（无网络）</translation>
    </message>
    <message>
        <source>GPU</source>
        <extracomment>Form field -&gt; the PlanRequest.parse keyword it feeds. RequestError.field -&gt; the form field that shows it. The columns' headers in the GUI's language (the keys stay English).</extracomment>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Cards</source>
        <translation>卡数</translation>
    </message>
    <message>
        <source>Fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Per card-h</source>
        <translation>每卡时</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>Starts</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>GiB/GPU</source>
        <translation>GiB/GPU</translation>
    </message>
    <message>
        <source>Util</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>Why it does not fit</source>
        <translation>为什么不可行</translation>
    </message>
    <message>
        <source>{n} h</source>
        <translation>{n} 小时</translation>
    </message>
    <message>
        <source>{n} d</source>
        <translation>{n} 天</translation>
    </message>
    <message>
        <source> (assumed)</source>
        <translation>（假定）</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} token</translation>
    </message>
    <message>
        <source>{n} req/s</source>
        <translation>每秒 {n} 个请求</translation>
    </message>
    <message>
        <source>{rate} for {hours}</source>
        <translation>{rate}，持续 {hours}</translation>
    </message>
    <message>
        <source>{precision}, context {n}</source>
        <translation>{precision}，上下文 {n}</translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation>1 个 GPU</translation>
    </message>
    <message>
        <source>{n} GPUs</source>
        <translation>{n} 个 GPU</translation>
    </message>
    <message>
        <source>GPU {value}</source>
        <translation>GPU {value}</translation>
    </message>
    <message>
        <source>region {value}</source>
        <translation>地区 {value}</translation>
    </message>
    <message>
        <source>fabric {value}</source>
        <translation>网络 {value}</translation>
    </message>
    <message>
        <source>provider {value}</source>
        <translation>供应商 {value}</translation>
    </message>
    <message>
        <source>budget {amount}</source>
        <translation>预算 {amount}</translation>
    </message>
    <message>
        <source>deadline {hours}</source>
        <translation>截止 {hours}</translation>
    </message>
    <message>
        <source>fastest first</source>
        <translation>最快优先</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>give the model's size, such as 7B, 13B or 70B</source>
        <translation>请填写模型大小，例如 7B、13B 或 70B</translation>
    </message>
    <message>
        <source>{tokens} training tokens assumed; fill in Tokens above</source>
        <extracomment>Reasons whose words name a command-line flag: said for the window, naming its field.</extracomment>
        <translation>按 {tokens} 训练 token 估算；可在上方填写 Token 数</translation>
    </message>
    <message>
        <source>{rate} req/s assumed; fill in QPS above</source>
        <translation>按每秒 {rate} 个请求估算；可在上方填写 QPS</translation>
    </message>
    <message>
        <source>Any GPU</source>
        <translation>任意 GPU</translation>
    </message>
    <message>
        <source>Plan page</source>
        <translation>规划页面</translation>
    </message>
    <message>
        <source>Rejected: nothing was rented ({n} × {gpu}).</source>
        <translation>已拒绝：没有租用任何机器（{n} × {gpu}）。</translation>
    </message>
    <message>
        <source>Select an option to see why it is ranked where it is.</source>
        <translation>选择一个方案，查看它为什么排在这个位置。</translation>
    </message>
    <message>
        <source>Only for training</source>
        <translation>仅用于训练</translation>
    </message>
    <message>
        <source>Only for inference</source>
        <translation>仅用于推理</translation>
    </message>
    <message>
        <source>Fix the fields marked in red first.</source>
        <translation>请先修正标红的字段。</translation>
    </message>
    <message>
        <source>Planning over the providers' live offers…</source>
        <translation>正在根据供应商的实时报价规划…</translation>
    </message>
    <message>
        <source>The planner refused the request.</source>
        <translation>规划器拒绝了这个请求。</translation>
    </message>
    <message>
        <source>The chat's plan {chat}, planned again here over the live offers as plan {id}: rent any option for a quote.</source>
        <translation>对话中的方案 {chat} 已在此按实时报价重新规划为方案 {id}：租用任一选项即可获得报价。</translation>
    </message>
    <message>
        <source>Plan {id}</source>
        <translation>规划 {id}</translation>
    </message>
    <message>
        <source>cheapest first</source>
        <translation>最便宜优先</translation>
    </message>
    <message>
        <source>, the first {n} listed</source>
        <translation>，列出前 {n} 个</translation>
    </message>
    <message>
        <source>{plan}: {fit} of {considered} shapes fit ({order}); {front} on the Pareto front (◆).</source>
        <translation>{plan}：{considered} 种配置中有 {fit} 种可行（{order}）；{front} 种在帕累托前沿上（◆）。</translation>
    </message>
    <message>
        <source>all {n} shapes break a limit</source>
        <translation>全部 {n} 种配置都超出了某项限制</translation>
    </message>
    <message>
        <source>{plan}: nothing fits: {why}.</source>
        <translation>{plan}：没有可行方案：{why}。</translation>
    </message>
    <message>
        <source>Plan {id} saved: rent any option for a quote.</source>
        <translation>规划 {id} 已保存：租用任一方案即可获得报价。</translation>
    </message>
    <message>
        <source>Plan {id} saved: nothing fits; loosen the limit the table names.</source>
        <translation>规划 {id} 已保存：没有可行方案；请放宽表格中列出的限制。</translation>
    </message>
    <message>
        <source>Nothing fits. The table lists the closest shapes and what each breaks; loosen that limit and plan again.</source>
        <translation>没有可行方案。表格列出了最接近的配置以及各自超出的限制；放宽该限制后重新规划。</translation>
    </message>
    <message>
        <source>Rent…</source>
        <translation>租用…</translation>
    </message>
    <message>
        <source>Quote option {n} and ask for your approval</source>
        <translation>为方案 {n} 询价并请你批准</translation>
    </message>
    <message>
        <source>on demand</source>
        <translation>按需</translation>
    </message>
    <message>
        <source>30-day tier</source>
        <translation>30 天档</translation>
    </message>
    <message>
        <source>{shape} on {fabric}, {where}</source>
        <translation>{shape}，网络 {fabric}，{where}</translation>
    </message>
    <message>
        <source>{time} for {cost} at {price} per card-hour ({tier})</source>
        <translation>{time}，共 {cost}，每卡时 {price}（{tier}）</translation>
    </message>
    <message>
        <source>Option {n}</source>
        <translation>方案 {n}</translation>
    </message>
    <message>
        <source>As spot: {cost} (−{percent}%). The provider may take it back with a short notice (about {rate} time(s) a day); each time, the work since the last copied checkpoint is done again.</source>
        <translation>按竞价实例：{cost}（−{percent}%）。提供商可能在短暂通知后收回（大约每天 {rate} 次）；每次收回后，上次复制的检查点之后的工作要重做。</translation>
    </message>
    <message>
        <source>Rent option {n} as spot…</source>
        <translation>以竞价实例租用方案 {n}…</translation>
    </message>
    <message>
        <source>Quoting option {n}…</source>
        <translation>正在为方案 {n} 询价…</translation>
    </message>
    <message>
        <source>A quote is already waiting for your answer.</source>
        <translation>已有一份报价在等待你的答复。</translation>
    </message>
    <message>
        <source>Quoting option {n} as spot…</source>
        <translation>正在为方案 {n} 询竞价实例的价…</translation>
    </message>
    <message>
        <source>Renting: “{title}”; the operations panel shows each node's steps.</source>
        <translation>正在租用：“{title}”；操作面板会显示每个节点的步骤。</translation>
    </message>
    <message>
        <source>Save the selection report</source>
        <translation>保存选型报告</translation>
    </message>
    <message>
        <source>HTML report (*.html)</source>
        <translation>HTML 报告 (*.html)</translation>
    </message>
    <message>
        <source>Saved the selection report to {path}</source>
        <translation>选型报告已保存到 {path}</translation>
    </message>
    <message>
        <source>Show the chat's plan {id} here</source>
        <translation>在此显示对话中的方案 {id}</translation>
    </message>
    <message>
        <source>planFabric</source>
        <translation>planFabric</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>planBudget</source>
        <translation>planBudget</translation>
    </message>
    <message>
        <source>500 or 500 CNY (optional)</source>
        <translation>500 或 500 CNY（可选）</translation>
    </message>
    <message>
        <source>Deadline</source>
        <translation>截止时间</translation>
    </message>
    <message>
        <source>planDeadline</source>
        <translation>planDeadline</translation>
    </message>
    <message>
        <source>48h, 2d, 1d12h (optional)</source>
        <translation>48h、2d、1d12h（可选）</translation>
    </message>
    <message>
        <source>QPS</source>
        <translation>每秒请求数</translation>
    </message>
    <message>
        <source>planRate</source>
        <translation>planRate</translation>
    </message>
    <message>
        <source>requests per second (inference)</source>
        <translation>每秒请求数（推理）</translation>
    </message>
    <message>
        <source>Fastest first (rank by time, not cost)</source>
        <translation>最快优先（按时间而不是费用排序）</translation>
    </message>
    <message>
        <source>error</source>
        <translation>error</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>Rank every option over the providers' live offers (Ctrl+Return)</source>
        <translation>按提供商的实时报价为每个方案排序（Ctrl+Return）</translation>
    </message>
    <message>
        <source>primary</source>
        <translation>primary</translation>
    </message>
    <message>
        <source>Fill in the form and press Plan: the ranked options, their reasons and a cost-versus-time chart appear here.</source>
        <translation>填写表单后按“规划”：排好序的方案、理由以及费用-时间图会显示在这里。</translation>
    </message>
    <message>
        <source>body</source>
        <translation>body</translation>
    </message>
    <message>
        <source>Save report…</source>
        <translation>保存报告…</translation>
    </message>
    <message>
        <source>Write this plan as a selection report (HTML with the chart, the options, RoCE vs InfiniBand and the assumptions)</source>
        <translation>把这份规划写成选型报告（HTML，含图表、方案、RoCE 与 InfiniBand 的比较和各项假设）</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>warning</translation>
    </message>
    <message>
        <source>Ranked options</source>
        <translation>排好序的方案</translation>
    </message>
    <message>
        <source>Cost against time of every feasible option</source>
        <translation>每个可行方案的费用与时间</translation>
    </message>
    <message>
        <source>Why this option</source>
        <translation>为什么选这个方案</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Drive</source>
        <extracomment>The languages the GUI speaks, by setting value; "system" picks one from the OS locale. Words the file dialog takes from Qt's own catalogue, which lacks them in Qt 6 (they moved to the icon provider's context): the file list's Type column says "Drive" for / and "Folder" for a folder. Ours supplies them under Qt's context, so Qt's own lookup finds them.</extracomment>
        <translation>驱动器</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>%1 File</source>
        <translation>%1 文件</translation>
    </message>
</context>
<context>
    <name>QuitDialog</name>
    <message>
        <source>Quit XyClaw</source>
        <translation>退出 XyClaw</translation>
    </message>
    <message>
        <source>These clusters keep billing after XyClaw quits</source>
        <translation>XyClaw 退出后这些集群仍会继续计费</translation>
    </message>
    <message>
        <source>heading</source>
        <translation>heading</translation>
    </message>
    <message>
        <source>Clusters that keep billing</source>
        <translation>继续计费的集群</translation>
    </message>
    <message>
        <source>While XyClaw is closed nothing releases idle machines or enforces budgets. Releasing stops billing; what is only on the nodes' disks is lost.</source>
        <translation>XyClaw 关闭期间，没有谁会释放空闲机器或执行预算。释放会停止计费；只存在节点磁盘上的数据会丢失。</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Quit and keep them running</source>
        <translation>退出并让它们继续运行</translation>
    </message>
    <message>
        <source>Release them and quit</source>
        <translation>释放它们并退出</translation>
    </message>
    <message>
        <source>danger</source>
        <translation>danger</translation>
    </message>
</context>
<context>
    <name>QuitFlow</name>
    <message>
        <source>{name} — {shape} on {where}, {rate}/h, {state} since {since} ({age})</source>
        <translation>{name} — {shape}，在 {where}，{rate}/小时，自 {since} 起{state}（{age}）</translation>
    </message>
    <message>
        <source>After XyClaw quits, a background guard keeps watching them: it releases idle clusters and enforces their budgets (`xyclaw guard status` shows it). Releasing stops billing; what is only on the nodes' disks is lost.</source>
        <translation>XyClaw 退出后，后台守护进程会继续看着它们：释放空闲的集群并执行预算（`xyclaw guard status` 可查看它）。释放会停止计费；只存在节点磁盘上的数据会丢失。</translation>
    </message>
    <message>
        <source>While XyClaw is closed nothing releases idle machines or enforces budgets. Releasing stops billing; what is only on the nodes' disks is lost.</source>
        <translation>XyClaw 关闭期间，没有谁会释放空闲机器或执行预算。释放会停止计费；只存在节点磁盘上的数据会丢失。</translation>
    </message>
    <message>
        <source>XyClaw could not read which clusters are billing</source>
        <translation>XyClaw 无法读取哪些集群在计费</translation>
    </message>
    <message>
        <source>1 cluster keeps billing after XyClaw quits</source>
        <translation>XyClaw 退出后仍有 1 个集群在计费</translation>
    </message>
    <message>
        <source>{n} clusters keep billing after XyClaw quits</source>
        <translation>XyClaw 退出后仍有 {n} 个集群在计费</translation>
    </message>
    <message>
        <source>The simulated cloud keeps running in the background so that its clusters stay up (it bills nothing real); Settings → Simulated cloud stops it.</source>
        <translation>模拟云会在后台继续运行，好让它的集群保持在线（不产生真实费用）；可在“设置 → 模拟云”里停止它。</translation>
    </message>
    <message>
        <source>    job {job} is running on it: releasing stops it</source>
        <translation>    作业 {job} 正在上面运行：释放会停止它</translation>
    </message>
    <message>
        <source>Releasing… XyClaw quits when the provider confirms.</source>
        <translation>正在释放… 提供商确认后 XyClaw 即退出。</translation>
    </message>
    <message>
        <source>{name} — NOT released</source>
        <translation>{name} — 未释放</translation>
    </message>
    <message>
        <source>Nothing was released: the clusters changed after this was shown. Cancel and quit again to see what bills now.</source>
        <translation>什么都没有释放：显示此对话框之后集群有了变化。请取消后再次退出，查看现在计费的集群。</translation>
    </message>
    <message>
        <source>{name} — releasing…</source>
        <translation>{name} — 正在释放…</translation>
    </message>
    <message>
        <source>{name} — released, billing stopped</source>
        <translation>{name} — 已释放，计费已停止</translation>
    </message>
    <message>
        <source>{name} — NOT released: {error}</source>
        <translation>{name} — 未释放：{error}</translation>
    </message>
    <message>
        <source>A release failed; that cluster may still be billing.</source>
        <translation>有一次释放失败；该集群可能仍在计费。</translation>
    </message>
    <message>
        <source>Quit anyway</source>
        <translation>仍然退出</translation>
    </message>
</context>
<context>
    <name>RentDialog</name>
    <message>
        <source>Rent a cluster</source>
        <translation>租用集群</translation>
    </message>
    <message>
        <source>Exactly what to rent. XyClaw quotes the cheapest matching offer with room for it and shows you the price, the estimated total, the budget and the quote's expiry before anything is rented.</source>
        <translation>精确指定要租用的资源。XyClaw 会找出最便宜且有余量的匹配报价，并在租用之前向你展示价格、预计总额、预算以及报价的有效期。</translation>
    </message>
    <message>
        <source>muted</source>
        <translation>muted</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>提供商</translation>
    </message>
    <message>
        <source>rentProvider</source>
        <translation>rentProvider</translation>
    </message>
    <message>
        <source>field-error</source>
        <translation>field-error</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>rentGpu</source>
        <translation>rentGpu</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>rentCount</source>
        <translation>rentCount</translation>
    </message>
    <message>
        <source> GPUs</source>
        <translation> 块 GPU</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>地域</translation>
    </message>
    <message>
        <source>rentRegion</source>
        <translation>rentRegion</translation>
    </message>
    <message>
        <source>Fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>rentFabric</source>
        <translation>rentFabric</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>rentBudget</source>
        <translation>rentBudget</translation>
    </message>
    <message>
        <source>500 or 500 CNY (empty: the default budget)</source>
        <translation>500 或 500 CNY（留空：默认预算）</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>rentName</source>
        <translation>rentName</translation>
    </message>
    <message>
        <source>optional, e.g. llama-ft</source>
        <translation>可选，例如 llama-ft</translation>
    </message>
    <message>
        <source>error</source>
        <translation>error</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Get a quote…</source>
        <translation>获取报价…</translation>
    </message>
    <message>
        <source>primary</source>
        <translation>primary</translation>
    </message>
    <message>
        <source>Any region</source>
        <translation>任意地区</translation>
    </message>
    <message>
        <source>Any fabric</source>
        <translation>任意网络</translation>
    </message>
    <message>
        <source>{value} is not an amount above zero; write a number such as 500 or 500 CNY</source>
        <translation>{value} 不是大于零的金额；请写一个数，例如 500 或 500 CNY</translation>
    </message>
    <message>
        <source>no provider is set up to rent from</source>
        <translation>还没有可以租用的供应商</translation>
    </message>
</context>
<context>
    <name>RentFlow</name>
    <message>
        <source>Rent {count} × {gpu} on {fabric} ({where})</source>
        <translation>租用 {count} × {gpu}，网络 {fabric}（{where}）</translation>
    </message>
    <message>
        <source>: plan {plan}, option {option}</source>
        <translation>：方案 {plan}，选项 {option}</translation>
    </message>
    <message>
        <source>quoted for you by {p}</source>
        <translation>由 {p} 为你报价</translation>
    </message>
    <message>
        <source>Approve renting</source>
        <translation>批准租用</translation>
    </message>
    <message>
        <source>Approve and rent</source>
        <translation>批准并租用</translation>
    </message>
    <message>
        <source>Digest</source>
        <translation>摘要</translation>
    </message>
</context>
<context>
    <name>ReplacementApprovals</name>
    <message>
        <source>Rent a replacement for {nodes} of job {job}</source>
        <translation>为作业 {job} 的 {nodes} 租用替换节点</translation>
    </message>
    <message>
        <source>job recovery</source>
        <translation>作业恢复</translation>
    </message>
    <message>
        <source>A node of job {job} is lost</source>
        <translation>作业 {job} 的一个节点已丢失</translation>
    </message>
    <message>
        <source>{nodes} of {cluster} stopped answering. Approve to rent this replacement and resume the job from its newest checkpoint; reject and nothing is rented (the job fails if the node does not come back).</source>
        <translation>{cluster} 的 {nodes} 已不再响应。批准则租用这个替换节点，并从最新的检查点恢复作业；拒绝则不租用任何机器（节点若不恢复，作业将失败）。</translation>
    </message>
    <message>
        <source>Job {job} hangs: replace {nodes}?</source>
        <translation>作业 {job} 卡住了：更换 {nodes}？</translation>
    </message>
    <message>
        <source>its start (it has no checkpoint yet)</source>
        <translation>开头（尚无检查点）</translation>
    </message>
    <message>
        <source>{verdict}. Approve to rent this replacement and resume the job from {checkpoint}; reject and nothing is rented.</source>
        <translation>{verdict}。批准即租用此替换节点并从 {checkpoint} 继续作业；拒绝则不租用任何东西。</translation>
    </message>
    <message>
        <source>Approve and rent</source>
        <translation>批准并租用</translation>
    </message>
</context>
<context>
    <name>ReplayView</name>
    <message>
        <source>GPUs and loss</source>
        <extracomment>Window lengths offered for scrubbing through a run (seconds; 0: the whole run).</extracomment>
        <translation>GPU 与 loss</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>whole run</source>
        <translation>整个运行</translation>
    </message>
    <message>
        <source>Move through the run: the charts show the window ending here</source>
        <translation>在运行中移动：图表显示到这里为止的窗口</translation>
    </message>
    <message>
        <source>Search the log…</source>
        <translation>搜索日志…</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>What</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>As recorded</source>
        <translation>原始记录</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Hours</source>
        <translation>小时</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>Cost at the price</source>
        <translation>按价格计的费用</translation>
    </message>
    <message>
        <source>Currency</source>
        <translation>币种</translation>
    </message>
    <message>
        <source>Input tokens</source>
        <translation>输入 token</translation>
    </message>
    <message>
        <source>Output tokens</source>
        <translation>输出 token</translation>
    </message>
    <message>
        <source>Model cost</source>
        <translation>模型费用</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Its cluster in all</source>
        <translation>所在集群总计</translation>
    </message>
    <message>
        <source>Price per GPU-hour</source>
        <translation>每 GPU 小时价格</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>GPU 小时</translation>
    </message>
    <message>
        <source>Agents' model tokens</source>
        <translation>智能体的模型 token</translation>
    </message>
    <message>
        <source>Node-hours</source>
        <translation>节点小时</translation>
    </message>
    <message>
        <source>Model tokens spent by the agents on this cluster</source>
        <translation>智能体在这个集群上花费的模型 token</translation>
    </message>
    <message>
        <source>No GPU samples were kept for this time (raw samples and rollups are past their retention, or telemetry was off).</source>
        <translation>这段时间没有保留 GPU 采样（原始采样和汇总已超过保留期，或者当时没有开启遥测）。</translation>
    </message>
    <message>
        <source>No loss or throughput was recorded for this run.</source>
        <translation>这次运行没有记录 loss 或吞吐量。</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Throughput (tokens/s)</source>
        <translation>吞吐量（token/秒）</translation>
    </message>
    <message>
        <source>Throughput (thousand tokens/s)</source>
        <translation>吞吐量（千 token/秒）</translation>
    </message>
    <message>
        <source>Throughput (million tokens/s)</source>
        <translation>吞吐量（百万 token/秒）</translation>
    </message>
    <message>
        <source>GPU utilization</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>显存占用</translation>
    </message>
    <message>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Network (per node, in + out)</source>
        <translation>网络（每节点，收 + 发）</translation>
    </message>
    <message>
        <source>utilization %</source>
        <translation>利用率 %</translation>
    </message>
    <message>
        <source>Job #{id} {name}: {state}</source>
        <translation>作业 #{id} {name}：{state}</translation>
    </message>
    <message>
        <source>Cluster #{id} {name}: {state}</source>
        <translation>集群 #{id} {name}：{state}</translation>
    </message>
    <message>
        <source>{nodes} x {per} {gpu} from {provider}</source>
        <translation>{nodes} × {per} {gpu}，来自 {provider}</translation>
    </message>
    <message>
        <source>no cluster</source>
        <translation>没有集群</translation>
    </message>
    <message>
        <source>on {cluster}</source>
        <translation>运行于 {cluster}</translation>
    </message>
    <message>
        <source>Drawn from one-minute rollups: the full-rate samples are past their retention.</source>
        <translation>根据一分钟汇总绘制：全速采样已超过保留期。</translation>
    </message>
    <message>
        <source>No GPU samples were kept for this run.</source>
        <translation>这次运行没有保留 GPU 采样。</translation>
    </message>
    <message>
        <source>Over this run: GPU utilization {util}% (nvidia-smi); SM active {sm}%, tensor pipe {tensor}%, DRAM {dram}% (DCGM)</source>
        <translation>本次运行期间：GPU 利用率 {util}%（nvidia-smi）；SM 活跃 {sm}%，张量管线 {tensor}%，显存带宽 {dram}%（DCGM）</translation>
    </message>
    <message>
        <source>all nodes</source>
        <translation>所有节点</translation>
    </message>
    <message>
        <source>all attempts</source>
        <translation>所有尝试</translation>
    </message>
    <message>
        <source>attempt {n}</source>
        <translation>第 {n} 次尝试</translation>
    </message>
    <message>
        <source>clusters have no log of their own</source>
        <translation>集群本身没有日志</translation>
    </message>
    <message>
        <source>{shown} of the last {kept} of {total} lines</source>
        <translation>{total} 行中最后 {kept} 行里的 {shown} 行</translation>
    </message>
    <message>
        <source>{shown} of {total} lines</source>
        <translation>{total} 行中的 {shown} 行</translation>
    </message>
    <message>
        <source>none recorded</source>
        <translation>没有记录</translation>
    </message>
</context>
<context>
    <name>SecretValuesDialog</name>
    <message>
        <source>Secrets for {job}</source>
        <translation>{job} 的密钥</translation>
    </message>
    <message>
        <source>Job {job} takes {names} from this machine's environment, where it is not set. Enter the value to keep it in the keyring for this launch and later ones; it is never stored in the history or the log.</source>
        <translation>作业 {job} 要从本机环境读取 {names}，但本机没有设置。请输入它的值：会保存在钥匙串里，供这次和以后的启动使用，绝不会写进历史记录或日志。</translation>
    </message>
    <message>
        <source>Save and launch</source>
        <translation>保存并启动</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <source>Built-in rules brain (no model, no key)</source>
        <translation>内置规则大脑（无需模型和密钥）</translation>
    </message>
    <message>
        <source>OpenAI</source>
        <translation>OpenAI</translation>
    </message>
    <message>
        <source>DeepSeek</source>
        <translation>DeepSeek</translation>
    </message>
    <message>
        <source>Qwen (DashScope, compatible mode)</source>
        <translation>通义千问（DashScope 兼容模式）</translation>
    </message>
    <message>
        <source>Moonshot (Kimi)</source>
        <translation>Moonshot (Kimi)</translation>
    </message>
    <message>
        <source>Zhipu (GLM)</source>
        <translation>智谱（GLM）</translation>
    </message>
    <message>
        <source>SiliconFlow</source>
        <translation>硅基流动</translation>
    </message>
    <message>
        <source>Ollama on this computer</source>
        <translation>本机上的 Ollama</translation>
    </message>
    <message>
        <source>vLLM server (OpenAI-compatible)</source>
        <translation>vLLM 服务（兼容 OpenAI）</translation>
    </message>
    <message>
        <source>LM Studio on this computer</source>
        <translation>本机上的 LM Studio</translation>
    </message>
    <message>
        <source>Any OpenAI-compatible endpoint</source>
        <translation>任意兼容 OpenAI 的端点</translation>
    </message>
    <message>
        <source>release the cluster</source>
        <translation>释放集群</translation>
    </message>
    <message>
        <source>stop its jobs, keep the cluster</source>
        <translation>停止它的作业，保留集群</translation>
    </message>
    <message>
        <source>only warn</source>
        <translation>只发出警告</translation>
    </message>
    <message>
        <source>like the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>one of {values}</source>
        <extracomment>The money and approval defaults the page edits, in the order shown.</extracomment>
        <translation>以下之一：{values}</translation>
    </message>
    <message>
        <source>at least {n}</source>
        <translation>至少 {n}</translation>
    </message>
    <message>
        <source>at most {n}</source>
        <translation>至多 {n}</translation>
    </message>
    <message>
        <source>a {kind}</source>
        <translation>一个 {kind} 值</translation>
    </message>
    <message>
        <source>No base URL is set.</source>
        <translation>没有设置基础 URL。</translation>
    </message>
    <message>
        <source>Enter the API's address, e.g. http://127.0.0.1:8000/v1.</source>
        <translation>请输入 API 的地址，例如 http://127.0.0.1:8000/v1。</translation>
    </message>
    <message>
        <source>{url} is not a web address.</source>
        <translation>{url} 不是网址。</translation>
    </message>
    <message>
        <source>It starts with http:// or https://.</source>
        <translation>网址以 http:// 或 https:// 开头。</translation>
    </message>
    <message>
        <source>The name {host} does not resolve.</source>
        <translation>无法解析名称 {host}。</translation>
    </message>
    <message>
        <source>Check the spelling, and that this computer is online.</source>
        <translation>请检查拼写，并确认本机已联网。</translation>
    </message>
    <message>
        <source>Nothing answers at {host}:{port}: the connection was refused.</source>
        <translation>{host}:{port} 没有响应：连接被拒绝。</translation>
    </message>
    <message>
        <source>Start the model server, or correct the port in the base URL.</source>
        <translation>请启动模型服务，或改正基础 URL 中的端口。</translation>
    </message>
    <message>
        <source>{host}:{port} gave no answer within {s} s.</source>
        <translation>{host}:{port} 在 {s} 秒内没有响应。</translation>
    </message>
    <message>
        <source>Check that the server is up; a proxy or firewall may hold the request.</source>
        <translation>请确认服务器在运行；代理或防火墙可能拦住了请求。</translation>
    </message>
    <message>
        <source>Talking to {host}:{port} failed.</source>
        <translation>与 {host}:{port} 通信失败。</translation>
    </message>
    <message>
        <source>Check the base URL: http and https are not interchangeable.</source>
        <translation>请检查基础 URL：http 和 https 不能混用。</translation>
    </message>
    <message>
        <source>{url} refused the API key (HTTP {status}).</source>
        <translation>{url} 拒绝了这个 API 密钥（HTTP {status}）。</translation>
    </message>
    <message>
        <source>Check the key: a copied space or an expired key is the usual cause.</source>
        <translation>请检查密钥：常见原因是复制时多了空格或密钥已过期。</translation>
    </message>
    <message>
        <source>{url} wants an API key (HTTP {status}).</source>
        <translation>{url} 需要 API 密钥（HTTP {status}）。</translation>
    </message>
    <message>
        <source>Paste the key the service gave you and press Test again.</source>
        <translation>请粘贴服务商给你的密钥，再按一次“测试”。</translation>
    </message>
    <message>
        <source>{url} does not exist (HTTP 404): this is not the API's base URL.</source>
        <translation>{url} 不存在（HTTP 404）：这不是 API 的基础 URL。</translation>
    </message>
    <message>
        <source>OpenAI-compatible APIs usually end in /v1.</source>
        <translation>兼容 OpenAI 的 API 通常以 /v1 结尾。</translation>
    </message>
    <message>
        <source>{url} answered HTTP {status}: {said}</source>
        <translation>{url} 返回 HTTP {status}：{said}</translation>
    </message>
    <message>
        <source>The server's own words are above; try again later.</source>
        <translation>上面是服务器自己的说明；请稍后再试。</translation>
    </message>
    <message>
        <source>{url} answered, but not with JSON: it is not an OpenAI-compatible API.</source>
        <translation>{url} 有响应，但不是 JSON：这不是兼容 OpenAI 的 API。</translation>
    </message>
    <message>
        <source>Check the base URL: a web page answered instead of the API.</source>
        <translation>请检查基础 URL：响应的是网页而不是 API。</translation>
    </message>
    <message>
        <source>{url} answered without a model list: it is not an OpenAI-compatible API.</source>
        <translation>{url} 的响应里没有模型列表：这不是兼容 OpenAI 的 API。</translation>
    </message>
    <message>
        <source>Check the base URL: it is the API's, ending in /v1 for most servers.</source>
        <translation>请检查基础 URL：应是 API 的地址，多数服务以 /v1 结尾。</translation>
    </message>
    <message>
        <source>You did not trust the host key of {host}, so XyClaw did not log in.</source>
        <translation>你没有信任 {host} 的主机密钥，所以 XyClaw 没有登录。</translation>
    </message>
    <message>
        <source>Press Test again and compare the fingerprint with the machine's.</source>
        <translation>请再按一次“测试”，并把指纹与机器上的核对。</translation>
    </message>
    <message>
        <source>The host key of {host} has CHANGED: the connection was refused.</source>
        <translation>{host} 的主机密钥已经改变：连接被拒绝。</translation>
    </message>
    <message>
        <source>Someone may be intercepting the connection, or the machine was re-installed; check with its owner before removing the old key.</source>
        <translation>可能有人在拦截连接，或者机器被重装了；删除旧密钥之前请先与机器的管理员核实。</translation>
    </message>
    <message>
        <source>{host} refused every key XyClaw offered.</source>
        <translation>{host} 拒绝了 XyClaw 提供的所有密钥。</translation>
    </message>
    <message>
        <source>Add XyClaw's public key or yours to the host's ~/.ssh/authorized_keys.</source>
        <translation>请把 XyClaw 的公钥或你的公钥加入该主机的 ~/.ssh/authorized_keys。</translation>
    </message>
    <message>
        <source>{host} did not answer in time.</source>
        <translation>{host} 没有及时响应。</translation>
    </message>
    <message>
        <source>Check that it is on and reachable from here.</source>
        <translation>请确认它已开机，并且从这里可以访问。</translation>
    </message>
    <message>
        <source>Cannot connect to {host}.</source>
        <translation>无法连接到 {host}。</translation>
    </message>
    <message>
        <source>Check the name, the port and that its SSH server runs.</source>
        <translation>请检查名称、端口，以及它的 SSH 服务是否在运行。</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Own hosts</source>
        <translation>自有主机</translation>
    </message>
    <message>
        <source>Simulated cloud</source>
        <translation>模拟云</translation>
    </message>
    <message>
        <source>Money and approvals</source>
        <translation>费用与审批</translation>
    </message>
    <message>
        <source>Language and theme</source>
        <translation>语言与主题</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>The agents think with the built-in rules, or with a model behind an OpenAI-compatible API. Test asks the endpoint for its models.</source>
        <translation>智能体用内置规则思考，或者使用兼容 OpenAI 的 API 背后的模型。“测试”会向端点查询它提供的模型。</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>Ask the endpoint which models it serves</source>
        <translation>查询端点提供哪些模型</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Forget the key</source>
        <translation>删除密钥</translation>
    </message>
    <message>
        <source>Machines of your own, listed in {path}. Test connects, asks you to trust an unknown host key, and lists the GPUs it finds.</source>
        <translation>你自己的机器，列在 {path} 中。“测试”会连接主机，对未知的主机密钥先征求你的信任，并列出找到的 GPU。</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>Fabric</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Price per GPU-hour</source>
        <translation>每 GPU 小时价格</translation>
    </message>
    <message>
        <source>Index</source>
        <translation>序号</translation>
    </message>
    <message>
        <source>Memory (MiB)</source>
        <translation>显存（MiB）</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新读取</translation>
    </message>
    <message>
        <source>No hosts yet. Add one to {path}, for example:
[[host]]
name = "gpu1"  # an ssh alias, or user@host:port
gpu = "A100-80G"
gpus = 8</source>
        <translation>还没有主机。请在 {path} 中添加，例如：
[[host]]
name = "gpu1"  # ssh 别名，或 user@host:port
gpu = "A100-80G"
gpus = 8</translation>
    </message>
    <message>
        <source>A GPU cloud on this computer for trying XyClaw without spending: it rents simulated nodes that answer SSH, nvidia-smi and training commands.</source>
        <translation>运行在本机上的 GPU 云，用来免费试用 XyClaw：它出租模拟节点，这些节点能响应 SSH、nvidia-smi 和训练命令。</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Seconds to bring up a node</source>
        <translation>开通一个节点所需秒数</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>The speed applies the next time the cloud starts.</source>
        <translation>速度在下次启动模拟云时生效。</translation>
    </message>
    <message>
        <source>Budgets, idle release and approvals</source>
        <translation>预算、空闲释放与审批</translation>
    </message>
    <message>
        <source>Budget per cluster when none is given (0: none)</source>
        <translation>未指定时每个集群的预算（0：不设）</translation>
    </message>
    <message>
        <source>Warn at this share of a budget</source>
        <translation>花到预算的这个比例时警告</translation>
    </message>
    <message>
        <source>When a budget is spent</source>
        <translation>预算花完时</translation>
    </message>
    <message>
        <source>Release idle clusters after (0: never)</source>
        <translation>空闲集群在此时长后释放（0：从不）</translation>
    </message>
    <message>
        <source>A GPU counts as idle below</source>
        <translation>GPU 利用率低于此值即视为空闲</translation>
    </message>
    <message>
        <source>Rent without asking up to (0: always ask)</source>
        <translation>不超过此金额的租用无需询问（0：总是询问）</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Allowed: {rule}</source>
        <translation>允许的值：{rule}</translation>
    </message>
    <message>
        <source>Remembered allowances</source>
        <translation>已记住的许可</translation>
    </message>
    <message>
        <source>Commands you allowed on a cluster for the rest of a conversation ("remember" on an approval card). Renting and releasing always ask.</source>
        <translation>你在某个对话余下时间里允许在某集群上执行的命令（审批卡上的“记住”）。租用和释放总会询问。</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Since</source>
        <translation>开始于</translation>
    </message>
    <message>
        <source>Revoke</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Closing the window keeps XyClaw running in the tray</source>
        <translation>关闭窗口时 XyClaw 继续在托盘中运行</translation>
    </message>
    <message>
        <source>Keyboard</source>
        <translation>键盘</translation>
    </message>
    <message>
        <source>Ctrl+1 … Ctrl+7: the pages · Ctrl+N: new chat · Ctrl+F: search on the page · Ctrl+Enter / Ctrl+Backspace: approve / reject the focused approval card · Enter: replay the selected run · Ctrl+E: export · F5: refresh</source>
        <translation>Ctrl+1 … Ctrl+7：切换页面 · Ctrl+N：新对话 · Ctrl+F：在页面内搜索 · Ctrl+Enter / Ctrl+Backspace：批准 / 拒绝当前审批卡 · Enter：回放所选运行 · Ctrl+E：导出 · F5：刷新</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>History database</source>
        <translation>历史数据库</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Schema version</source>
        <translation>结构版本</translation>
    </message>
    <message>
        <source>Kept</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>Back up…</source>
        <translation>备份…</translation>
    </message>
    <message>
        <source>Copy the history to a file while XyClaw keeps running</source>
        <translation>在 XyClaw 继续运行的同时把历史复制到一个文件</translation>
    </message>
    <message>
        <source>Saved to {path}.</source>
        <translation>已保存到 {path}。</translation>
    </message>
    <message>
        <source>Not saved: {key} must be {rule}.</source>
        <translation>未保存：{key} 必须是{rule}。</translation>
    </message>
    <message>
        <source>Saved to config.toml with the same checks as the file; API keys go to the system keyring, or without one to a file only you can read, never to config.toml.</source>
        <translation>保存到 config.toml，检查与手改文件时相同；API 密钥存入系统密钥环，没有密钥环时存入只有你能读的文件，绝不写入 config.toml。</translation>
    </message>
    <message>
        <source>e.g. http://127.0.0.1:8000/v1</source>
        <translation>例如 http://127.0.0.1:8000/v1</translation>
    </message>
    <message>
        <source>the name the server serves</source>
        <translation>服务器提供的模型名</translation>
    </message>
    <message>
        <source>the system keyring</source>
        <translation>系统密钥环</translation>
    </message>
    <message>
        <source>a file only you can read ({path})</source>
        <translation>只有你能读取的文件（{path}）</translation>
    </message>
    <message>
        <source>Keys are kept in {place}, never in config.toml or the history.</source>
        <translation>密钥保存在{place}中，绝不会写入 config.toml 或历史记录。</translation>
    </message>
    <message>
        <source>paste the key (kept in the keyring)</source>
        <translation>粘贴密钥（保存在密钥环中）</translation>
    </message>
    <message>
        <source>a key is stored; type a new one to replace it</source>
        <translation>已保存一个密钥；输入新的即可替换</translation>
    </message>
    <message>
        <source>The rules brain needs no endpoint.</source>
        <translation>规则大脑不需要端点。</translation>
    </message>
    <message>
        <source>Asking {url}…</source>
        <translation>正在询问 {url}…</translation>
    </message>
    <message>
        <source>{url} answers, but lists no models.</source>
        <translation>{url} 有响应，但没有列出任何模型。</translation>
    </message>
    <message>
        <source>{url} answers and serves {n} models: {names}</source>
        <translation>{url} 有响应，提供 {n} 个模型：{names}</translation>
    </message>
    <message>
        <source>The model {model} is not among them.</source>
        <translation>其中没有模型 {model}。</translation>
    </message>
    <message>
        <source>Saved. The agents use it from their next start.</source>
        <translation>已保存。智能体下次启动时生效。</translation>
    </message>
    <message>
        <source>The key is in the keyring.</source>
        <translation>密钥已存入密钥环。</translation>
    </message>
    <message>
        <source>The key was removed.</source>
        <translation>密钥已删除。</translation>
    </message>
    <message>
        <source>Connecting to {host}…</source>
        <translation>正在连接 {host}…</translation>
    </message>
    <message>
        <source>{host} answered in {s}: {n} GPUs.</source>
        <translation>{host} 在 {s} 内响应：{n} 块 GPU。</translation>
    </message>
    <message>
        <source>Its key {fp} is now trusted.</source>
        <translation>它的密钥 {fp} 现已被信任。</translation>
    </message>
    <message>
        <source>hosts.toml says {n}: correct it there.</source>
        <translation>hosts.toml 中写的是 {n}：请在那里改正。</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Running at {url} (process {pid}).</source>
        <translation>正在 {url} 运行（进程 {pid}）。</translation>
    </message>
    <message>
        <source>Not running. Renting from it starts it, or press Start.</source>
        <translation>没有运行。从它租用时会自动启动，也可以按“启动”。</translation>
    </message>
    <message>
        <source>Nothing was saved: correct the fields in red.</source>
        <translation>什么也没保存：请改正红色的字段。</translation>
    </message>
    <message>
        <source>Saved to {path}. XyClaw uses them from its next start.</source>
        <translation>已保存到 {path}。XyClaw 下次启动时生效。</translation>
    </message>
    <message>
        <source>The agents are starting; their allowances show then.</source>
        <translation>智能体正在启动；启动后会显示它们的许可。</translation>
    </message>
    <message>
        <source>{n} in force.</source>
        <translation>{n} 项有效。</translation>
    </message>
    <message>
        <source>None in force.</source>
        <translation>没有有效的许可。</translation>
    </message>
    <message>
        <source>{clusters} clusters, {jobs} jobs, {events} events, {chats} conversations</source>
        <translation>{clusters} 个集群，{jobs} 个作业，{events} 个事件，{chats} 个对话</translation>
    </message>
    <message>
        <source>Backed up to {path} ({size} MB).</source>
        <translation>已备份到 {path}（{size} MB）。</translation>
    </message>
    <message>
        <source>Back up the history</source>
        <translation>备份历史</translation>
    </message>
    <message>
        <source>SQLite database (*.db)</source>
        <translation>SQLite 数据库 (*.db)</translation>
    </message>
</context>
<context>
    <name>SetupStatus</name>
    <message>
        <source>the simulated cloud</source>
        <translation>模拟云</translation>
    </message>
    <message>
        <source>{n} machine(s) of your own</source>
        <translation>{n} 台你自己的机器</translation>
    </message>
    <message>
        <source>a machine of your own over SSH (Own hosts tab)</source>
        <translation>通过 SSH 连接你自己的机器（“自有主机”页）</translation>
    </message>
    <message>
        <source>the built-in rules agent</source>
        <translation>内置规则智能体</translation>
    </message>
    <message>
        <source>a model and its key for free-form requests (Model tab)</source>
        <translation>用于自由提问的模型及其密钥（“模型”页）</translation>
    </message>
    <message>
        <source>the model preset {preset}</source>
        <translation>模型预设 {preset}</translation>
    </message>
    <message>
        <source>keys for {names}</source>
        <translation>{names} 的密钥</translation>
    </message>
    <message>
        <source>a real cloud: store a Lambda Cloud or AutoDL key from a terminal (`xyclaw secrets set lambda_api_key` or `autodl_token`)</source>
        <translation>真实的云：用 xyclaw 命令行存入 Lambda 或 AutoDL 的密钥</translation>
    </message>
    <message>
        <source>Set up: {done}.</source>
        <translation>已配置：{done}。</translation>
    </message>
    <message>
        <source>Next, when you want them: {todo}.</source>
        <translation>接下来可按需配置：{todo}。</translation>
    </message>
</context>
<context>
    <name>SpecErrorDialog</name>
    <message>
        <source>The job spec has an error</source>
        <translation>作业规格有错误</translation>
    </message>
    <message>
        <source>Line {line} is marked below.</source>
        <translation>第 {line} 行已在下方标出。</translation>
    </message>
    <message>
        <source>The error is about the file as a whole.</source>
        <translation>错误与整个文件有关。</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>unreachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>not set up</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>Nothing billing</source>
        <translation>没有计费</translation>
    </message>
    <message>
        <source>{rates} on 1 cluster</source>
        <translation>{rates}，1 个集群</translation>
    </message>
    <message>
        <source>{rates} on {n} clusters</source>
        <translation>{rates}，{n} 个集群</translation>
    </message>
    <message>
        <source>(simulated, not charged)</source>
        <translation>（模拟，不收费）</translation>
    </message>
    <message>
        <source>Today {spent}</source>
        <translation>今天 {spent}</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>Spend rate now, over every live cluster</source>
        <translation>当前所有在用集群的花费速率</translation>
    </message>
    <message>
        <source>Spent today on clusters (local day)</source>
        <translation>今天在集群上的花费（本地日期）</translation>
    </message>
    <message>
        <source>Model tokens and cost today</source>
        <translation>今天的模型 token 与费用</translation>
    </message>
    <message>
        <source>The agents' brain</source>
        <translation>智能体的大脑</translation>
    </message>
    <message>
        <source>Providers' connection state</source>
        <translation>提供商的连接状态</translation>
    </message>
    <message>
        <source>Show or hide the operations panel</source>
        <translation>显示或隐藏操作面板</translation>
    </message>
    <message>
        <source>Status unavailable</source>
        <translation>状态不可用</translation>
    </message>
    <message>
        <source>Billing now: {clusters}</source>
        <translation>正在计费：{clusters}</translation>
    </message>
    <message>
        <source>No node is billing now</source>
        <translation>目前没有节点在计费</translation>
    </message>
    <message>
        <source>LLM {tokens} tokens · {cost}</source>
        <translation>LLM {tokens} token · {cost}</translation>
    </message>
    <message>
        <source>rules</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Brain: {brain}</source>
        <translation>大脑：{brain}</translation>
    </message>
    <message>
        <source>1 operation running</source>
        <translation>1 个操作运行中</translation>
    </message>
    <message>
        <source>{n} operations running</source>
        <translation>{n} 个操作运行中</translation>
    </message>
    <message>
        <source>Operations</source>
        <translation>操作</translation>
    </message>
</context>
<context>
    <name>Tour</name>
    <message>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>The tour asks the planner for a LoRA fine-tune of a 7B model on 8 GPUs with a budget of 2,000 CNY. It compares GPU models, cluster sizes, fabrics and the simulated cloud's regions, and shows the best options with their cost and time. Step 4 runs that fine-tune, shortened to 100 steps.</source>
        <translation>导览请规划代理为 7B 模型在 8 张 GPU 上做 LoRA 微调，预算 2000 元。它比较 GPU 型号、集群规模、网络和模拟云的各个地域，并给出最佳方案及其费用和时间。第 4 步运行这次微调，缩短为 100 步。</translation>
    </message>
    <message>
        <source>Approve and rent</source>
        <translation>批准并租用</translation>
    </message>
    <message>
        <source>The tour asks for option 1. The provisioner shows the exact quote (price per hour, estimated total, budget) and rents nothing until you approve it.</source>
        <translation>导览请求方案 1。资源代理会给出确切报价（每小时价格、预计总价、预算），在你批准之前不会租用任何东西。</translation>
    </message>
    <message>
        <source>Tune</source>
        <translation>调优</translation>
    </message>
    <message>
        <source>The tuner measures the GPUs' links with nccl-tests and keeps or changes the NCCL settings. Running commands on the nodes needs your approval too.</source>
        <translation>调优代理用 nccl-tests 测量 GPU 之间的链路，保留或修改 NCCL 设置。在节点上运行命令同样需要你的批准。</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动作业</translation>
    </message>
    <message>
        <source>The operator launches the lora7b-1node sample (resources/examples/lora7b-1node.yaml) once you approve: the 7B LoRA fine-tune on one node, 100 steps. On the simulated cloud it needs no download and no token (HF_TOKEN); on real GPUs it downloads the model, about 15 GB.</source>
        <translation>你批准后，运维代理会启动 lora7b-1node 示例（resources/examples/lora7b-1node.yaml）：在一个节点上做 7B LoRA 微调，100 步。在模拟云上无需下载，也无需令牌（HF_TOKEN）；在真实 GPU 上会下载模型，约 15 GB。</translation>
    </message>
    <message>
        <source>Watch</source>
        <translation>观察</translation>
    </message>
    <message>
        <source>The Monitor page draws every GPU live while the job trains; the Jobs page has its progress and logs. The tour goes on when the job has finished.</source>
        <translation>作业训练时，监控页实时显示每张 GPU；作业页有进度和日志。作业结束后导览继续。</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>释放</translation>
    </message>
    <message>
        <source>Releasing the cluster stops its billing. It destroys machines, so the provisioner asks first.</source>
        <translation>释放集群会停止计费。这会销毁机器，所以资源代理会先征求你的同意。</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Everything the tour did is in the local history: the cluster, the job, its charts and what it cost, readable offline. That was the tour. Next: add your own SSH host (Settings, Hosts) or a model key (Settings, Model); `xyclaw doctor` tells what is set up.</source>
        <translation>导览做过的一切都在本地历史里：集群、作业、图表和花费，离线也能查看。导览到此结束。接下来：添加你自己的 SSH 主机（设置 → 主机）或模型密钥（设置 → 模型）；`xyclaw doctor` 会告诉你已配置了什么。</translation>
    </message>
    <message>
        <source>Starting the tour…</source>
        <translation>正在开始导览…</translation>
    </message>
    <message>
        <source>Job {job} is starting…</source>
        <translation>作业 {job} 正在启动…</translation>
    </message>
    <message>
        <source>The tour is over.</source>
        <translation>导览结束。</translation>
    </message>
    <message>
        <source>Finish</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>The agents are busy; try again in a moment.</source>
        <translation>智能体正忙，请稍后再试。</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>The agents are working…</source>
        <translation>智能体正在处理…</translation>
    </message>
    <message>
        <source>Waiting for you: read the card in the chat and click Approve (or Reject).</source>
        <translation>等待你操作：阅读对话中的卡片，然后点击“批准”（或“拒绝”）。</translation>
    </message>
    <message>
        <source>The agents did not do this step (see the chat).</source>
        <translation>智能体没有完成这一步（见对话）。</translation>
    </message>
    <message>
        <source>Not done ({why}); nothing else happens until you go on.</source>
        <translation>未完成（{why}）；在你继续之前不会做任何其他事。</translation>
    </message>
    <message>
        <source>No cluster came up.</source>
        <translation>没有集群启动起来。</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Job {job} ended: {state}.</source>
        <translation>作业 {job} 已结束：{state}。</translation>
    </message>
    <message>
        <source>Job {job} is {state}…</source>
        <translation>作业 {job}：{state}…</translation>
    </message>
</context>
<context>
    <name>TourPanel</name>
    <message>
        <source>Tour, step {n} of {total}: {title}</source>
        <extracomment>the Next button's words on the tour's steps (the Tour says them; lupdate reads them there)</extracomment>
        <translation>导览，第 {n} 步（共 {total} 步）：{title}</translation>
    </message>
    <message>
        <source>Skip tour</source>
        <translation>跳过导览</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>Show XyClaw</source>
        <translation>显示 XyClaw</translation>
    </message>
    <message>
        <source>Recent notifications</source>
        <translation>最近的通知</translation>
    </message>
    <message>
        <source>Quit XyClaw…</source>
        <translation>退出 XyClaw…</translation>
    </message>
    <message>
        <source>Approval waiting</source>
        <translation>等待批准</translation>
    </message>
    <message>
        <source>{title} (in “{conversation}”)</source>
        <translation>{title}（在“{conversation}”中）</translation>
    </message>
    <message>
        <source>Alert ({severity})</source>
        <translation>告警（{severity}）</translation>
    </message>
    <message>
        <source>Budget reached</source>
        <translation>已达预算</translation>
    </message>
    <message>
        <source>{name} spent {spent} of {budget}; released</source>
        <translation>{name} 花费 {spent}（预算 {budget}）；已释放</translation>
    </message>
    <message>
        <source>Budget warning</source>
        <translation>预算提醒</translation>
    </message>
    <message>
        <source>{name} has spent {spent} of {budget}</source>
        <translation>{name} 已花费 {spent}（预算 {budget}）</translation>
    </message>
    <message>
        <source>Job failed</source>
        <translation>作业失败</translation>
    </message>
    <message>
        <source>{name} failed</source>
        <translation>{name} 失败</translation>
    </message>
    <message>
        <source>Job finished</source>
        <translation>作业完成</translation>
    </message>
    <message>
        <source>{name} finished</source>
        <translation>{name} 已完成</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <source>{m} min {s} s</source>
        <translation>{m} 分 {s} 秒</translation>
    </message>
    <message>
        <source>{h} h {m} min</source>
        <translation>{h} 小时 {m} 分</translation>
    </message>
</context>
<context>
    <name>UnlistedApprovals</name>
    <message>
        <source>Forget {name}</source>
        <extracomment>The notices that change what is asked (the guard's pass may run in another process: the timer catches those).</extracomment>
        <translation>忘记 {name}</translation>
    </message>
    <message>
        <source>XyClaw's check of {provider}'s listing</source>
        <translation>XyClaw 对 {provider} 列表的检查</translation>
    </message>
    <message>
        <source>{provider} no longer lists {name}</source>
        <translation>{provider} 的列表中已没有 {name}</translation>
    </message>
    <message>
        <source>XyClaw did not release it and keeps metering it. Check {provider}'s console first: if it still runs there, it still bills. Keep it and XyClaw asks {provider} again every minute.</source>
        <translation>XyClaw 并未释放它，并继续对它计费。请先在 {provider} 的控制台确认：如果它仍在那里运行，就仍在计费。保留它，XyClaw 会每分钟再次询问 {provider}。</translation>
    </message>
    <message>
        <source>Forget it</source>
        <translation>忘记它</translation>
    </message>
    <message>
        <source>Keep it</source>
        <translation>保留它</translation>
    </message>
    <message>
        <source>Kept {name}: it stays metered.</source>
        <translation>已保留 {name}：继续计费。</translation>
    </message>
    <message>
        <source>Forgot {name}: XyClaw no longer meters it.</source>
        <translation>已忘记 {name}：XyClaw 不再对它计费。</translation>
    </message>
</context>
<context>
    <name>WelcomeBox</name>
    <message>
        <source>Nothing to set up first. With no account and no model key, XyClaw rents from its built-in simulated GPU cloud and answers with its built-in rules agent: every step is real, nothing is billed. Add your own SSH hosts, a provider or an OpenAI-compatible model in Settings when you are ready.</source>
        <translation>无需任何准备。没有账号、没有模型密钥时，XyClaw 从内置的模拟 GPU 云租用机器，由内置的规则智能体回答：每一步都是真实执行的，但不产生任何费用。准备好后，可在设置中添加你自己的 SSH 主机、云服务商或兼容 OpenAI 的模型。</translation>
    </message>
    <message>
        <source>Take the tour</source>
        <translation>开始导览</translation>
    </message>
    <message>
        <source>Plan, rent, tune, launch, watch, release and look back, on the simulated cloud; you click Approve at each step that spends, runs or releases.</source>
        <translation>在模拟云上走一遍规划、租用、调优、启动、观察、释放和回顾；每一步涉及花钱、运行命令或释放机器时，都由你点击“批准”。</translation>
    </message>
    <message>
        <source>Skip</source>
        <translation>跳过</translation>
    </message>
</context>
</TS>