from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.catalog import (
    Catalog,
    CatalogRowError,
    Offer,
    UnknownGpuError,
    builtin_dir,
    load_gpus,
    load_offers,
    normalise_gpu_name,
    offers_from_rows,
)

REQUIRED_GPUS = {
    "RTX4090",
    "A10",
    "L40S",
    "A100-40G",
    "A100-80G",
    "A800",
    "H100",
    "H800",
    "H20",
    "H200",
}
OFFER_HEADER = (
    "provider,offer_id,region,gpu,kind,gpus_per_node,nodes,fabric,price_per_gpu_hour,"
    "price_30d,currency,available_gpus,price_basis,price_30d_basis,note\n"
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.builtin()


def test_gpu_models_come_with_their_spec_sheet(catalog: Catalog) -> None:
    assert {g.name for g in catalog.gpus} >= REQUIRED_GPUS
    for gpu in catalog.gpus:
        assert (
            "datasheet" in gpu.source.lower()
            or "whitepaper" in gpu.source.lower()
            or ("product brief" in gpu.source.lower())
        ), gpu.name
    assert catalog.gpu("H100").bf16_tflops == pytest.approx(989.4)
    assert catalog.gpu("A800").fp8_tflops is None  # Ampere has no FP8 tensor cores
    assert catalog.gpu("rtx 4090").memory_gib == 24
    assert catalog.gpu("A100 80GB").memory_gib == 80


def test_builtin_offers_hold_what_seed_003_quotes(catalog: Catalog) -> None:
    sim = catalog.find(provider="sim")
    assert {o.region for o in sim} == {"Xiamen", "Yinchuan", "Ulanqab"}
    assert {o.currency for o in sim} == {"CNY"}
    on_demand = {(o.gpu, o.price_micro) for o in sim if o.kind == "node"}
    assert ("RTX4090", 1_900_000) in on_demand
    assert ("A800", 3_500_000) in on_demand
    assert min(o.price_30d_micro or 10**12 for o in sim) == 1_200_000
    single_sizes = {o.gpus_per_node for o in sim if o.kind == "node"}
    assert single_sizes >= {1, 2, 4, 8}
    for family in ("ib", "roce", "eth"):
        clusters = [o for o in catalog.find(fabric=family) if o.kind == "cluster"]
        counts = {n for o in clusters if o.gpus_per_node == 8 for n in o.gpu_counts}
        assert {16, 32} <= counts, family
    slices = [o for o in sim if o.kind == "slice"]
    assert slices and all(o.fabric == "ib-hdr-200" for o in slices)
    assert {n for o in slices for n in o.gpu_counts} == {64, 128}


def test_prices_not_from_the_seeds_are_marked_assumed(catalog: Catalog) -> None:
    for offer in catalog.offers:
        assert offer.price_basis in {"seed-003", "assumed"}, offer.offer_id
        if offer.gpu not in {"RTX4090", "A800"} or offer.kind != "node":
            assert offer.price_assumed, offer.offer_id


def test_gpu_names_are_normalised() -> None:
    assert normalise_gpu_name("NVIDIA GeForce RTX 4090") == "RTX4090"
    assert normalise_gpu_name("a100 80gb") == "A100-80G"
    assert normalise_gpu_name("A100-40GB") == "A100-40G"
    assert normalise_gpu_name("h100 sxm") == "H100"
    assert normalise_gpu_name("l40s") == "L40S"


def test_unknown_gpu_lookup_lists_known_models(catalog: Catalog) -> None:
    with pytest.raises(UnknownGpuError) as info:
        catalog.gpu("Z100")
    assert info.value.hint is not None and "A800" in info.value.hint


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "offers.csv"
    path.write_text(OFFER_HEADER + body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("row", "column", "words"),
    [
        ("acme,a1,Oslo,A800,node,8,1,none,abc,,CNY,,,,", "price_per_gpu_hour", "not an amount"),
        ("acme,a1,Oslo,Z900,node,8,1,none,3.5,,CNY,,,,", "gpu", "unknown GPU"),
        ("acme,a1,Oslo,A800,cluster,8,4|2,ib-hdr-200,3.5,,CNY,,,,", "nodes", "increasing"),
        ("acme,a1,Oslo,A800,cluster,8,2|4,infiniband,3.5,,CNY,,,,", "fabric", "not a fabric"),
        ("acme,a1,Oslo,A800,node,8,1,none,3.5,4.0,CNY,,,,", "price_30d", "at most"),
        ("acme,a1,Oslo,A800,node,8,1,none,3.5,,yuan,,,,", "currency", "3-letter"),
        ("acme,a1,Oslo,A800,box,8,1,none,3.5,,CNY,,,,", "kind", "not one of"),
        ("acme,a1,Oslo,A800,node,x,1,none,3.5,,CNY,,,,", "gpus_per_node", "whole number"),
    ],
)
def test_a_malformed_offer_row_names_file_line_and_column(
    tmp_path: Path, row: str, column: str, words: str
) -> None:
    good = "acme,a0,Oslo,A800,node,8,1,none,3.5,,CNY,,,,\n"
    path = write(tmp_path, "# a comment line\n" + good + row + "\n")
    with pytest.raises(CatalogRowError) as info:
        load_offers(path, known_gpus={"A800"})
    error = info.value
    assert error.line == 4  # header, comment, good row, bad row
    assert error.column == column
    assert str(path) in str(error) and "line 4" in str(error) and column in str(error)
    assert words in str(error)


def test_cross_column_rules_are_reported_on_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "acme,a1,Oslo,A800,cluster,8,2|4,none,3.5,,CNY,,,,\n")
    with pytest.raises(CatalogRowError, match=r"line 2.*fabric other than none"):
        load_offers(path)


