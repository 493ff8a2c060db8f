"""SkyPilot task YAML, read as it is: translated into XyClaw's spec form, with a
warning naming every field XyClaw does not do.

The translation works on the located tree (:mod:`xyclaw.jobs.specyaml`), so
an error about a translated value still names the SkyPilot field and line the
user wrote (``resources.accelerators``, ``num_nodes``). A job loaded from a
SkyPilot file also gets SkyPilot's environment variables on every node
(:func:`skypilot_env`), so its run scripts work unchanged.

The tables below are the mapping; docs/jobs.md shows them and a test keeps
the two in step.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import shlex
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol

from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.jobs.specoutputs import is_xyclaw_outputs
from xyclaw.jobs.specyaml import SpecError, SpecWarning, YNode, synthetic
from xyclaw.wording import said


class SpecLike(Protocol):
    """What :func:`node_command` reads of a :class:`~xyclaw.jobs.specmodel.JobSpec`.

    A Protocol, not an import: specmodel imports this module's tables (``SKYPILOT_ENV``),
    and the type-only import back closed a circle (issue 35)."""

    @property
    def skypilot(self) -> bool: ...


# Every variable SkyPilot documents for a task ("Environment variables" in its docs;
# sky/skylet/constants.py), all built by :func:`skypilot_env`, for every provider.
SKYPILOT_ENV = (
    "SKYPILOT_TASK_ID",  # constant across recoveries of one job
    "SKYPILOT_NODE_IPS",  # one IP a line, the head node first
    "SKYPILOT_NODE_RANK",
    "SKYPILOT_NUM_NODES",
    "SKYPILOT_NUM_GPUS_PER_NODE",
    "SKYPILOT_SETUP_NODE_IPS",
    "SKYPILOT_SETUP_NODE_RANK",
    "SKYPILOT_SETUP_NUM_GPUS_PER_NODE",
    "SKYPILOT_CLUSTER_INFO",  # JSON: cluster_name, cloud, region, zone
    "SKYPILOT_USER",
)

# SkyPilot's names that mean another model than the same name in XyClaw's catalog
# (SkyPilot's "A100" is the 40 GB card; its 80 GB card is "A100-80GB").
SKYPILOT_GPU_NAMES = {"A100": "A100-40G"}

# SkyPilot field -> XyClaw field it becomes.
TOP_MAPPED = {
    "name": "name",
    "workdir": "workdir (a local folder; relative to the spec file)",
    "num_nodes": "resources.nodes",
    "resources": "resources (see below)",
    "setup": "setup",
    "run": "run",
    "envs": "env (a null value is read from this machine's environment)",
    "file_mounts": "file_mounts (local files and folders only)",
    "service": "kind: service, service (see below)",
}
RESOURCES_MAPPED = {
    "accelerators": "resources.gpu and resources.gpus_per_node (a fraction: one whole GPU)",
    "gpus": "as accelerators (SkyPilot's newer spelling)",
    "region": "resources.region",
    "image_id": "image (`docker:` images only)",
    "ports": "service.port (the first port)",
    "job_recovery": "recovery (max_restarts_on_errors > 0 adds exit_nonzero)",
    "any_of": "the first candidate only",
    "ordered": "the first candidate only",
    "candidates": "the first candidate only (SkyPilot's older name for any_of)",
    "use_spot": "spot (also inside any_of/ordered: the first candidate's)",
}
SERVICE_MAPPED = {
    "readiness_probe": "service.readiness_path (and initial_delay_seconds -> readiness_timeout)",
}
# XyClaw's own fields, accepted in a SkyPilot file too (SkyPilot has no word for them).
XYCLAW_EXTENSIONS = (
    "kind",
    "image",
    "checkpoint_dir",
    "resume_arg",
    "max_runtime",
    "budget",
    "recovery",
    "release_when_done",
    "spot",
)
_XYCLAW_RESOURCE_KEYS = ("gpu", "nodes", "gpus_per_node", "cluster", "provider")
_XYCLAW_SERVICE_KEYS = ("port", "readiness_path", "readiness_timeout")

# SkyPilot fields XyClaw reads but does not do, and why (each one is warned about by name).
TOP_UNSUPPORTED = {
    "secrets": "values are never stored; the names are read from this machine's environment "
    "at launch",
    "managed_secrets": "SkyPilot's secret store is not available; export the values locally",
    "volumes": "SkyPilot volumes are not created; use the cluster's shared volume",
    "volume_mounts": "SkyPilot volumes are not created; use the cluster's shared volume",
    "config": "SkyPilot's per-task config overrides have no XyClaw meaning",
    "event_callback": "not run; XyClaw records every state change in its history",
    "pool": "SkyPilot pools are not supported",
    "inputs": "experimental SkyPilot field, ignored",
    "outputs": "experimental SkyPilot field, ignored",
    "file_mounts_mapping": "internal SkyPilot field, ignored",
    "api_server_access": "there is no SkyPilot API server",
    "_metadata": "internal SkyPilot field, ignored",
}
RESOURCES_UNSUPPORTED = {
    "cloud": "XyClaw's planner picks the provider (set resources.provider to choose one)",
    "infra": "XyClaw's planner picks the provider and region",
    "zone": "zones are not chosen; the provider places the nodes",
    "cpus": "the offer's CPUs come with its GPUs",
    "memory": "the offer's memory comes with its GPUs",
    "instance_type": "offers are chosen by GPU model and count",
    "spot_recovery": "see recovery",
    "disk_size": "the offer's disk is used",
    "ephemeral_storage": "the offer's disk is used",
    "disk_tier": "the offer's disk is used",
    "network_tier": "the planner picks the fabric (InfiniBand, RoCE, Ethernet) by job size",
    "local_disk": "the offer's disk is used",
    "max_hourly_cost": "use budget (a total for the job) instead",
    "labels": "not applied to nodes",
    "accelerator_args": "TPU settings are not supported",
    "autostop": "XyClaw releases idle clusters by its own policy and release_when_done",
    "priority": "there is no job queue priority",
    "priority_class": "there is no job queue priority",
    "volumes": "SkyPilot volumes are not created; use the cluster's shared volume",
    "_no_missing_accel_warnings": "internal SkyPilot field, ignored",
    "_docker_login_config": "internal SkyPilot field, ignored",
    "_is_image_managed": "internal SkyPilot field, ignored",
    "_requires_fuse": "internal SkyPilot field, ignored",
    "_cluster_config_overrides": "internal SkyPilot field, ignored",
}
SERVICE_UNSUPPORTED = {
    "replicas": "XyClaw runs one replica",
    "replica_policy": "no autoscaling; XyClaw runs one replica",
    "load_balancing_policy": "one replica, no load balancer",
    "tls": "the port is forwarded over SSH to 127.0.0.1",
    "pool": "SkyPilot pools are not supported",
    "ports": "use resources.ports or service.port",
}
_PROBE_KEYS = ("path", "initial_delay_seconds")
_PROBE_UNSUPPORTED = ("timeout_seconds", "post_data", "headers")

_SIGNAL_TOP = frozenset({"num_nodes", "envs", "model", *TOP_UNSUPPORTED})  # model: SkyServe v2
_SIGNAL_RESOURCES = frozenset(
    {"accelerators", "gpus", "image_id", "ports", "job_recovery", "any_of", "ordered", "candidates"}
    | {"use_spot"}
    | set(RESOURCES_UNSUPPORTED)
)


def _has_port(service: YNode) -> bool:
    port = service.get("port") if service.is_map else None
    return port is not None and port.value is not None


def looks_like_skypilot(tree: YNode) -> bool:
    """A SkyPilot task rather than XyClaw's form: SkyPilot's own field names, or a
    script that reads SKYPILOT_* variables."""
    if any(
        key in _SIGNAL_TOP and not (key == "outputs" and is_xyclaw_outputs(node))
        for key, node in tree.items()
    ):
        return True
    resources = tree.get("resources")
    if resources is not None and any(key in _SIGNAL_RESOURCES for key, _ in resources.items()):
        return True
    service = tree.get("service")
    if service is not None and any(
        key in SERVICE_MAPPED or key in SERVICE_UNSUPPORTED for key, _ in service.items()
    ):
        return True
    for key in ("run", "setup"):
        node = tree.get(key)
        if node is not None and isinstance(node.value, str) and "SKYPILOT_" in node.value:
            return True
    # a bucket or storage mount is SkyPilot's (docs/jobs.md: warned about, not uploaded);
    # read as XyClaw's own form it would be an error
    mounts = tree.get("file_mounts")
    if mounts is not None and mounts.is_map:
        for _target, child in mounts.items():
            if child.is_map or (isinstance(child.value, str) and "://" in child.value):
                return True
    return not _has_xyclaw_field(tree) and _skypilot_only_paths(tree)


def _has_xyclaw_field(tree: YNode) -> bool:
    if any(key in XYCLAW_EXTENSIONS or key == "env" for key, _ in tree.items()):
        return True
    resources = tree.get("resources")
    return resources is not None and any(
        key in _XYCLAW_RESOURCE_KEYS for key, _ in resources.items()
    )


def _skypilot_only_paths(tree: YNode) -> bool:
    """Paths that only SkyPilot reads (XyClaw's own form refuses them): a relative mount
    target (SkyPilot's ~/...), ``$VAR`` in a mount (filled from envs), a git workdir. They
    make a file without XyClaw's own fields SkyPilot's, so its documented reading applies."""
    mounts = tree.get("file_mounts")
    if mounts is not None and mounts.is_map:
        for target, child in mounts.items():
            if not target.startswith(("/", "~")) or "$" in target:
                return True
            if isinstance(child.value, str) and _ENV_REF.search(child.value):
                return True
    workdir = tree.get("workdir")
    return workdir is not None and (
        workdir.is_map
        or (isinstance(workdir.value, str) and _GIT_URL.match(workdir.value.strip()) is not None)
    )


def task_id(job_id: int, created_at: float, cluster: str) -> str:
    """SkyPilot's task id shape, ``sky-<UTC start>-<micro>_<cluster>_<job>``: one per job,
    the same on every attempt (SkyPilot keeps it across recoveries)."""
    moment = datetime.fromtimestamp(created_at, tz=UTC)
    return f"sky-{moment:%Y-%m-%d-%H-%M-%S-%f}_{cluster or 'cluster'}_{job_id}"


def skypilot_env(
    node_ips: Sequence[str],
    node_rank: int,
    gpus_per_node: int,
    *,
    job_id: int = 0,
    created_at: float = 0.0,
    cluster: str = "",
    provider: str = "",
    region: str | None = None,
    user: str = "",
) -> dict[str, str]:
    """SkyPilot's variables for one node of a job (the head node is ``node_ips[0]``).

    The setup variables equal the run ones: XyClaw runs setup on the job's nodes only.
    """
    ips = "\n".join(node_ips)
    info = {"cluster_name": cluster, "cloud": provider, "region": region, "zone": None}
    return {
        "SKYPILOT_TASK_ID": task_id(job_id, created_at, cluster),
        "SKYPILOT_NODE_IPS": ips,
        "SKYPILOT_NODE_RANK": str(node_rank),
        "SKYPILOT_NUM_NODES": str(len(node_ips)),
        "SKYPILOT_NUM_GPUS_PER_NODE": str(gpus_per_node),
        "SKYPILOT_SETUP_NODE_IPS": ips,
        "SKYPILOT_SETUP_NODE_RANK": str(node_rank),
        "SKYPILOT_SETUP_NUM_GPUS_PER_NODE": str(gpus_per_node),
        "SKYPILOT_CLUSTER_INFO": json.dumps(info),
        "SKYPILOT_USER": user,
    }


def launching_user() -> str:
    """SKYPILOT_USER: the name of whoever launches the job on this machine."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no user name in the environment or the password file
        return ""


def node_command(spec: SpecLike, command: str) -> str:
    """What a node runs for ``command`` (a spec's setup or run): SkyPilot's task script for
    a SkyPilot task, the command itself for a XyClaw spec."""
    return task_script(command) if spec.skypilot and command.strip() else command


# SkyPilot runs setup and run as a script made by make_task_bash_script and started with
# `/bin/bash -i` (run_bash_command_with_log), dropping two lines of bash noise that `-i`
# prints without a terminal: sky/skylet/log_lib.py, skypilot-org/skypilot at commit
# 5e6c56a8471c313e85dd2d23554fbc38afa2a5f6. A login shell alone reads no ~/.bashrc, and
# Debian's ~/.bashrc returns at once when the shell is not interactive, so `-i` is what
# makes the user's exports and `conda activate` work. SkyPilot's images always have a
# ~/.bashrc; a host without one would print "No such file or directory" into the job's log.
_SCRIPT_HEAD = (
    "[ -f ~/.bashrc ] && source ~/.bashrc\n"
    "set -a\n"
    ". $(conda info --base 2> /dev/null)/etc/profile.d/conda.sh > /dev/null 2>&1 || true\n"
    "set +a\n"
    "export PYTHONUNBUFFERED=1\n"
)
BASH_NOISE = ("bash: cannot set terminal process group", "bash: no job control in this shell")


def task_script(command: str) -> str:
    """The command string a node runs for a SkyPilot task's ``setup`` or ``run``: the user's
    command in SkyPilot's task script, in the folder it was started in, through ``bash -i``;
    its exit status is the script's."""
    script = _SCRIPT_HEAD + 'cd "$XYCLAW_TASK_DIR" || exit 1\n' + command.rstrip("\n") + "\n"
    noise = " ".join(f"-e {shlex.quote(line)}" for line in BASH_NOISE)
    return (
        'export XYCLAW_TASK_DIR="$PWD"\n'
        'xyclaw_task="${TMPDIR:-/tmp}/xyclaw-task.$$"\n'
        f"printf '%s' {shlex.quote(script)} > \"$xyclaw_task\"\n"
        # the exit status goes through a file, not PIPESTATUS: plain sh reads it too
        f'{{ bash -i "$xyclaw_task" < /dev/null 2>&1; echo $? > "$xyclaw_task.rc"; }} '
        f"| grep --line-buffered -v {noise}\n"
        'xyclaw_rc=$(cat "$xyclaw_task.rc")\n'
        'rm -f "$xyclaw_task" "$xyclaw_task.rc"\n'
        "exit $xyclaw_rc\n"
    )


_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_GIT_URL = re.compile(r"^(?:https?://\S+\.git/?|git@[^:\s]+:\S+|ssh://\S+|git://\S+)$")


# SkyPilot's own cluster key, as tasks name it (to let nodes reach each other)
_SKY_KEY = ".ssh/sky-key"
SKY_KEY_NOT_UPLOADED = (
    "~/.ssh/sky-key is the key SkyPilot puts on its clusters; XyClaw does not copy its own "
    "private key to nodes: not uploaded (give the nodes a key of their own to ssh to each other)"
)
SKY_KEY_ON_NODES = (
    "uses ~/.ssh/sky-key, the key SkyPilot puts on its clusters: XyClaw's nodes have no such "
    "file (XyClaw does not copy its private key to nodes); give them a key of their own"
)


def _is_sky_key(value: object) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip().rstrip("/")
    return text.endswith(_SKY_KEY) and text.startswith(("~", "/"))


class _Translator:
    def __init__(self, file: str, warnings: list[SpecWarning]) -> None:
        self.file = file
        self.warnings = warnings
        self.envs: dict[str, str] = {}
        self.from_machine: set[str] = set()  # envs left null: this machine's environment
        self.use_spot: YNode | None = None  # resources.use_spot, read as XyClaw's spot (issue 32)

    def warn(self, node: YNode, message: str) -> None:
        self.warnings.append(SpecWarning.of(node, message, self.file))

    def error(self, node: YNode, problem: str, allowed: str | None = None) -> SpecError:
        return SpecError(problem, file=self.file, line=node.line, field=node.path, allowed=allowed)

    def top(self, tree: YNode) -> YNode:
        self.refuse_without_run(tree)
        for key in ("setup", "run"):
            script = tree.get(key) if tree.is_map else None
            if script is not None and isinstance(script.value, str) and _SKY_KEY in script.value:
                self.warn(script, SKY_KEY_ON_NODES)
        envs = tree.get("envs") if tree.is_map else None
        if envs is not None and envs.is_map:
            self.envs = {
                key: child.text()
                for key, child in envs.items()
                if child.is_scalar and child.value is not None
            }
            self.from_machine = {key for key, child in envs.items() if child.value is None}
        out: dict[str, YNode] = {}
        allowed = sorted({*TOP_MAPPED, *XYCLAW_EXTENSIONS, *TOP_UNSUPPORTED})
        env_from_secrets: list[YNode] = []
        ports: YNode | None = None
        for key, node in tree.items():
            if key == "workdir" and self.git_url(node) is not None:
                out["_git"] = node
            elif key == "workdir":
                out[key] = self.local_source(node)
            elif key in ("name", "setup", "run", *XYCLAW_EXTENSIONS):
                out[key] = node
            elif key == "num_nodes":
                out["_nodes"] = node
            elif key == "envs":
                out["env"] = node
            elif key == "file_mounts":
                out["file_mounts"] = self.file_mounts(node)
            elif key == "resources":
                resources, ports, recovery, image = self.resources(node)
                out["resources"] = resources
                if recovery is not None:
                    out["_recovery"] = recovery
                if image is not None:
                    out["_image"] = image
            elif key == "service":
                out["service"] = node
            elif key == "secrets":
                env_from_secrets = self.secrets(node)
            elif key in TOP_UNSUPPORTED:
                self.warn(node, f"not supported: {TOP_UNSUPPORTED[key]}")
            elif key == "env":
                raise self.error(
                    node,
                    "a SkyPilot task sets variables with `envs`",
                    "envs: {NAME: value}",
                )
            else:
                raise self.error(
                    node,
                    "is neither a SkyPilot task field nor a XyClaw one",
                    ", ".join(allowed),
                )
        return self.assemble(tree, out, env_from_secrets, ports)

    def assemble(
        self,
        tree: YNode,
        out: dict[str, YNode],
        secrets: list[YNode],
        ports: YNode | None,
    ) -> YNode:
        git = out.pop("_git", None)
        if git is not None:
            self.clone_on_nodes(git, out)
        nodes = out.pop("_nodes", None)
        if nodes is not None:
            res = out.get("resources")
            res_map: dict[str, YNode] = dict(res.items()) if res is not None else {}
            if "nodes" in res_map:
                raise self.error(nodes, "given twice (also resources.nodes)")
            res_map["nodes"] = nodes
            out["resources"] = YNode(res_map, res.line if res else nodes.line, "resources")
        if secrets:
            env = out.get("env")
            env_map: dict[str, YNode] = dict(env.items()) if env is not None else {}
            for s in secrets:
                name = s.path.rsplit(".", 1)[-1]
                if name in env_map:
                    raise self.error(s, f"{name} is both in envs and secrets")
                env_map[name] = YNode(None, s.line, s.path)
            out["env"] = YNode(env_map, env.line if env else secrets[0].line, "envs")
        image = out.pop("_image", None)
        if image is not None:
            if "image" in out:
                self.warn(image, "XyClaw's own `image` is used instead")
            else:
                out["image"] = image
        recovery = out.pop("_recovery", None)
        if recovery is not None:
            if "recovery" in out:
                self.warn(recovery, "XyClaw's own `recovery` section is used instead")
            else:
                out["recovery"] = recovery
        self.spot(out)
        service = out.get("service")
        if service is not None and ports is None and not _has_port(service):
            # `sky launch` ignores `service` (only `sky serve up` reads it): without a port
            # there is nothing to forward, so the task runs as the job `sky launch` runs
            self.warn(
                service,
                "a service needs the port it listens on (resources.ports or service.port); "
                "without one the task runs as a job, as `sky launch` runs it",
            )
            del out["service"]
        elif service is not None:
            out["service"] = self.service(service, ports)
            kind = out.get("kind")
            if kind is None:
                out["kind"] = synthetic("service", service, "service")
        elif ports is not None:
            kind = out.get("kind")
            if kind is not None and str(kind.value).strip().lower() == "service":
                out["service"] = self.service(YNode({}, ports.line, "service"), ports)
            else:
                self.warn(
                    ports,
                    "ports are not opened on a train job; a `service:` section (or `kind: "
                    "service`) forwards its port to this machine",
                )
        return YNode(out, tree.line, "")

    def spot(self, out: dict[str, YNode]) -> None:
        """SkyPilot's resources.use_spot (or its first any_of/ordered candidate's) is XyClaw's
        ``spot``: rent preemptible capacity where the provider has it (issue 32)."""
        if self.use_spot is None:
            return
        if "spot" in out:
            self.warn(self.use_spot, "XyClaw's own `spot` is used instead")
        else:
            out["spot"] = self.use_spot

    def secrets(self, node: YNode) -> list[YNode]:
        names: list[YNode] = []
        if node.is_list:
            for item in node.elements():
                if isinstance(item.value, str):
                    names.append(YNode(None, item.line, f"secrets.{item.value}"))
            self.warn(
                node, "SkyPilot's managed secrets are not available; " + TOP_UNSUPPORTED["secrets"]
            )
            return names
        if not node.is_map:
            raise self.error(node, "expected a mapping of secret names", "secrets: {NAME: null}")
        literal = False
        for key, child in node.items():
            names.append(YNode(None, child.line, f"secrets.{key}"))
            literal = literal or child.value is not None
        message = "read from this machine's environment at launch, never stored"
        if literal:
            message += "; the values written in the file are not used"
        self.warn(node, message)
        return names

    def refuse_without_run(self, tree: YNode) -> None:
        """A SkyPilot file without ``run`` is not a task: say what it is."""
        run = tree.get("run")
        if run is not None and run.value is not None:
            return
        if not tree.is_map:
            return  # the reader says what is wrong with it
        model = tree.get("model")
        if model is not None and isinstance(model.value, str):
            raise SpecError(
                said("error.spec.serve_model", model=model.value),
                file=self.file,
                line=model.line,
                field="model",
                hint=said("error.spec.serve_model_hint", model=model.value),
            )
        pool = tree.get("pool")
        if pool is not None:
            raise SpecError(
                "is a SkyPilot pool (workers that `sky jobs launch --pool` sends jobs to), "
                "not a task: it has no `run`",
                file=self.file,
                line=pool.line,
                field="pool",
                hint="XyClaw runs tasks; give it the job file you send to the pool",
            )
        raise SpecError(
            "is a SkyPilot cluster-only file (what `sky launch` brings up without a job): "
            "it has no `run`",
            file=self.file,
            line=tree.line,
            hint="add a `run:` command, or rent the cluster with `xyclaw up`",
        )

    def substitute(self, node: YNode) -> YNode:
        """SkyPilot fills ``${VAR}`` and ``$VAR`` in file_mounts and workdir from the task's
        envs; one left null there is this machine's (XyClaw reads null envs from it)."""
        if not isinstance(node.value, str) or "$" not in node.value:
            return node

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            if name in self.envs:
                return self.envs[name]
            if name in self.from_machine and name in os.environ:
                return os.environ[name]
            return match.group(0)

        return synthetic(_ENV_REF.sub(value, node.value), node, node.path)

    def local_source(self, node: YNode) -> YNode:
        """A local path (workdir, a file_mounts source) with its variables filled in; one
        still unset is refused by name, with how to set it (not as a path that "does not
        exist" with a literal ``$NAME`` in it)."""
        node = self.substitute(node)
        if isinstance(node.value, str):
            unset = _ENV_REF.search(node.value)
            if unset is not None:
                name = unset.group(1) or unset.group(2)
                raise SpecError(
                    said("error.spec.unset_variable", name=name),
                    file=self.file,
                    line=node.line,
                    field=node.path,
                    hint=said("error.spec.unset_variable_hint", name=name),
                )
        return node

    def git_url(self, node: YNode) -> tuple[str, str | None] | None:
        """(url, ref) of a workdir that is a git repository, else None."""
        if node.is_map:
            url = node.get("url")
            if url is None or not isinstance(url.value, str):
                return None
            ref = node.get("ref")
            return url.value.strip(), (ref.text().strip() if ref is not None else None)
        if isinstance(node.value, str) and _GIT_URL.match(node.value.strip()):
            return node.value.strip(), None
        return None

    def clone_on_nodes(self, node: YNode, out: dict[str, YNode]) -> None:
        """A git workdir is cloned on every node into ~/sky_workdir (as SkyPilot does), before
        setup; setup and run start there."""
        found = self.git_url(node)
        assert found is not None
        url, ref = found
        folder = "~/sky_workdir"
        clone = (
            f"if [ -d {folder}/.git ]; then git -C {folder} fetch --quiet origin; "
            f"else git clone --quiet {shlex.quote(url)} {folder}; fi || exit 1\n"
        )
        if ref:
            clone += f"git -C {folder} checkout --quiet {shlex.quote(ref)} || exit 1\n"
        clone += f"cd {folder}\n"
        setup = out.get("setup")
        setup_text = setup.text() if setup is not None and setup.value is not None else ""
        out["setup"] = synthetic(clone + setup_text, setup or node, "setup")
        run = out.get("run")
        if run is not None and isinstance(run.value, str):
            out["run"] = synthetic(f"cd {folder}\n" + run.value, run, "run")
        self.warn(
            node,
            f"a git repository: cloned on every node into {folder} before setup "
            "(a private one needs the nodes' git credentials)",
        )

    def file_mounts(self, node: YNode) -> YNode:
        if not node.is_map:
            return node  # the reader says what is wrong with it
        kept: dict[str, YNode] = {}
        for target, child in node.items():
            child = self.substitute(child)
            target = self.substitute(YNode(target, child.line, child.path)).text()
            if not target.startswith(("/", "~")):
                # SkyPilot puts a relative target under the home folder
                self.warn(child, f"relative target {target!r} is read as ~/{target}")
                target = f"~/{target}"
            if child.is_map:
                self.warn(child, "SkyPilot storage (buckets) is not mounted; not uploaded")
            elif isinstance(child.value, str) and "://" in child.value:
                scheme = child.value.split("://", 1)[0]
                self.warn(child, f"{scheme}:// buckets are not mounted; not uploaded")
            elif _is_sky_key(child.value):
                self.warn(child, SKY_KEY_NOT_UPLOADED)
            else:
                kept[target] = self.local_source(child)
        return YNode(kept, node.line, node.path)

    def resources(self, node: YNode) -> tuple[YNode, YNode | None, YNode | None, YNode | None]:
        """XyClaw's resources, and the ports, recovery and image it held (or None)."""
        if not node.is_map:
            return node, None, None, None
        entries = dict(node.items())
        for multi in ("any_of", "ordered", "candidates"):
            choice = entries.pop(multi, None)
            if choice is None:
                continue
            candidates = choice.elements()
            if not choice.is_list or not candidates or not candidates[0].is_map:
                raise self.error(choice, "expected a list of resource mappings")
            if len(candidates) > 1:
                self.warn(choice, f"only the first of {len(candidates)} candidates is used")
            for key, value in candidates[0].items():
                entries[key] = value
        out: dict[str, YNode] = {}
        ports = None
        recovery = None
        image = None
        for key, child in entries.items():
            if key in ("accelerators", "gpus"):
                if "gpu" in entries or ("accelerators" in entries and "gpus" in entries):
                    raise self.error(child, "given together with another GPU field; keep one")
                out["gpu"] = self.accelerators(child)
            elif key == "region":
                out["region"] = child
            elif key == "image_id":
                image = self.image(child)
            elif key == "ports":
                ports = child
            elif key == "job_recovery":
                recovery = self.job_recovery(child)
            elif key == "use_spot":
                self.use_spot = child
            elif key in _XYCLAW_RESOURCE_KEYS:
                out[key] = child
            elif key in RESOURCES_UNSUPPORTED:
                self.warn(child, f"not supported: {RESOURCES_UNSUPPORTED[key]}")
            else:
                allowed = sorted(
                    {*RESOURCES_MAPPED, *RESOURCES_UNSUPPORTED, *_XYCLAW_RESOURCE_KEYS}
                )
                raise self.error(child, "is not a SkyPilot resources field", ", ".join(allowed))
        return YNode(out, node.line, node.path), ports, recovery, image

    def accelerators(self, node: YNode) -> YNode:
        allowed = "`A100:8`, `{A100: 8}` or a list of such (the first is used)"
        if node.is_list:
            options = node.elements()
            if not options:
                raise self.error(node, "an empty list", allowed)
            if len(options) > 1:
                self.warn(node, f"only the first of {len(options)} accelerator options is used")
            first = options[0]
            if not isinstance(first.value, str):
                raise self.error(first, "expected `NAME:COUNT`", allowed)
            text = first.value
        elif node.is_map:
            options_map = list(node.items())
            if not options_map:
                raise self.error(node, "an empty mapping", allowed)
            if len(options_map) > 1:
                self.warn(node, f"only the first of {len(options_map)} accelerator options is used")
            name, count = options_map[0]
            if count.is_map or count.is_list:
                raise self.error(count, "expected a GPU count", allowed)
            # {A100:8} in flow style is a key with no value; {A100: } is one GPU
            text = name if count.value is None else f"{name}:{count.text()}"
        elif isinstance(node.value, str):
            text = node.value
        else:
            return node  # the reader says what is wrong with it
        name, sep, count_text = text.strip().rpartition(":")
        if not sep:
            name, count_text = count_text, "1"  # SkyPilot: a name alone is one GPU
        name = SKYPILOT_GPU_NAMES.get(normalise_gpu_name(name), name)
        count_text = self.whole_gpus(node, count_text.strip())
        return synthetic(f"{name}:{count_text}", node, node.path)

    def whole_gpus(self, node: YNode, count_text: str) -> str:
        """A fractional count (``A100:0.5``) runs on one whole GPU, with a warning."""
        try:
            count = float(count_text)
        except ValueError:
            return count_text  # the reader says what is wrong with it
        if 0 < count < 1:
            self.warn(
                node,
                f"{count_text} of a GPU: the task gets one whole GPU; XyClaw does not share a "
                "GPU between tasks",
            )
            return "1"
        return count_text

    def image(self, node: YNode) -> YNode | None:
        if isinstance(node.value, str) and node.value.strip().startswith("docker:"):
            return synthetic(node.value.strip()[len("docker:") :].strip(), node, node.path)
        if node.value is not None:
            self.warn(node, "only `docker:` images are used; machine images are not")
        return None

    def job_recovery(self, node: YNode) -> YNode:
        """SkyPilot's job_recovery -> XyClaw's recovery (infrastructure causes always;
        the user's own failures when max_restarts_on_errors > 0)."""
        causes = ["node_lost", "xid", "nccl_timeout"]
        restarts = 3
        if node.is_map:
            for key, child in node.items():
                if key == "strategy":
                    if child.value is not None:
                        self.warn(
                            child,
                            f"strategy {child.text()}: XyClaw replaces a lost node from the same "
                            "provider and region",
                        )
                elif key == "max_restarts_on_errors":
                    value = child.value
                    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                        raise self.error(child, f"{child.text()!r} is not a count", "0 or more")
                    if value > 0:
                        causes.append("exit_nonzero")
                        restarts = max(restarts, value)
                elif key == "recover_on_exit_codes":
                    if "exit_nonzero" not in causes:
                        causes.append("exit_nonzero")
                    self.warn(
                        child, "XyClaw retries any non-zero exit code, not only the listed ones"
                    )
                else:
                    self.warn(child, "not supported by XyClaw's recovery")
        elif node.value is not None:
            self.warn(
                node,
                f"strategy {node.text()}: XyClaw replaces a lost node from the same provider "
                "and region",
            )
        on = YNode([synthetic(c, node, f"{node.path}") for c in causes], node.line, node.path)
        return YNode(
            {"max_restarts": synthetic(restarts, node, node.path), "on": on},
            node.line,
            node.path,
        )

    def service(self, node: YNode, ports: YNode | None) -> YNode:
        out: dict[str, YNode] = {}
        if node.is_map:
            for key, child in node.items():
                if key == "readiness_probe":
                    self.readiness(child, out)
                elif key in _XYCLAW_SERVICE_KEYS:
                    out[key] = child
                elif key in SERVICE_UNSUPPORTED:
                    if key == "replicas" and child.value == 1:
                        continue
                    self.warn(child, f"not supported: {SERVICE_UNSUPPORTED[key]}")
                else:
                    self.warn(child, "not a field XyClaw's services use; ignored")
        elif node.value is not None:
            raise self.error(node, "expected a mapping", "readiness_probe, replicas, ...")
        if "port" not in out:
            if ports is None:
                raise self.error(
                    node,
                    "a service needs the port it listens on",
                    "resources.ports: 8000 (or service.port)",
                )
            out["port"] = self.first_port(ports)
        return YNode(out, node.line, "service")

    def readiness(self, node: YNode, out: dict[str, YNode]) -> None:
        if node.is_map:
            for key, child in node.items():
                if key == "path":
                    out["readiness_path"] = child
                elif key == "initial_delay_seconds":
                    out["readiness_timeout"] = child
                elif key in _PROBE_UNSUPPORTED:
                    self.warn(child, "not supported: the readiness check is an HTTP GET")
                else:
                    self.warn(child, "not a readiness_probe field XyClaw uses; ignored")
        elif node.value is not None:
            out["readiness_path"] = node

    def first_port(self, ports: YNode) -> YNode:
        allowed = "a port such as 8000 (a range or list uses its first port)"
        items = ports.elements() if ports.is_list else [ports]
        if not items:
            raise self.error(ports, "an empty list", allowed)
        first = items[0]
        text = first.text().strip()
        port_text = text.split("-", 1)[0].strip()
        if len(items) > 1 or "-" in text:
            self.warn(ports, f"only port {port_text} is forwarded")
        if not port_text.isdigit():
            raise self.error(first, f"{text!r} is not a port", allowed)
        return synthetic(int(port_text), first, ports.path)


def to_xyclaw_tree(tree: YNode, file: str, warnings: list[SpecWarning]) -> YNode:
    """A SkyPilot task as the tree of a XyClaw spec; warnings for what is not done."""
    return _Translator(file, warnings).top(tree)
