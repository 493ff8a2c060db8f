"""A job spec file read as a tree of values that remember their line and field path.

PyYAML's own loaders throw the marks away, and a user who gets "expected a
whole number" needs the line too. So the file is composed into nodes, and every
value is built from its node here, keeping ``line`` and ``path``. Keys are the
key's source text (YAML 1.1 would read the key ``on`` as ``True``); a key that
appears twice is an error rather than a silent overwrite.

Whatever the file holds (non-UTF-8 bytes, binary junk, a syntax error, an
alias bomb), reading it raises :class:`SpecError` naming the file and line,
never a PyYAML exception.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from xyclaw.errors import JobError

MAX_SPEC_BYTES = 1 << 20  # a job spec is a page of YAML; 1 MiB is a mistake
MAX_NODES = 20_000  # values built from one file, aliases counted each time they are used
MAX_DEPTH = 40


class SpecError(JobError):
    """A job spec file (or a stored spec) is broken: where, which field, what is allowed."""

    exit_code = 2

    def __init__(
        self,
        problem: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        allowed: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = file or "job spec"
        if line is not None:
            where += f":{line}"
        label = f"{where}: {field}: {problem}" if field else f"{where}: {problem}"
        if hint is None and allowed:
            hint = f"allowed: {allowed}"
        elif hint is None:
            hint = "fix the spec file (docs/jobs.md lists every field) and try again"
        super().__init__(label, hint=hint)
        self.problem = problem
        self.file = file
        self.line = line
        self.field = field
        self.allowed = allowed


@dataclass(frozen=True, slots=True)
class SpecWarning:
    """Something in the file that XyClaw reads but does not do (or does differently)."""

    field: str
    message: str
    line: int | None = None
    file: str | None = None

    def __str__(self) -> str:
        where = self.file or "job spec"
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self.field}: {self.message}"


@dataclass(frozen=True, slots=True)
class YNode:
    """One value of the file: a scalar, a ``dict[str, YNode]`` or a ``list[YNode]``.

    ``raw`` is a scalar's source text (``1.10`` stays ``"1.10"`` for an
    environment value); ``quoted`` says it was written in quotes, so it is a
    string whatever it looks like.
    """

    value: object
    line: int
    path: str
    raw: str | None = None
    quoted: bool = False

    @property
    def is_map(self) -> bool:
        return isinstance(self.value, dict)

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, list)

    @property
    def is_scalar(self) -> bool:
        return not isinstance(self.value, dict | list)

    def items(self) -> Iterator[tuple[str, YNode]]:
        """The entries of a mapping node (none for other nodes)."""
        if isinstance(self.value, dict):
            yield from self.value.items()

    def get(self, key: str) -> YNode | None:
        if isinstance(self.value, dict):
            found = self.value.get(key)
            return found if isinstance(found, YNode) else None
        return None

    def elements(self) -> list[YNode]:
        if isinstance(self.value, list):
            return [v for v in self.value if isinstance(v, YNode)]
        return []

    def text(self) -> str:
        """The scalar's source text (what the user typed), ``""`` for null."""
        if self.value is None:
            return ""
        if self.raw is not None:
            return self.raw
        return str(self.value)

    def with_path(self, path: str) -> YNode:
        return YNode(self.value, self.line, path, self.raw, self.quoted)


def synthetic(value: object, like: YNode, path: str | None = None) -> YNode:
    """A node made by a translation (SkyPilot -> XyClaw) that points at the source line."""
    raw = None if isinstance(value, dict | list) or value is None else str(value)
    return YNode(value, like.line, path or like.path, raw, isinstance(value, str))


def decode_spec_bytes(data: bytes, file: str) -> str:
    """The file's text; SpecError for binary or non-UTF-8 content, with the line."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise SpecError(
                "is not valid UTF-16 text",
                file=file,
                hint="save the spec as UTF-8 text",
            ) from exc
    nul = data.find(b"\x00")
    if nul >= 0:
        raise SpecError(
            f"is a binary file (a NUL byte at offset {nul}), not YAML text",
            file=file,
            line=data.count(b"\n", 0, nul) + 1,
            hint="pass the job spec (a .yaml text file), not an archive or program",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SpecError(
            f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            file=file,
            line=line,
            hint="save the spec as UTF-8 (most editors: File > Save with encoding > UTF-8)",
        ) from exc
    return text


def read_spec_file(path: Path) -> YNode:
    """The file's one YAML document as a located tree."""
    file = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecError(
                f"is {size:,} bytes; a job spec is at most {MAX_SPEC_BYTES:,}",
                file=file,
                hint="pass the job's spec file, not its data",
            )
        data = path.read_bytes()
    except IsADirectoryError as exc:
        raise SpecError("is a folder, not a spec file", file=file) from exc
    except FileNotFoundError as exc:
        raise SpecError(
            "does not exist", file=file, hint="check the path (examples: resources/examples/)"
        ) from exc
    except OSError as exc:
        raise SpecError(
            f"cannot be read ({exc.strerror or exc})",
            file=file,
            hint="check that the file exists and you may read it",
        ) from exc
    return parse_spec_text(decode_spec_bytes(data, file), file)


