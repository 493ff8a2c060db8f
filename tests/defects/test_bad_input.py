"""Issue 11, defect 4 and the acceptance list: every command given a malformed hosts.toml or
config.toml (not UTF-8 included) or an out-of-range flag prints one clear message that
names the file, entry or flag and what is allowed, exits 2, and changes no file."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from tests.defects.clirun import Outcome, fingerprint, one_clear_message, xyclaw
from xyclaw.cli.main import build_parser
from xyclaw.paths import AppPaths

GOOD_HOST = '[[host]]\nname = "root@gpubox:2222"\ngpu = "A100-80G"\ngpus = 8\nfabric = "none"\n'

#: name -> (hosts.toml bytes, words the message must hold)
HOSTS: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "host is a number": (b"host = 5\n", ("host", "[[host]]")),
    "fabric typo": (
        GOOD_HOST.replace('"none"', '"warp-drive"').encode(),
        ("fabric", "warp-drive", "ib-hdr-200"),
    ),
    "not UTF-8": (b'[[host]]\nname = "gpu\xffbox"\n', ("UTF-8",)),
    "gpus 8.7": (GOOD_HOST.replace("gpus = 8", "gpus = 8.7").encode(), ("gpus", "8.7")),
    "gpus true": (GOOD_HOST.replace("gpus = 8", "gpus = true").encode(), ("gpus", "true")),
    "gpus 0": (GOOD_HOST.replace("gpus = 8", "gpus = 0").encode(), ("gpus",)),
    "name 5": (GOOD_HOST.replace('"root@gpubox:2222"', "5").encode(), ("name",)),
    "no name": (b'[[host]]\ngpu = "A100-80G"\n', ("name",)),
    "no gpu": (b'[[host]]\nname = "gpubox"\n', ("gpu",)),
    "gpu 5": (GOOD_HOST.replace('"A100-80G"', "5").encode(), ("gpu",)),
    "unknown key": (GOOD_HOST.replace("gpus = 8", "gpu_count = 8").encode(), ("gpu_count",)),
    "price text": (GOOD_HOST.encode() + b'price_per_gpu_hour = "cheap"\n', ("price_per_gpu_hour",)),
    "price negative": (GOOD_HOST.encode() + b"price_per_gpu_hour = -1\n", ("price_per_gpu_hour",)),
    "price inf": (GOOD_HOST.encode() + b"price_per_gpu_hour = inf\n", ("price_per_gpu_hour",)),
    "port out of range": (GOOD_HOST.replace(":2222", ":99999").encode(), ("99999", "port")),
    "duplicate": ((GOOD_HOST + GOOD_HOST).encode(), ("root@gpubox:2222", "twice")),
    "not TOML": (b"[[host]\nname = 1\n", ("TOML",)),
    "entry host 5": (
        GOOD_HOST.replace('"root@gpubox:2222"', '"box"').encode() + b"host = 5\n",
        ("host",),
    ),
    "port without host": (GOOD_HOST.encode() + b"port = 22\n", ("port", "host")),
    "host port text": (
        GOOD_HOST.replace('"root@gpubox:2222"', '"box"').encode()
        + b'host = "10.0.0.5"\nport = "22"\n',
        ("port",),
    ),
}

HOSTS_COMMANDS = (
    ("offers", "--provider", "ssh"),
    ("up", "--provider", "ssh", "--gpu", "A100-80G", "--gpus", "8", "--yes"),
    ("providers",),
    ("hosts", "list"),
    ("hosts", "add", "newbox", "--gpu", "A100-80G"),
    ("hosts", "test", "box"),
    ("hosts", "trust", "box"),
    ("hosts", "forget", "box"),
    ("config", "check"),
)


@pytest.fixture
def used_home(xyclaw_home: Path) -> Path:
    """The app's home as a first command leaves it (database, keys, locks)."""
    assert xyclaw("clusters").code == 0
    return xyclaw_home


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _bad_input(outcome: Outcome, *words: str) -> None:
    one_clear_message(outcome)
    assert outcome.code == 2, outcome
    for word in words:
        assert word in outcome.err, (word, outcome.err)


@pytest.mark.parametrize("case", list(HOSTS), ids=list(HOSTS))
def test_malformed_hosts_toml(used_home: Path, case: str) -> None:
    data, words = HOSTS[case]
    paths = AppPaths.from_environment()
    _write(paths.config_dir / "hosts.toml", data)
    before = fingerprint(used_home)
    for args in HOSTS_COMMANDS:
        _bad_input(xyclaw(*args), "hosts.toml", *words)
    doctor = xyclaw("doctor")  # says what is wrong in a FAIL line, with the fix
    assert doctor.code == 1 and "Traceback" not in doctor.text, doctor
    line = next(x for x in doctor.out.splitlines() if x.startswith("[FAIL] hosts.toml"))
    assert all(word in doctor.out for word in words), (words, line)
    assert fingerprint(used_home) == before


