"""Printing an operation's progress on the terminal while the command waits for it.

On a terminal: a rich progress bar for the operation and one line per node
with its steps (provision, SSH, then the bootstrap checks). Otherwise, as
always, one line per new message (``[ 40%] ...``), which logs and scripts read.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any, TypeVar

from xyclaw.cli.render import console, use_rich
from xyclaw.engine import Engine, OperationHandle
from xyclaw.events import OperationProgress
from xyclaw.wording import Said, display, worded

T = TypeVar("T")

_shown: list[_RichProgress] = []  # live displays on the terminal now
_shown_lock = threading.Lock()


@contextmanager
def paused() -> Iterator[None]:
    """Take the live progress display off the terminal while a question is asked."""
    with _shown_lock:
        views = list(_shown)
    for view in views:
        view.pause()
    try:
        yield
    finally:
        for view in views:
            view.resume()


def follow(
    engine: Engine,
    start: Callable[[], OperationHandle[T]],
    out: IO[str] | None = None,
    language: str = "en",
) -> T:
    """Start the operation and wait for it, printing each new progress message in
    ``language`` ("en" or "zh": the CLI's, from ``[gui] language``).

    The subscription is made before the operation starts, so its first
    messages are not lost. Ctrl-C cancels it and waits for the clean-up.
    """
    stream = out or sys.stderr
    lock = threading.Lock()
    early: list[OperationProgress] = []
    handle_box: list[OperationHandle[T]] = []
    view = _RichProgress(stream, language) if use_rich(stream) else _PlainProgress(stream, language)
    show = view.show

    def on_event(event: OperationProgress) -> None:
        with lock:
            if not handle_box:
                early.append(event)
                return
            if event.operation_id == handle_box[0].id:
                show(event)

    sub = engine.subscribe(OperationProgress, on_event)
    try:
        handle = start()
        with lock:
            handle_box.append(handle)
            for event in early:
                if event.operation_id == handle.id:
                    show(event)
            early.clear()
        while True:
            try:
                return handle.result(timeout=0.5)
            except TimeoutError:
                continue
            except KeyboardInterrupt:
                view.note(
                    "正在取消（清理已开始的工作）..."
                    if language == "zh"
                    else "cancelling (cleaning up what was started)..."
                )
                handle.cancel()
                return handle.result()
    finally:
        sub.unsubscribe()
        view.close()


class _PlainProgress:
    """One line per new message; the end is reported by the command."""

    def __init__(self, stream: IO[str], language: str = "en") -> None:
        self._stream = stream
        self._language = language
        self._last = ""

    def show(self, event: OperationProgress) -> None:
        if event.state != "running" or event.message == self._last:
            return  # the end is reported by the command; a poll that changed nothing is noise
        self._last = event.message
        prefix = f"[{event.fraction:4.0%}] " if event.fraction is not None else "       "
        text = display.line(_in(event.said, event.message, self._language))
        print(f"{prefix}{text}", file=self._stream, flush=True)

    def note(self, text: str) -> None:
        print(text, file=self._stream, flush=True)

    def close(self) -> None:
        pass


def node_steps() -> tuple[str, ...]:
    """The steps every node of a new cluster goes through, in order."""
    from xyclaw.engine.bootstrap import STEPS

    return ("provision", "ssh", *STEPS)


class _RichProgress:
    """The operation's bar on top, then a bar per node (``subject``) counting its steps."""

    def __init__(self, stream: IO[str], language: str = "en") -> None:
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

        self._language = language
        self._steps = node_steps()
        self._progress = Progress(
            SpinnerColumn(finished_text="[green]✓[/]"),
            TextColumn("{task.description}", markup=False),
            BarColumn(bar_width=24),
            TextColumn("{task.fields[count]}", style="bold"),
            TextColumn("{task.fields[message]}", markup=False),
            console=console(stream),
            transient=False,
            refresh_per_second=8,
        )
        self._overall: Any = None
        self._nodes: dict[str, Any] = {}
        self._progress.start()
        with _shown_lock:
            _shown.append(self)

    def pause(self) -> None:
        self._progress.stop()

    def resume(self) -> None:
        self._progress.start()

    def show(self, event: OperationProgress) -> None:
        if event.state != "running":
            return
        if event.subject:
            self._show_node(event)
            return
        if self._overall is None:
            self._overall = self._progress.add_task(
                display.line(_in(event.title_said, event.title, self._language)),
                total=1.0,
                count="",
                message="",
                start=True,
            )
        fields: dict[str, Any] = {
            "message": display.line(_in(event.said, event.message, self._language))
        }
        if event.fraction is not None:
            fields["completed"] = event.fraction
            fields["count"] = f"{event.fraction:4.0%}"
        self._progress.update(self._overall, **fields)

    def _show_node(self, event: OperationProgress) -> None:
        subject = event.subject or ""
        total = len(self._steps)
        task = self._nodes.get(subject)
        if task is None:
            task = self._progress.add_task(
                f"  {display.line(subject)}", total=total, count="", message=""
            )
            self._nodes[subject] = task
        english = event.message.removeprefix(f"{subject}: ")
        message = display.line(
            english if self._language == "en" else _node_words(event, self._language)
        )
        if event.step in self._steps:
            done = self._steps.index(event.step) + 1
            if event.step == "provision" and not english.endswith("running"):
                done -= 1  # a state change on the way, not yet up
            step = event.step if self._language == "en" else _step_word(event.step, self._language)
            if not message.startswith(step):
                message = f"{step}: {message}"
            self._progress.update(task, completed=done, count=f"{done}/{total}", message=message)
        else:
            self._progress.update(task, message=message)

    def note(self, text: str) -> None:
        self._progress.console.print(text, style="yellow", markup=False)

    def close(self) -> None:
        with _shown_lock:
            if self in _shown:
                _shown.remove(self)
        self._progress.stop()


def _in(said: Said | None, english: str, language: str) -> str:
    """A message in the CLI's language: English exactly as the core wrote it."""
    return english if language == "en" or said is None else worded(said, language)


def _node_words(event: OperationProgress, language: str) -> str:
    """What a node did, without its name, in ``language``."""
    said = event.said
    if said is not None and said.key == "op.on_node" and "what" in said.figures:
        what = said.figures["what"]
        return worded(what, language) if isinstance(what, Said) else str(what)
    return _in(said, event.message, language).removeprefix(f"{event.subject}: ")


def _step_word(step: str, language: str) -> str:
    from xyclaw.engine.operations import step_said

    return worded(step_said(step), language)
