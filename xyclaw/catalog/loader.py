"""Reading GPU models and offers from CSV files or from rows a provider hands over.

Every row is checked; a bad one raises :class:`CatalogRowError` naming the
file, the line and the column, so a typo in a data file is found at once
rather than as a strange plan later. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from xyclaw.catalog.fabrics import parse_fabric
from xyclaw.catalog.models import INTERCONNECTS, OFFER_KINDS, GpuModel, Offer
from xyclaw.catalog.money import parse_amount
from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.errors import CatalogError
from xyclaw.wording import Figure, Said, joined, said, said_of

T = TypeVar("T")

GPU_COLUMNS = (
    "name",
    "memory_gib",
    "bf16_tflops",
    "fp8_tflops",
    "memory_bandwidth_gbs",
    "interconnect",
    "nvlink_gbs",
    "board_power_w",
    "source",
)
GPU_OPTIONAL = ("fp8_tflops",)

OFFER_COLUMNS = (
    "provider",
    "offer_id",
    "region",
    "gpu",
    "kind",
    "gpus_per_node",
    "nodes",
    "fabric",
    "price_per_gpu_hour",
    "price_30d",
    "currency",
    "available_gpus",
    "price_basis",
    "price_30d_basis",
    "note",
)
OFFER_REQUIRED = (
    "provider",
    "offer_id",
    "region",
    "gpu",
    "gpus_per_node",
    "nodes",
    "fabric",
    "price_per_gpu_hour",
    "currency",
)


class CatalogRowError(CatalogError):
    """One value in a catalog file is wrong: where it is and what was expected (worded, so
    `xyclaw plan --offers` says it in the ``[gui] language``; ``problem`` is the English)."""

    def __init__(
        self,
        source: str,
        line: int,
        column: str | None,
        problem: str | Said,
        *,
        unit: str = "line",
    ) -> None:
        key = f"error.catalog.at_{unit}" + ("_column" if column else "")
        figures: dict[str, Figure] = {"source": source, "line": line, "problem": problem}
        if column:
            figures["column"] = repr(column)
        super().__init__(said(key, **figures), hint=said("error.catalog.hint"))
        self.source = source
        self.line = line
        self.column = column
        self.problem = str(problem)


class _FieldError(ValueError):
    def __init__(self, column: str | None, problem: Said | str) -> None:
        super().__init__(str(problem))
        self.column = column
        self.problem = problem


@dataclass(frozen=True, slots=True)
class _Row:
    line: int
    values: Mapping[str, str]

    def text(self, column: str, *, required: bool = True) -> str:
        value = (self.values.get(column) or "").strip()
        if required and not value:
            raise _FieldError(column, said("error.catalog.empty"))
        return value

    def number(
        self, column: str, *, integer: bool = False, minimum: float = 0.0, maximum: float = 1e12
    ) -> float:
        raw = self.text(column)
        try:
            value = float(int(raw)) if integer else float(raw)
        except (ValueError, OverflowError):  # OverflowError: a 400-digit whole number
            key = "error.catalog.not_whole" if integer else "error.catalog.not_number"
            raise _FieldError(column, said(key, text=repr(raw[:30]))) from None
        if value != value or value in (float("inf"), float("-inf")):
            raise _FieldError(column, said("error.typed.not_finite", text=repr(raw)))
        if value < minimum:
            problem = said("error.catalog.below", text=repr(raw), minimum=f"{minimum:g}")
            raise _FieldError(column, problem)
        if value > maximum:
            problem = said("error.catalog.above", text=repr(raw[:30]), maximum=f"{maximum:g}")
            raise _FieldError(column, problem)
        return value

    def optional_number(self, column: str, *, integer: bool = False) -> float | None:
        return self.number(column, integer=integer) if self.text(column, required=False) else None

    def amount(self, column: str) -> int:
        raw = self.text(column)
        try:
            return parse_amount(raw)
        except ValueError as exc:
            raise _FieldError(column, said_of(exc)) from None


def read_csv(path: Path, columns: Collection[str], required: Collection[str]) -> list[_Row]:
    """The data rows of ``path`` with their line numbers; comments and blank lines skipped."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        why: Said | str = exc.strerror or str(exc)
        if isinstance(exc, FileNotFoundError):  # the commonest, said in each language
            why = said("error.typed.no_such_file")
        raise CatalogError(
            said("error.typed.catalog_unreadable", path=str(path), why=why),
            hint=said("error.typed.catalog_unreadable_hint"),
        ) from exc
    except UnicodeDecodeError as exc:
        raise CatalogError(
            said("error.typed.catalog_not_utf8", path=str(path), offset=exc.start),
            hint=said("error.typed.catalog_not_utf8_hint"),
        ) from None
    return _rows_from_text(text, str(path), columns, required)