def test_the_documented_hosts_toml_example_works(xyclaw_home: Path) -> None:
    """Defect 3 (done by others): a free host (price 0, or none) is an offer."""
    paths = AppPaths.from_environment()
    example = GOOD_HOST + 'price_per_gpu_hour = 0   # optional\ncurrency = "CNY"\n'
    for text in (example, GOOD_HOST):
        _write(paths.config_dir / "hosts.toml", text.encode())
        outcome = xyclaw("offers", "--provider", "ssh")
        assert outcome.code == 0 and "A100-80G" in outcome.out and "0.00" in outcome.out


CONFIGS: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "not UTF-8": (b'[gui]\ntheme = "d\xe9rk"\n', ("config.toml", "UTF-8")),
    "not TOML": (b"[gui\ntheme = 1\n", ("config.toml", "TOML")),
    "wrong value": (b'[gui]\ntheme = "neon"\n', ("gui.theme", "'dark'")),
    "unknown key": (b"[gui]\nthem = 1\n", ("gui.them",)),
}


def _leaf_commands() -> list[list[str]]:
    """Every command the parser knows, with placeholder values for what it requires."""
    found: list[list[str]] = []

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if subs:
            for name, child in subs[0].choices.items():
                walk(child, [*prefix, name])
            if parser.get_default("handler") is None:
                return
        args = list(prefix)
        for group in parser._mutually_exclusive_groups:
            if group.required:
                first = group._group_actions[0]
                args += [first.option_strings[0], "1"]
        for action in parser._actions:
            optional = isinstance(action, argparse._SubParsersAction) or not action.required
            if optional and (action.option_strings or action.nargs not in (None, 1)):
                continue
            if action.option_strings:
                args.append(action.option_strings[0])
            if action.nargs == argparse.REMAINDER:
                args += ["--", "true"]
            elif action.nargs != 0:
                args.append(str((action.choices and next(iter(action.choices))) or "1"))
        found.append(args)

    walk(build_parser(), [])
    return found


@pytest.mark.parametrize("case", list(CONFIGS), ids=list(CONFIGS))
def test_malformed_config_toml_in_every_command(xyclaw_home: Path, case: str) -> None:
    data, words = CONFIGS[case]
    paths = AppPaths.from_environment()
    _write(paths.config_file, data)
    before = fingerprint(xyclaw_home)
    commands = _leaf_commands()
    assert len(commands) > 20 and ["doctor"] in commands
    for args in commands:
        _bad_input(xyclaw(*args), *words)
    assert fingerprint(xyclaw_home) == before


FLAGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "model size 1e400": (
        ("plan", "--task", "pretrain", "--model-size", "1e400"),
        ("--model-size",),
    ),
    "tokens 1e300": (
        ("plan", "--task", "pretrain", "--model-size", "7B", "--tokens", "1e300"),
        ("--tokens",),
    ),
    "epochs 1e300": (
        (
            "plan",
            "--task",
            "finetune-full",
            "--model-size",
            "7B",
            "--dataset-tokens",
            "1B",
            "--epochs",
            "1e300",
        ),
        ("--epochs",),
    ),
    "gpus 10**30": (
        ("plan", "--task", "pretrain", "--model-size", "7B", "--gpus", "1" + "0" * 30),
        ("--gpus",),
    ),
    "duration 10**30 h": (
        ("plan", "--task", "inference", "--model-size", "7B", "--duration", "1" + "0" * 30 + "h"),
        ("--duration",),
    ),
    "budget 1e400": (
        ("plan", "--task", "pretrain", "--model-size", "7B", "--budget", "1e400"),
        ("--budget",),
    ),
    "budget 10**30": (
        ("plan", "--task", "pretrain", "--model-size", "7B", "--budget", "1" + "0" * 30),
        ("--budget",),
    ),
    "exec huge id": (("exec", "99999999999999999999", "--", "true"), ("99999999999999999999",)),
    "down huge id": (("down", "99999999999999999999", "--yes"), ("99999999999999999999",)),
    "top huge id": (("top", "99999999999999999999", "--once"), ("99999999999999999999",)),
    "up huge plan": (("up", "--plan", "99999999999999999999", "--yes"), ("--plan",)),
    "up huge gpus": (  # the range XyClaw rents, not "beyond a 64-bit integer"
        ("up", "--provider", "local", "--gpu", "A100-80G", "--gpus", "9" * 25, "--yes"),
        ("--gpus", "1 to 100,000"),
    ),
    "up 100001 gpus": (
        ("up", "--gpu", "A800", "--gpus", "100001", "--yes"),
        ("--gpus", "100001", "1 to 100,000"),
    ),
    "exec timeout 1e400": (("exec", "1", "--timeout", "1e400", "--", "true"), ("--timeout",)),
    "top wait nan": (("top", "1", "--once", "--wait", "nan"), ("--wait",)),
    "metrics huge job": (("metrics", "export", "--job", "9" * 25), ("--job",)),
}


