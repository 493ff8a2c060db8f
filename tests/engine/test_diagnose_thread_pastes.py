"""Issue 30, from a second run over real outputs pasted in public threads (session 8: 91 real
outputs, 77 read as expected before these fixes, 88 after): the shapes it missed, written
here with other figures. Each test failed on the code before its fix."""

from __future__ import annotations

from xyclaw.engine.diagnose import diagnose_text


def _words(text: str) -> str:
    found = diagnose_text(text)
    return " | ".join([str(s) for s in found.summary] + [str(p.what) for p in found.points])


def test_nccl_tests_printed_without_hash_marks_is_read_without_complaining_of_lost_marks() -> None:
    text = "\n".join(
        [
            " nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 "
            "iters: 20 agg iters: 1 validation: 1 graph: 0",
            " Using devices",
            "  Rank  0 Group  0 Pid   4411 on worker-a device  0 [0x00] NVIDIA L40S",
            "  Rank  1 Group  0 Pid   4412 on worker-a device  1 [0x00] NVIDIA L40S",
            " " * 46 + "out-of-place" + " " * 23 + "in-place",
            "       size         count      type   redop    root     time   algbw   busbw "
            "#wrong     time   algbw   busbw #wrong",
            "     1048576        262144     float     sum      -1    61.20   17.13   17.13      0"
            "    60.90   17.22   17.22      0",
        ]
    )
    found = diagnose_text(text)
    assert found.kind == "nccl-tests"
    words = _words(text)
    assert "2 rank(s) on 1 node(s)" in words
    assert "17.2" in words
    assert "lost its '#'" not in words


def test_nccl_tests_rows_pasted_without_any_header_are_read() -> None:
    rows = [
        "     2097152        524288     float     sum      -1    44.10   47.55   83.21      0"
        "    43.80   47.88   83.79      0",
        "     4194304       1048576     float     sum      -1    60.02   69.88  122.29      0"
        "    59.71   70.24  122.92      0",
    ]
    found = diagnose_text("\n".join(rows))
    assert found.kind == "nccl-tests"
    assert "122.9" in _words("\n".join(rows))


def test_driver_messages_without_an_xid_are_answered_not_refused() -> None:
    text = (
        "[   12.001] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  565.57.01\n"
        "[  301.552] NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ rmapi.c:417\n"
    )
    found = diagnose_text(text)
    assert found.kind == "dmesg"
    assert found.data == {"xids": []}
    assert "none of them an XID" in _words(text)


def test_a_gpu_fallen_off_the_bus_in_a_three_line_message_names_its_address() -> None:
    text = (
        "[ 902.118] NVRM: The NVIDIA GPU 0000:4c:00.0\n"
        "           NVRM: (PCI ID: 10de:2330) installed in this system has\n"
        "           NVRM: fallen off the bus and is not responding to commands.\n"
    )
    found = diagnose_text(text)
    assert [x["code"] for x in found.data["xids"]] == [79]
    assert found.data["xids"][0]["pci"] == "0000:4c:00"
    assert "0000:4c:00" in _words(text)


def test_xid_summary_names_the_gpus_it_happened_on() -> None:
    text = "\n".join(
        f"kernel: NVRM: Xid (PCI:0000:{bus}:00): 45, pid=77{i}, name=python3, Ch 0000000{i}"
        for i, bus in enumerate(("1a", "3c", "1a"))
    )
    assert "on 2 GPU(s): 0000:1a:00, 0000:3c:00" in _words(text)


def test_ibstat_after_a_shell_trace_and_other_lines_is_read() -> None:
    text = (
        "PhysLinkState:...................LinkUp\n"
        "ibwarn: [4242] umad_init: umad_init\n"
        "+ ibstat\n"
        "CA 'mlx5_3'\n"
        "\tCA type: MT4129\n"
        "\tNumber of ports: 1\n"
        "\tPort 1:\n"
        "\t\tState: Active\n"
        "\t\tPhysical state: LinkUp\n"
        "\t\tRate: 400\n"
        "\t\tLink layer: InfiniBand\n"
    )
    found = diagnose_text(text)
    assert found.kind == "ibstat"
    assert "1 HCA(s), 1 port(s): 1 active" in _words(text)


def test_a_topology_matrix_cut_after_its_first_rows_is_read_and_said_cut() -> None:
    gpus = [f"GPU{i}" for i in range(4)]
    header = "\t" + "\t".join(gpus) + "\tNIC0\tCPU Affinity"
    rows = []
    for i in range(2):  # the paste stops after GPU1's row
        cells = ["X" if j == i else "NV18" for j in range(4)] + ["PIX", "0-31"]
        rows.append(f"GPU{i}\t" + "\t".join(cells))
    text = "\n".join([header, *rows])
    found = diagnose_text(text)
    assert found.kind == "nvidia-smi topo -m"
    words = _words(text)
    assert "4 GPU(s)" in words
    assert "2 of 4 GPU rows" in words


def test_nccl_rings_over_net_socket_are_said_to_move_data_over_tcp() -> None:
    text = (
        "node-b:901:955 [3] NCCL INFO Channel 00/0 : 3[3] -> 2[2] via P2P/IPC\n"
        "node-b:904:952 [7] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/Socket/1\n"
    )
    found = diagnose_text(text)
    assert found.data.get("events") is not None
    assert "socket" in _words(text).lower()


def test_deepspeed_step_lines_give_the_last_step_when_loss_lines_follow() -> None:
    text = (
        "{'loss': 3.91, 'learning_rate': 0.0002, 'epoch': 0.1}\n"
        "[2024-05-02 10:11:12,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=700, "
        "skipped=3, lr=[0.0002], mom=[(0.9, 0.95)]\n"
        "{'loss': 3.55, 'learning_rate': 0.0002, 'epoch': 0.12}\n"
    )
    assert "last step 700, loss 3.55" in _words(text)


def test_a_deepspeed_engine_start_is_read_as_a_training_log() -> None:
    text = (
        "[2024-05-02 10:00:01,001] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Final "
        "Optimizer = adamw\n"
        "[2024-05-02 10:00:01,002] [INFO] [logging.py:96:log_dist] [Rank 0] step=0, skipped=0, "
        "lr=[1e-05], mom=[(0.9, 0.999)]\n"
    )
    assert diagnose_text(text).kind == "training log"