def _rows_from_text(
    text: str, source: str, columns: Collection[str], required: Collection[str]
) -> list[_Row]:
    header: list[str] | None = None
    rows: list[_Row] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            cells = next(csv.reader([line], strict=True))
        except csv.Error as exc:
            problem = said("error.catalog.not_csv", why=str(exc))
            raise CatalogRowError(source, number, None, problem) from None
        if header is None:
            header = [cell.strip() for cell in cells]
            _check_header(header, source, number, columns, required)
            continue
        if len(cells) != len(header):
            problem = said("error.catalog.cell_count", cells=len(cells), header=len(header))
            raise CatalogRowError(source, number, None, problem)
        rows.append(_Row(number, dict(zip(header, cells, strict=True))))
    if header is None:
        raise CatalogRowError(source, 1, None, said("error.catalog.no_header"))
    return rows


def _check_header(
    header: list[str], source: str, line: int, columns: Collection[str], required: Collection[str]
) -> None:
    unknown = [name for name in header if name not in columns]
    if unknown:
        problem = said("error.catalog.unknown_column_expected", columns=", ".join(columns))
        raise CatalogRowError(source, line, unknown[0], problem)
    duplicated = sorted({name for name in header if header.count(name) > 1})
    if duplicated:
        raise CatalogRowError(source, line, duplicated[0], said("error.catalog.twice"))
    missing = [name for name in required if name not in header]
    if missing:
        raise CatalogRowError(source, line, missing[0], said("error.catalog.missing_header"))


def _convert(
    rows: Iterable[_Row], source: str, build: Callable[[_Row], T], unit: str = "line"
) -> list[T]:
    out: list[T] = []
    for row in rows:
        try:
            out.append(build(row))
        except _FieldError as exc:
            raise CatalogRowError(source, row.line, exc.column, exc.problem, unit=unit) from None
        except ValueError as exc:  # an invariant of the dataclass across columns
            raise CatalogRowError(source, row.line, None, said_of(exc), unit=unit) from None
    return out


def _gpu_from_row(row: _Row) -> GpuModel:
    interconnect = row.text("interconnect").lower()
    if interconnect not in INTERCONNECTS:
        problem = said(
            "error.catalog.not_one_of", text=repr(interconnect), choices=str(INTERCONNECTS)
        )
        raise _FieldError("interconnect", problem)
    fp8 = row.optional_number("fp8_tflops")
    if fp8 is not None and fp8 <= 0:
        raise _FieldError("fp8_tflops", said("error.catalog.fp8_positive"))
    for column in ("memory_gib", "bf16_tflops", "memory_bandwidth_gbs"):
        if row.number(column) <= 0:
            raise _FieldError(column, said("error.catalog.positive"))
    return GpuModel(
        name=normalise_gpu_name(row.text("name")),
        memory_gib=row.number("memory_gib"),
        bf16_tflops=row.number("bf16_tflops"),
        fp8_tflops=fp8,
        memory_bandwidth_gbs=row.number("memory_bandwidth_gbs"),
        interconnect=interconnect,
        nvlink_gbs=row.number("nvlink_gbs"),
        board_power_w=int(row.number("board_power_w", integer=True)),
        source=row.text("source"),
    )