@pytest.mark.parametrize("case", list(FLAGS), ids=list(FLAGS))
def test_out_of_range_flags(used_home: Path, case: str) -> None:
    args, words = FLAGS[case]
    before = fingerprint(used_home)
    _bad_input(xyclaw(*args), *words)
    assert fingerprint(used_home) == before


def test_plan_offers_file_of_binary_junk(used_home: Path, tmp_path: Path) -> None:
    junk = tmp_path / "offers.csv"
    junk.write_bytes(bytes(range(256)) * 8)
    before = fingerprint(used_home)
    outcome = xyclaw("plan", "--task", "finetune-lora", "--model-size", "7B", "--offers", str(junk))
    _bad_input(outcome, "--offers", str(junk))
    assert fingerprint(used_home) == before


def test_nccl_analyze_of_a_binary_file(tmp_path: Path) -> None:
    junk = tmp_path / "log.bin"
    junk.write_bytes(b"\x00\xff\xfe" * 1000)
    outcome = xyclaw("nccl", "analyze", str(junk))
    one_clear_message(outcome)


def test_plan_offers_file_with_absurd_numbers(used_home: Path, tmp_path: Path) -> None:
    """Same class: a 400-digit GPU count overflowed float() in the offers reader."""
    header = (
        "provider,offer_id,region,gpu,kind,gpus_per_node,nodes,fabric,price_per_gpu_hour,currency\n"
    )
    for count in ("9" * 400, "1" + "0" * 300):
        offers = tmp_path / "offers.csv"
        offers.write_text(header + f"mine,o1,Xiamen,A800,node,{count},1,none,5,CNY\n")
        outcome = xyclaw(
            "plan", "--task", "finetune-lora", "--model-size", "7B", "--offers", str(offers)
        )
        _bad_input(outcome, "--offers", "gpus_per_node")


def test_up_on_own_hosts_without_a_match_points_at_hosts_toml(used_home: Path) -> None:
    """Defect 3 (done by others): the hint listed the simulated cloud's offers."""
    paths = AppPaths.from_environment()
    _write(paths.config_dir / "hosts.toml", GOOD_HOST.encode())
    outcome = xyclaw("up", "--provider", "ssh", "--gpu", "H100", "--gpus", "8", "--yes")
    one_clear_message(outcome)
    assert "hosts.toml" in outcome.err and "--provider sim" not in outcome.err, outcome.err
    assert "`xyclaw offers`" not in outcome.err


def test_a_port_that_is_not_ssh_gives_one_message(xyclaw_home: Path) -> None:
    """Same class: paramiko's own log printed its traceback on the terminal."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer_like_a_web_server() -> None:
        for _ in range(3):
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")
            conn.close()

    threading.Thread(target=answer_like_a_web_server, daemon=True).start()
    try:  # a process of its own: pytest's log capture would hide what reaches a terminal
        proc = subprocess.run(
            [sys.executable, "-m", "xyclaw.cli.main", "hosts", "test", f"root@127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
            timeout=60,
        )
    finally:
        listener.close()
    outcome = Outcome(proc.returncode, proc.stdout, proc.stderr)
    one_clear_message(outcome)
    assert "SSH handshake" in outcome.err and "Exception (client)" not in outcome.err, outcome.err


def test_other_files_not_utf8(used_home: Path) -> None:
    """Same class as defect 4: autodl.toml, and XyClaw's own known_hosts, not UTF-8."""
    paths = AppPaths.from_environment()
    _write(paths.config_dir / "autodl.toml", b'regions = ["westDC2"]\nimage_uuid = "\xff"\n')
    assert xyclaw("secrets", "set", "autodl_token", stdin="not-a-real-token\n").code == 0
    outcome = xyclaw("offers", "--provider", "autodl")
    _bad_input(outcome, "autodl.toml")
    (paths.config_dir / "autodl.toml").unlink()
    latin1 = b"# caf\xe9 notes\n"
    _write(paths.known_hosts, latin1 + b"[127.0.0.1]:2222 ssh-ed25519 " + b"A" * 68 + b"\n")
    forgot = xyclaw("hosts", "forget", "root@127.0.0.1:2222")
    assert forgot.code == 0 and "removed 1" in forgot.out, forgot
    assert paths.known_hosts.read_bytes() == latin1  # the rest kept byte for byte
