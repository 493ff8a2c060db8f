"""A launch on the simulated cloud that fails and is retried: every step it reports, every
event it records, each attempt's end and the job's error carry their key and figures, so a
Chinese window words them all (no English left but names and the spec's own words); the
English text is what it always was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, write_spec
from tests.support.zh_words import WORD, english_words
from xyclaw.engine import Engine
from xyclaw.events import OperationProgress
from xyclaw.records.jobs import JobState
from xyclaw.store.event_log import said_of
from xyclaw.wording import Said


def test_a_failed_and_retried_launch_is_worded_in_chinese_throughout(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2)
    spec = write_spec(
        tmp_path,
        "name: zh-fail\nworkdir: work\nsetup: echo ready\nrun: cat train.py; exit 3\n"
        "recovery: {max_restarts: 1, on: [exit_nonzero]}\n",
        script="print('step 1')\n",
    )
    heard: list[OperationProgress] = []
    engine.subscribe(OperationProgress, heard.append)
    job = engine.launch(spec, cluster=cluster.name).result(60)
    done = finished(engine, job.id)
    assert done.state is JobState.FAILED and done.attempt == 2

    names = {n.spec.hostname for n in cluster.nodes} | {cluster.name, "zh-fail", "train.py"}
    # the spec's field names and values are its own words, as in the file
    data = {"checkpoint_dir", "recovery", "on", "exit_nonzero", "max_runtime"}
    for name in names:
        data.update(WORD.findall(name))

    def chinese(what: Said | None, english: str, where: str) -> str:
        assert what is not None, f"{where}: {english!r} has no key and figures"
        assert str(what) == english, where  # the English is the stored text
        text = what.in_language("zh")
        assert not english_words(text, data), f"{where}: {text!r}"
        return text

    # the launch's steps, as the operations panel shows them
    steps = [e for e in heard if e.title_said is not None and "zh-fail" in e.title]
    assert any("file(s) were new or changed" in e.message for e in steps), [
        e.message for e in steps
    ]
    for e in steps:
        chinese(e.said, e.message, "a launch step")

    # the attempts and the job's error
    first, second = sorted(done.attempts, key=lambda a: a.attempt)
    assert first.message is not None and first.message.startswith("exit code 3 on ")
    assert "上的进程退出码为 3" in chinese(first.message_said, first.message, "attempt 1")
    assert second.message is not None
    chinese(second.message_said, second.message, "attempt 2")
    assert done.error is not None and "no restarts left (1 allowed)" in done.error
    assert "重启次数已用完（最多 1 次）" in chinese(done.error_said, done.error, "the job's error")

    # the job's events in the history
    events = [e for e in engine.recent_events(200) if e.get("job_id") == job.id]
    texts = [chinese(said_of(e), str(e["message"]), "an event") for e in events]
    assert any(t.startswith("作业 zh-fail：第 1 次尝试结束（") for t in texts), texts
    assert any(t.startswith("作业 zh-fail 失败：") for t in texts), texts

    # `xyclaw jobs show` says it in the setting's language; in English as it always did
    def show(language: str) -> str:
        env = {**os.environ, "XYCLAW_GUARD_AUTOSTART": "false", "NO_COLOR": "1",
               "XYCLAW_GUI_LANGUAGE": language}  # fmt: skip
        shown = subprocess.run(
            [sys.executable, "-m", "xyclaw.cli.main", "jobs", "show", str(job.id)],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        return shown.stdout

    zh = show("zh_CN")
    assert f"作业 {job.id} zh-fail（训练）：失败，第 2 次尝试" in zh, zh
    assert "  非零退出：" in zh and "重启次数已用完（最多 1 次）" in zh, zh
    assert "  第 1 次尝试：失败 - " in zh and "上的进程退出码为 3（停止：" in zh, zh
    assert "：已退出 退出码 3" in zh, zh
    assert not english_words(zh, data), zh
    en = show("en")
    assert f"job {job.id} zh-fail (train): failed, attempt 2" in en, en
    assert f"  exit_nonzero: {done.error}" in en and "  attempt 1: failed - exit code 3 on " in en