def parse_spec_text(text: str, file: str = "job spec") -> YNode:
    """YAML text -> located tree; SpecError for syntax errors, several documents, aliases
    that expand too far, or anything but a mapping at the top."""
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:  # control characters, checked before parsing
        raise SpecError(
            f"is not valid YAML: character {exc.character!r} is not allowed in a YAML file",
            file=file,
            line=text.count("\n", 0, max(0, exc.position)) + 1,
            hint="remove the control character (or quote it as an escape in double quotes)",
        ) from exc
    try:
        try:
            root = loader.get_single_node()
        except yaml.composer.ComposerError as exc:
            if "single document" in str(exc.context or ""):
                mark = exc.problem_mark
                raise SpecError(
                    "holds more than one YAML document (a second `---`)",
                    file=file,
                    line=mark.line + 1 if mark else None,
                    hint="put one job in a spec file; SkyPilot pipelines are not supported",
                ) from exc
            raise
        if root is None:
            raise SpecError(
                "is empty", file=file, hint="a job spec needs at least `run:` (docs/jobs.md)"
            )
        builder = _Builder(loader, file)
        tree = builder.build(root, "", 0)
    except yaml.MarkedYAMLError as exc:
        # "while scanning a quoted scalar": where the scalar starts, not where the file ends
        scanning = str(exc.context or "").startswith("while scanning")
        mark = (exc.context_mark if scanning else None) or exc.problem_mark or exc.context_mark
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        raise SpecError(
            f"is not valid YAML: {problem}",
            file=file,
            line=mark.line + 1 if mark else None,
            hint="check the indentation and quoting on that line (a YAML linter helps)",
        ) from exc
    except yaml.reader.ReaderError as exc:  # a bad character met while reading on
        raise SpecError(
            f"is not valid YAML: character {exc.character!r} is not allowed in a YAML file",
            file=file,
            line=text.count("\n", 0, max(0, exc.position)) + 1,
            hint="remove the control character",
        ) from exc
    except yaml.YAMLError as exc:
        raise SpecError(
            f"is not valid YAML: {exc}", file=file, hint="save the spec as plain UTF-8 text"
        ) from exc
    except RecursionError as exc:
        raise SpecError("nests too deeply to be a job spec", file=file) from exc
    finally:
        loader.dispose()
    if not tree.is_map:
        raise SpecError(
            f"holds {_kind(tree)} at the top; a job spec is a mapping of fields",
            file=file,
            line=tree.line,
            hint="start with `name: my-job` and `run: python train.py` (docs/jobs.md)",
        )
    return tree


def _kind(node: YNode) -> str:
    if node.is_list:
        return "a list"
    if node.value is None:
        return "nothing"
    return f"the text {node.text()[:60]!r}"


class _Builder:
    def __init__(self, loader: yaml.SafeLoader, file: str) -> None:
        self.loader = loader
        self.file = file
        self.count = 0

    def build(self, node: yaml.Node, path: str, depth: int) -> YNode:
        self.count += 1
        line = node.start_mark.line + 1
        if self.count > MAX_NODES:
            raise SpecError(
                f"expands to more than {MAX_NODES:,} values (aliases used over and over?)",
                file=self.file,
                line=line,
                field=path or None,
            )
        if depth > MAX_DEPTH:
            raise SpecError(
                f"nests more than {MAX_DEPTH} levels deep (a recursive alias?)",
                file=self.file,
                line=line,
                field=path or None,
            )
        if isinstance(node, yaml.MappingNode):
            self.loader.flatten_mapping(node)  # resolves `<<: *defaults`
            out: dict[str, YNode] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise SpecError(
                        "a key must be a plain name, not a list or mapping",
                        file=self.file,
                        line=key_node.start_mark.line + 1,
                        field=path or None,
                    )
                key = str(key_node.value)
                sub = f"{path}.{key}" if path else key
                if key in out:
                    raise SpecError(
                        f"appears twice (first on line {out[key].line})",
                        file=self.file,
                        line=key_node.start_mark.line + 1,
                        field=sub,
                        hint="keep one of the two; YAML would silently use the last",
                    )
                child = self.build(value_node, sub, depth + 1)
                # errors about a value point at its key's line (where the user looks)
                key_line = key_node.start_mark.line + 1
                out[key] = YNode(child.value, key_line, sub, child.raw, child.quoted)
            return YNode(out, line, path)
        if isinstance(node, yaml.SequenceNode):
            items = [
                self.build(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node.value)
            ]
            return YNode(items, line, path)
        assert isinstance(node, yaml.ScalarNode)
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise SpecError(
                f"cannot be read: {exc.problem}",
                file=self.file,
                line=line,
                field=path or None,
                hint="write plain values (no !!python tags)",
            ) from exc
        except ValueError as exc:  # PyYAML raises it for dates like 2024-99-99
            raise SpecError(
                f"{node.value!r} cannot be read ({exc})",
                file=self.file,
                line=line,
                field=path or None,
                hint="quote the value to keep it as text",
            ) from exc
        return YNode(value, line, path, str(node.value), node.style in ("'", '"', "|", ">"))
