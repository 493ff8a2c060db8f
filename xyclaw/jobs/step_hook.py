"""The per-rank timing hook XyClaw's launcher adds to a PyTorch train job (issue 34).

Most training logs print rank 0 only, and in a synchronous job every rank's step takes as
long as the slowest one's, so the log cannot say which rank is slow. The hook is a
``sitecustomize.py`` the launch script writes next to the task's files and puts first on
``PYTHONPATH``: every Python process of the job imports it at start-up. It imports
nothing heavy; when (and only if) the process imports ``torch.optim``, it registers
PyTorch's global optimizer-step hooks (``register_optimizer_step_pre_hook`` and
``..._post_hook``, torch 2.0 onwards) and times each ``optimizer.step()`` on this rank: the
update is the one part of a step with no collective in it (DDP's all-reduce ran in the
backward pass), so a slow GPU shows there and nowhere else. With CUDA in use it
synchronizes the device before and after, so the time is the GPU's and not the launch
queue's. Every ``XYCLAW_STEP_TIMES_EVERY`` steps it prints one line per rank,
``xyclaw-step rank=<R> step=<S> compute_s=<median seconds of those steps>``
(:mod:`xyclaw.parsers.steptimes` reads it). A ``sitecustomize`` the environment had
already is run after it, so the hook hides nothing. The spec's ``env`` turns it off with
``XYCLAW_STEP_TIMES: "0"``; the launch card says so.
"""

from __future__ import annotations

from xyclaw.jobs.spec import JobKind, JobSpec

#: The spec's ``env`` switch ("0", "off", "false", "no": no hook, no variables).
STEP_TIMES_SWITCH = "XYCLAW_STEP_TIMES"
#: Steps per printed line (a line per rank per step would multiply the log).
STEP_TIMES_EVERY = 20
#: The file name the launch script writes the hook under (in ``<task>.hook/``).
HOOK_FILE = "sitecustomize.py"
_OFF = {"0", "off", "false", "no"}


def step_times_wanted(spec: JobSpec) -> bool:
    """A train job gets the hook unless its spec's ``env`` turns it off."""
    if spec.kind is not JobKind.TRAIN:
        return False
    return spec.env.get(STEP_TIMES_SWITCH, "1").strip().lower() not in _OFF


def step_times_env() -> dict[str, str]:
    """What the job's processes get with the hook (the spec's own values win)."""
    return {STEP_TIMES_SWITCH: "1", "XYCLAW_STEP_TIMES_EVERY": str(STEP_TIMES_EVERY)}


#: The hook itself: plain Python 3.8+, no XyClaw import (it runs on the node).
HOOK_SOURCE = '''\
# Written by XyClaw (issue 34): per-rank optimizer-step times, one line per rank every
# XYCLAW_STEP_TIMES_EVERY steps. Turn it off with XYCLAW_STEP_TIMES=0 in the job spec's env.
import os as _os
import sys as _sys


def _xyclaw_step_hook():
    import importlib.abc
    import importlib.machinery
    import importlib.util
    import statistics
    import time

    if _os.environ.get("XYCLAW_STEP_TIMES", "1").strip().lower() in ("0", "off", "false", "no"):
        return
    try:
        every = max(1, int(_os.environ.get("XYCLAW_STEP_TIMES_EVERY", "1")))
    except ValueError:
        every = 1
    rank = _os.environ.get("RANK", _os.environ.get("SLURM_PROCID", "0"))
    state = {"step": 0, "start": None, "times": []}

    def _sync():
        torch = _sys.modules.get("torch")
        cuda = getattr(torch, "cuda", None)
        try:
            if cuda is not None and cuda.is_available() and cuda.is_initialized():
                cuda.synchronize()
        except Exception:
            pass

    def pre(optimizer, args, kwargs):
        _sync()
        state["start"] = time.perf_counter()

    def post(optimizer, args, kwargs):
        if state["start"] is None:
            return
        _sync()
        state["times"].append(time.perf_counter() - state["start"])
        state["start"] = None
        state["step"] += 1
        if state["step"] % every == 0:
            seconds = statistics.median(state["times"])
            state["times"] = []
            _sys.stdout.write(
                "xyclaw-step rank=%s step=%d compute_s=%.6f\\n" % (rank, state["step"], seconds)
            )
            _sys.stdout.flush()

    def install(module):
        try:
            module.register_optimizer_step_pre_hook(pre)
            module.register_optimizer_step_post_hook(post)
        except Exception:
            pass  # a torch without global optimizer hooks: no timing, nothing else changes

    target = "torch.optim.optimizer"

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target_module=None):
            if name != target:
                return None
            _sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                install(module)

            spec.loader.exec_module = exec_module
            return spec

    if target in _sys.modules:
        install(_sys.modules[target])
    else:
        _sys.meta_path.insert(0, _Finder())


def _xyclaw_next_sitecustomize():
    """Run the sitecustomize this one shadows, if the environment has one."""
    import importlib.machinery
    import importlib.util

    here = _os.path.dirname(_os.path.abspath(__file__))
    rest = [p for p in _sys.path if _os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


try:
    _xyclaw_step_hook()
except Exception:
    pass
_xyclaw_next_sitecustomize()
'''