def _offer_builder(known_gpus: Collection[str] | None) -> Callable[[_Row], Offer]:
    def build(row: _Row) -> Offer:
        gpu = normalise_gpu_name(row.text("gpu"))
        if known_gpus is not None and gpu not in known_gpus:
            names = ", ".join(sorted(known_gpus))
            raise _FieldError("gpu", said("error.catalog.unknown_gpu", gpu=repr(gpu), names=names))
        try:
            fabric = parse_fabric(row.text("fabric")).name
        except ValueError as exc:
            raise _FieldError("fabric", said_of(exc)) from None
        nodes = _node_counts(row)
        kind = row.text("kind", required=False).lower() or ("node" if nodes == (1,) else "cluster")
        if kind not in OFFER_KINDS:
            choices = joined(list(OFFER_KINDS))  # node、cluster、slice in Chinese
            problem = said("error.catalog.not_one_of", text=repr(kind), choices=choices)
            raise _FieldError("kind", problem)
        currency = row.text("currency").upper()
        if len(currency) != 3 or not currency.isalpha():
            raise _FieldError("currency", said("error.catalog.currency", text=repr(currency)))
        price = row.amount("price_per_gpu_hour")
        if price <= 0:
            raise _FieldError("price_per_gpu_hour", said("error.catalog.positive"))
        price_30d = row.amount("price_30d") if row.text("price_30d", required=False) else None
        if price_30d is not None and not 0 < price_30d <= price:
            raise _FieldError("price_30d", said("error.catalog.price_30d"))
        available = row.optional_number("available_gpus", integer=True)
        return Offer(
            provider=row.text("provider"),
            offer_id=row.text("offer_id"),
            region=row.text("region"),
            gpu=gpu,
            gpus_per_node=int(row.number("gpus_per_node", integer=True, minimum=1)),
            node_counts=nodes,
            fabric=fabric,
            price_micro=price,
            currency=currency,
            price_30d_micro=price_30d,
            kind=kind,
            available_gpus=None if available is None else int(available),
            price_basis=row.text("price_basis", required=False),
            price_30d_basis=row.text("price_30d_basis", required=False),
            note=row.text("note", required=False),
        )

    return build


def _node_counts(row: _Row) -> tuple[int, ...]:
    raw = row.text("nodes")
    try:
        counts = tuple(int(part) for part in raw.split("|"))
    except ValueError:
        problem = said("error.catalog.not_node_counts", text=repr(raw))
        raise _FieldError("nodes", problem) from None
    if any(n < 1 for n in counts) or list(counts) != sorted(set(counts)):
        raise _FieldError("nodes", said("error.catalog.node_counts_order", text=repr(raw)))
    return counts


def load_gpus(path: Path) -> list[GpuModel]:
    """GPU models from a CSV file with the columns of :data:`GPU_COLUMNS`."""
    required = [c for c in GPU_COLUMNS if c not in GPU_OPTIONAL]
    return _convert(read_csv(path, GPU_COLUMNS, required), str(path), _gpu_from_row)


def load_offers(path: Path, *, known_gpus: Collection[str] | None = None) -> list[Offer]:
    """Offers from a CSV file; with ``known_gpus`` an unknown GPU is an error on its line."""
    rows = read_csv(path, OFFER_COLUMNS, OFFER_REQUIRED)
    return _convert(rows, str(path), _offer_builder(known_gpus))


def offers_from_rows(
    rows: Iterable[Mapping[str, str]],
    *,
    source: str,
    known_gpus: Collection[str] | None = None,
) -> list[Offer]:
    """Offers from rows a provider returned (same columns as the CSV); row 1 is the first."""
    checked: list[_Row] = []
    for number, values in enumerate(rows, start=1):
        unknown = [name for name in values if name not in OFFER_COLUMNS]
        if unknown:
            problem = said("error.catalog.unknown_column")
            raise CatalogRowError(source, number, unknown[0], problem, unit="row")
        missing = [name for name in OFFER_REQUIRED if name not in values]
        if missing:
            problem = said("error.catalog.missing")
            raise CatalogRowError(source, number, missing[0], problem, unit="row")
        checked.append(_Row(number, {k: str(v) for k, v in values.items()}))
    return _convert(checked, source, _offer_builder(known_gpus), unit="row")