def test_header_problems_are_caught(tmp_path: Path) -> None:
    path = tmp_path / "gpus.csv"
    path.write_text("name,memory_gib,colour\n", encoding="utf-8")
    with pytest.raises(CatalogRowError, match="unknown column") as info:
        load_gpus(path)
    assert info.value.column == "colour" and info.value.line == 1


def test_gpu_rows_are_checked(tmp_path: Path) -> None:
    bundled = (builtin_dir() / "gpus.csv").read_text(encoding="utf-8")
    path = tmp_path / "gpus.csv"
    path.write_text(bundled.replace("RTX4090,24,", "RTX4090,-24,"), encoding="utf-8")
    with pytest.raises(CatalogRowError) as info:
        load_gpus(path)
    assert info.value.column == "memory_gib"


def test_offers_from_other_providers_merge_into_the_catalog(catalog: Catalog) -> None:
    rows = [
        {
            "provider": "acme",
            "offer_id": "h100-8",
            "region": "Oslo",
            "gpu": "nvidia h100",
            "gpus_per_node": "8",
            "nodes": "1|2",
            "fabric": "ib-ndr-400",
            "price_per_gpu_hour": "2.5",
            "currency": "USD",
        }
    ]
    acme = offers_from_rows(rows, source="acme", known_gpus={g.name for g in catalog.gpus})
    merged = catalog.merge(acme)
    assert len(merged.offers) == len(catalog.offers) + 1
    assert "Oslo" in merged.regions and "Oslo" not in catalog.regions  # the original is untouched
    assert merged.find(provider="acme")[0].gpu == "H100"
    cheaper = Offer(**{**_fields(acme[0]), "price_micro": 2_000_000})
    again = merged.merge([cheaper])
    assert [o.price_micro for o in again.find(provider="acme")] == [2_000_000]
    refreshed = again.merge([], replace_provider="acme")
    assert refreshed.find(provider="acme") == []
    with pytest.raises(CatalogRowError, match=r"row 1.*price_per_gpu_hour"):
        offers_from_rows([{**rows[0], "price_per_gpu_hour": "free"}], source="acme")


def _fields(offer: Offer) -> dict[str, object]:
    return {name: getattr(offer, name) for name in Offer.__dataclass_fields__}
