"""nvidia-smi --query-gpu CSV: the formats real nodes print, and garbage."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xyclaw.errors import ParseError
from xyclaw.parsers.nvsmi import (
    QUERY_FIELDS,
    GpuSample,
    NvsmiCsvParser,
    canonical_field,
    parse_csv,
    query_command,
    throttle_reason_names,
)

FIX = Path(__file__).parent / "fixtures"


def _read(name: str) -> str:
    return (FIX / name).read_text()


def test_header_with_units_reads_every_gpu_and_field() -> None:
    samples = parse_csv(_read("nvsmi_header_units_8gpu.csv"))
    assert [s.index for s in samples] == list(range(8))
    g0 = samples[0]
    assert g0.uuid == "GPU-6d1c2e3f-8a41-4b7c-9e15-0f3a7c2b9d00"
    assert g0.name == "NVIDIA H100 80GB HBM3"
    assert g0.timestamp == datetime(2025, 3, 1, 10, 0, 0, 123000, tzinfo=UTC).timestamp()
    assert (g0.utilization_gpu, g0.utilization_memory) == (97, 41)
    assert (g0.memory_used_mib, g0.memory_total_mib) == (61234, 81559)
    assert (g0.power_draw_w, g0.power_limit_w) == (612.45, 700.0)
    assert (g0.temperature_c, g0.clocks_sm_mhz, g0.clocks_mem_mhz) == (63, 1980, 2619)
    assert (g0.throttle_reasons, g0.ecc_uncorrected, g0.pstate) == (0, 0, "P0")
    assert g0.fan_speed is None  # SXM boards print [N/A]
    # GPU 2 is power capped, GPU 5 thermally throttled with an unreadable power draw
    assert samples[2].throttle_reason_names == ["sw_power_cap"]
    assert samples[2].is_slowed_down
    assert samples[5].power_draw_w is None and samples[5].ecc_uncorrected is None
    assert samples[5].throttle_reason_names == ["sw_thermal_slowdown", "hw_thermal_slowdown"]
    assert samples[7].throttle_reason_names == ["gpu_idle"] and not samples[7].is_slowed_down
    assert samples[6].ecc_uncorrected == 2


def test_noheader_nounits_stream_needs_the_field_list() -> None:
    parser = NvsmiCsvParser(QUERY_FIELDS)
    samples = parser.feed_many(_read("nvsmi_noheader_nounits_stream.csv").splitlines())
    assert len(samples) == 24 and parser.bad_lines == 0
    assert [s.index for s in samples[:8]] == list(range(8))
    assert samples[8].timestamp == pytest.approx(
        datetime(2025, 3, 1, 10, 0, 1, 120000, tzinfo=UTC).timestamp()
    )
    # the same numbers as the units file: units change nothing
    with_units = parse_csv(_read("nvsmi_header_units_8gpu.csv"))
    strip = {"timestamp": None}
    assert [s.__class__(**{**_asdict(s), **strip}) for s in samples[:8]] == [
        s.__class__(**{**_asdict(s), **strip}) for s in with_units
    ]

    blind = NvsmiCsvParser()
    assert blind.feed_many(_read("nvsmi_noheader_nounits_stream.csv").splitlines()) == []
    assert blind.bad_lines == 24
    assert blind.last_error is not None and "no header" in blind.last_error


def _asdict(s: GpuSample) -> dict[str, object]:
    return {name: getattr(s, name) for name in s.__slots__}


def test_repeated_headers_and_broken_lines_in_a_stream() -> None:
    parser = NvsmiCsvParser()
    samples = parser.feed_many(_read("nvsmi_repeated_header_stream.csv").splitlines())
    assert parser.headers == 3
    assert len(samples) == 22  # 3 x 8 minus a cut line and an error message
    assert parser.bad_lines == 2
    assert parser.last_error is not None and "Unknown Error" in parser.last_error
    assert [s.index for s in samples[8:15]] == [0, 1, 2, 4, 5, 6, 7]


def test_throttle_reasons_as_words_per_reason() -> None:
    samples = parse_csv(_read("nvsmi_event_reason_words.csv"))
    assert [s.throttle_reasons for s in samples] == [0x4, 0x8 | 0x40, 0x1, None]
    assert samples[1].throttle_reason_names == ["hw_slowdown", "hw_thermal_slowdown"]
    assert samples[0].pci_bus_id == "00000000:18:00.0"
    assert samples[3].power_draw_w is None and samples[3].temperature_c == 36


def test_older_driver_throttle_field_name_and_not_supported() -> None:
    samples = parse_csv(_read("nvsmi_throttle_reasons_a100_525.csv"))
    assert [s.throttle_reasons for s in samples] == [4, 0]
    assert samples[0].fan_speed is None  # [Not Supported]
    assert samples[0].clocks_sm_mhz == 1410 and samples[0].memory_used_mib == 38012


def test_fields_in_any_order_and_aliases() -> None:
    fields = ["temperature.gpu", "clocks.mem", "index", "clocks_event_reasons.active", "clocks.sm"]
    parser = NvsmiCsvParser(fields)
    s = parser.feed("55, 2619, 3, 0x0000000000000020, 1410")
    assert s == GpuSample(
        index=3, temperature_c=55, clocks_mem_mhz=2619, clocks_sm_mhz=1410, throttle_reasons=0x20
    )
    assert (
        canonical_field("clocks_throttle_reasons.hw_slowdown") == "clocks_event_reasons.hw_slowdown"
    )
    assert canonical_field("clocks.current.memory [MHz]") == "clocks.current.memory"


def test_deprecated_and_bracketed_values_are_none() -> None:
    parser = NvsmiCsvParser(["index", "power.draw", "fan.speed", "pstate"])
    s = parser.feed("0, [Requested functionality has been deprecated], [Unknown Error], [N/A]")
    assert s == GpuSample(index=0)


def test_timestamp_in_the_node_time_zone() -> None:
    tz = timezone(timedelta(hours=8))
    parser = NvsmiCsvParser(["index", "timestamp"], tz=tz)
    s = parser.feed("0, 2025/03/01 18:00:00.000")
    assert s is not None
    assert s.timestamp == datetime(2025, 3, 1, 10, 0, tzinfo=UTC).timestamp()


def test_not_csv_at_all_is_a_parse_error_but_no_gpus_is_empty() -> None:
    with pytest.raises(ParseError, match="not nvidia-smi --query-gpu CSV"):
        parse_csv("NVIDIA-SMI has failed because it couldn't communicate with the driver.")
    assert parse_csv("No devices were found\n") == []
    assert parse_csv("") == []


def test_query_command_and_reason_names() -> None:
    cmd = query_command(interval_ms=1000)
    assert cmd.startswith("nvidia-smi --query-gpu=index,uuid,name,timestamp,")
    assert cmd.endswith("--format=csv,noheader,nounits -lms 1000")
    assert throttle_reason_names(0x104) == ["sw_power_cap", "display_clock_setting"]
    assert throttle_reason_names(0x1000) == ["unknown_0x1000"]


# --- properties --------------------------------------------------------------------

_VALID = "3, GPU-aaaa, NVIDIA H100 80GB HBM3, 2025/03/01 10:00:00.123, 97, 41, 61234, 81559, \
612.45, 700.00, 63, 1980, 2619, 0x0000000000000004, 0, P0, [N/A]"

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(st.lists(st.text(max_size=120), max_size=20))
def test_random_text_never_raises_and_every_line_is_accounted(lines: list[str]) -> None:
    parser = NvsmiCsvParser(QUERY_FIELDS)
    for line in lines:
        parser.feed(line)
    blank = sum(1 for ln in lines if not ln.strip().strip("\x00"))
    assert parser.lines == len(lines)
    assert parser.samples + parser.bad_lines + parser.headers + blank == len(lines)


@st.composite
def _mangled(draw: st.DrawFn) -> str:
    line = _VALID
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["cut", "insert", "delete", "comma", "swap"]))
        i = draw(st.integers(0, len(line)))
        if op == "cut":
            line = line[:i]
        elif op == "insert":
            line = line[:i] + draw(st.text(min_size=1, max_size=8)) + line[i:]
        elif op == "delete":
            line = line[:i] + line[i + draw(st.integers(1, 10)) :]
        elif op == "comma":
            line = line[:i] + "," + line[i:]
        else:
            cells = line.split(",")
            a, b = draw(st.integers(0, len(cells) - 1)), draw(st.integers(0, len(cells) - 1))
            cells[a], cells[b] = cells[b], cells[a]
            line = ",".join(cells)
    return line


@PROPS
@given(_mangled())
def test_mangled_lines_are_samples_with_sane_types_or_counted_bad(line: str) -> None:
    parser = NvsmiCsvParser(QUERY_FIELDS)
    sample = parser.feed(line)
    if sample is None:
        assert parser.bad_lines + parser.headers == 1 or not line.strip()
        return
    assert parser.bad_lines == 0
    for name in ("index", "utilization_gpu", "memory_used_mib", "temperature_c", "clocks_sm_mhz"):
        v = getattr(sample, name)
        assert v is None or isinstance(v, int)
    assert sample.power_draw_w is None or math.isfinite(sample.power_draw_w)
    assert sample.throttle_reasons is None or sample.throttle_reasons >= 0


@PROPS
@given(st.integers(1, 16), st.data())
def test_a_line_missing_fields_is_always_bad(drop: int, data: st.DataObject) -> None:
    cells = _VALID.split(", ")
    keep = data.draw(st.permutations(range(len(cells))))[: len(cells) - drop]
    parser = NvsmiCsvParser(QUERY_FIELDS)
    assert parser.feed(", ".join(cells[i] for i in sorted(keep))) is None
    assert parser.bad_lines == 1


_UNITS = {
    "utilization.gpu": "%",
    "utilization.memory": "%",
    "memory.used": "MiB",
    "memory.total": "MiB",
    "power.draw": "W",
    "power.limit": "W",
    "clocks.sm": "MHz",
    "clocks.mem": "MHz",
    "fan.speed": "%",
}
_HEADER_NAME = {
    "clocks.sm": "clocks.current.sm",
    "clocks.mem": "clocks.current.memory",
    "clocks_throttle_reasons.active": "clocks_event_reasons.active",
}
_MISSING = st.sampled_from(["[N/A]", "[Not Supported]", "[Unknown Error]"])


@st.composite
def _gpu(draw: st.DrawFn) -> dict[str, object]:
    def maybe(s: st.SearchStrategy[object]) -> object:
        return draw(st.one_of(st.none(), s))

    pct = st.integers(0, 100)
    return {
        "index": draw(st.integers(0, 63)),
        "uuid": draw(st.from_regex(r"GPU-[0-9a-f]{8}-[0-9a-f]{4}", fullmatch=True)),
        "name": draw(
            st.sampled_from(["NVIDIA H100 80GB HBM3", "NVIDIA A800-SXM4-80GB", "RTX 4090"])
        ),
        "timestamp": draw(st.integers(1_600_000_000_000, 1_900_000_000_000)) / 1000,
        "utilization.gpu": maybe(pct),
        "utilization.memory": maybe(pct),
        "memory.used": maybe(st.integers(0, 200_000)),
        "memory.total": maybe(st.integers(1, 200_000)),
        "power.draw": maybe(st.integers(0, 120_000).map(lambda x: x / 100)),
        "power.limit": maybe(st.integers(0, 120_000).map(lambda x: x / 100)),
        "temperature.gpu": maybe(st.integers(0, 110)),
        "clocks.sm": maybe(st.integers(0, 3000)),
        "clocks.mem": maybe(st.integers(0, 12000)),
        "clocks_throttle_reasons.active": maybe(st.integers(0, 0x1FF)),
        "ecc.errors.uncorrected.volatile.total": maybe(st.integers(0, 10_000)),
        "pstate": maybe(st.integers(0, 15).map(lambda p: f"P{p}")),
        "fan.speed": maybe(pct),
    }


def _cell(field: str, value: object, units: bool, missing: str) -> str:
    if value is None:
        return missing
    if field == "timestamp":
        assert isinstance(value, float)
        t = datetime.fromtimestamp(value, UTC)
        return t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
    if field == "clocks_throttle_reasons.active":
        assert isinstance(value, int)
        return f"0x{value:016x}"
    text = f"{value:.2f}" if isinstance(value, float) else str(value)
    unit = _UNITS.get(field)
    return f"{text} {unit}" if units and unit else text


@PROPS
@given(
    st.lists(_gpu(), min_size=1, max_size=4),
    st.permutations(QUERY_FIELDS),
    st.booleans(),
    st.booleans(),
    _MISSING,
)
def test_round_trip_any_order_units_header(
    gpus: list[dict[str, object]],
    order: list[str],
    units: bool,
    header: bool,
    missing: str,
) -> None:
    lines = []
    if header:
        lines.append(
            ", ".join(
                _HEADER_NAME.get(f, f) + (f" [{_UNITS[f]}]" if units and f in _UNITS else "")
                for f in order
            )
        )
    for g in gpus:
        lines.append(", ".join(_cell(f, g[f], units, missing) for f in order))
    parser = NvsmiCsvParser(None if header else order)
    samples = parser.feed_many(lines)
    assert parser.bad_lines == 0
    assert len(samples) == len(gpus)
    for s, g in zip(samples, gpus, strict=True):
        assert s.index == g["index"] and s.uuid == g["uuid"] and s.name == g["name"]
        assert s.timestamp == pytest.approx(g["timestamp"], abs=1e-3)
        assert s.utilization_gpu == g["utilization.gpu"]
        assert s.memory_used_mib == g["memory.used"]
        assert s.memory_total_mib == g["memory.total"]
        assert s.power_draw_w == g["power.draw"]
        assert s.power_limit_w == g["power.limit"]
        assert s.temperature_c == g["temperature.gpu"]
        assert s.clocks_sm_mhz == g["clocks.sm"] and s.clocks_mem_mhz == g["clocks.mem"]
        assert s.throttle_reasons == g["clocks_throttle_reasons.active"]
        assert s.ecc_uncorrected == g["ecc.errors.uncorrected.volatile.total"]
        assert s.pstate == g["pstate"] and s.fan_speed == g["fan.speed"]


_ZONES = (
    UTC,
    timezone(timedelta(hours=5, minutes=45)),
    timezone(timedelta(hours=-3, seconds=1, microseconds=7)),
    ZoneInfo("Asia/Shanghai"),
    ZoneInfo("America/New_York"),
    ZoneInfo("Europe/Dublin"),
)


@settings(max_examples=400, deadline=None)
@given(
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2099, 12, 31)),
    st.sampled_from(("", ".5", ".123", ".000001", ".999999", ".1234")),
    st.sampled_from(_ZONES),
    st.integers(0, 3),
)
def test_every_line_of_an_instant_gets_the_time_its_node_printed(
    when: datetime, fraction: str, zone: Any, lines: int
) -> None:
    """The stamps of one instant share their second (its conversion is remembered); each
    line still reads as the exact moment datetime gives for it, in the node's zone, DST
    changes included."""
    parser = NvsmiCsvParser(("timestamp", "index"), tz=zone)
    second = when.strftime("%Y/%m/%d %H:%M:%S")
    for gpu in range(lines + 1):
        text = second + (fraction if gpu % 2 == 0 else ".25")
        micro = int((fraction[1:] if gpu % 2 == 0 else "25").ljust(6, "0") or 0)
        want = when.replace(microsecond=micro, tzinfo=zone).timestamp()
        sample = parser.feed(f"{text}, {gpu}")
        assert sample is not None
        assert sample.timestamp == want
        assert sample.index == gpu
