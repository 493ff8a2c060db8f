"""Reading API request bodies: every 400 names the field and what is allowed."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xyclaw.catalog import Offer, normalise_gpu_name, parse_fabric
from xyclaw.sim.cloud.errors import bad_request
from xyclaw.sim.cloud.keys import parse_public_key
from xyclaw.sim.cloud.settings import ERROR_STATUSES, Faults

# The one-click images of the rental offer (seed 003), and a bare OS.
IMAGES = ("pytorch-2.1", "deepspeed", "megatron-lm", "colossal-ai", "ubuntu-22.04")
DEFAULT_IMAGE = "pytorch-2.1"
CREATE_FIELDS = (
    "gpu", "gpu_count", "gpus_per_node", "region", "fabric", "image", "name", "ssh_public_key",
    "terminate_at", "spot", "joins",
)  # fmt: skip
UPDATE_FIELDS = ("terminate_at",)
# Deadlines are UTC epoch seconds: after 2001-09-09 and before the year 2286.
MIN_DEADLINE = 1e9
MAX_DEADLINE = 1e10
MAX_NAME = 64
MAX_KEY = 200


@dataclass(frozen=True)
class ClusterRequest:
    """A valid create request, matched to the offer that rents it."""

    offer: Offer
    gpu_count: int
    image: str
    name: str | None
    ssh_public_key: str
    terminate_at: float | None = None
    spot: bool = False  # preemptible, at the spot price (issue 32)
    joins: str | None = None  # the running cluster whose fabric the nodes join (issue 34)

    @property
    def node_count(self) -> int:
        return self.gpu_count // self.offer.gpus_per_node


def check_idempotency_key(key: str | None) -> str:
    if key is None or not key.strip():
        raise bad_request(
            "the Idempotency-Key header is required: send a new unique key for each cluster "
            "you mean to create, and the same key when you retry that request"
        )
    key = key.strip()
    if len(key) > MAX_KEY or not key.isprintable():
        raise bad_request(f"the Idempotency-Key header must be printable, at most {MAX_KEY} chars")
    return key


def _object(body: Any, what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise bad_request(f"the body of {what} must be a JSON object")
    return body


def _unknown(body: dict[str, Any], allowed: Sequence[str], what: str) -> None:
    extra = sorted(set(body) - set(allowed))
    if extra:
        raise bad_request(
            f"unknown field{'s' if len(extra) > 1 else ''} {', '.join(extra)} in {what}; "
            f"allowed: {', '.join(allowed)}"
        )


def _string(body: dict[str, Any], name: str, *, required: bool) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise bad_request(f"field {name} is required")
        return None
    if not isinstance(value, str) or not value.strip():
        raise bad_request(f"field {name} must be a non-empty string")
    return value.strip()


def _integer(body: dict[str, Any], name: str, *, required: bool, minimum: int) -> int | None:
    value = body.get(name)
    if value is None:
        if required:
            raise bad_request(f"field {name} is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise bad_request(f"field {name} must be a whole number of at least {minimum}")
    return value


def _number(body: dict[str, Any], name: str, low: float, high: float) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not low <= value <= high
    ):
        raise bad_request(f"field {name} must be a number from {low:g} to {high:g}")
    return float(value)


def _choose(value: str, allowed: Sequence[str], field: str, context: str) -> str:
    for candidate in allowed:
        if candidate.casefold() == value.casefold():
            return candidate
    raise bad_request(f"{field} {value!r} is not offered{context}; offered: {', '.join(allowed)}")


def _shapes(offers: Sequence[Offer]) -> str:
    return "; ".join(
        f"{', '.join(map(str, o.gpu_counts))} cards ({o.gpus_per_node} per node, {o.offer_id})"
        for o in offers
    )


def parse_create(body: Any, offers: Sequence[Offer]) -> ClusterRequest:
    """Check a ``POST /v1/clusters`` body and find the offer it rents (the cheapest that fits)."""
    data = _object(body, "POST /v1/clusters")
    _unknown(data, CREATE_FIELDS, "POST /v1/clusters")
    gpu_text = _string(data, "gpu", required=True)
    region_text = _string(data, "region", required=True)
    fabric_text = _string(data, "fabric", required=True)
    gpu_count = _integer(data, "gpu_count", required=True, minimum=1)
    per_node = _integer(data, "gpus_per_node", required=False, minimum=1)
    image = _string(data, "image", required=False) or DEFAULT_IMAGE
    name = _string(data, "name", required=False)
    key_line = _string(data, "ssh_public_key", required=True)
    joins = _string(data, "joins", required=False)
    assert gpu_text and region_text and fabric_text and gpu_count and key_line  # required above

    region = _choose(region_text, sorted({o.region for o in offers}), "region", "")
    in_region = [o for o in offers if o.region == region]
    gpu = _choose(normalise_gpu_name(gpu_text), sorted({o.gpu for o in in_region}), "gpu",
                  f" in {region}")  # fmt: skip
    of_gpu = [o for o in in_region if o.gpu == gpu]
    try:
        fabric = parse_fabric(fabric_text).name
    except ValueError as exc:
        raise bad_request(f"field fabric: {exc}") from None
    fabrics = sorted({o.fabric for o in of_gpu})
    if fabric not in fabrics:
        raise bad_request(
            f"fabric {fabric} is not offered for {gpu} in {region}; offered: {', '.join(fabrics)}"
        )
    shaped = [o for o in of_gpu if o.fabric == fabric]
    if per_node is not None:
        if gpu_count % per_node:
            raise bad_request(
                f"gpu_count {gpu_count} is not a multiple of gpus_per_node {per_node}"
            )
        sizes = sorted({o.gpus_per_node for o in shaped})
        if per_node not in sizes:
            raise bad_request(
                f"gpus_per_node {per_node} is not offered for {gpu} on {fabric} in {region}; "
                f"offered: {', '.join(str(s) for s in sizes)}"
            )
        shaped = [o for o in shaped if o.gpus_per_node == per_node]
    fitting = [
        o
        for o in shaped
        if gpu_count in o.gpu_counts
        # nodes that join a running cluster: any whole number of them, on a multi-node offer
        or (joins is not None and o.kind != "node" and gpu_count % o.gpus_per_node == 0)
    ]
    if not fitting:
        raise bad_request(
            f"gpu_count {gpu_count} of {gpu} on {fabric} in {region} is not offered; "
            f"offered: {_shapes(shaped)}"
        )
    offer = min(fitting, key=lambda o: (o.price_micro, o.offer_id))
    if image not in IMAGES:
        raise bad_request(f"image {image!r} is not offered; offered: {', '.join(IMAGES)}")
    if name is not None and (len(name) > MAX_NAME or not name.isprintable()):
        raise bad_request(f"field name must be printable and at most {MAX_NAME} characters")
    try:
        parse_public_key(key_line)
    except ValueError as exc:
        raise bad_request(f"field ssh_public_key: {exc}") from None
    spot = data.get("spot", False)
    if not isinstance(spot, bool):
        raise bad_request("field spot must be true or false")
    return ClusterRequest(offer, gpu_count, image, name, key_line, _deadline(data), spot, joins)


def _deadline(data: dict[str, Any]) -> float | None:
    """``terminate_at``: null (no deadline) or UTC epoch seconds (a past one ends it at once)."""
    if data.get("terminate_at") is None:
        return None
    value = _number(data, "terminate_at", MIN_DEADLINE, MAX_DEADLINE)
    return value


def parse_update(body: Any) -> dict[str, float | None]:
    """Check a ``PATCH /v1/clusters/{id}`` body: the fields to change."""
    data = _object(body, "PATCH /v1/clusters/{id}")
    _unknown(data, UPDATE_FIELDS, "PATCH /v1/clusters/{id}")
    if "terminate_at" not in data:
        raise bad_request('nothing to change: send {"terminate_at": EPOCH_SECONDS or null}')
    return {"terminate_at": _deadline(data)}


FAULT_FIELDS = (
    "error_rate", "error_status", "timeout_rate", "timeout_s", "provision_delay_s",
    "per_node_delay_s", "terminate_delay_s", "fail_nodes", "rate_limit_per_s", "capacity",
    "reset", "spot_preemptions_per_hour", "spot_notice_s",
)  # fmt: skip
MAX_DELAY_S = 3600.0
MAX_SPOT_RATE = 36_000.0  # spot preemptions an hour: at most one every 0.1 s of a cluster's life


def apply_faults(body: Any, faults: Faults, defaults: Faults, offers: Sequence[Offer]) -> Faults:
    """A new Faults with the body's fields applied (``reset: true`` starts from the defaults)."""
    data = _object(body, "POST /v1/_faults")
    _unknown(data, FAULT_FIELDS, "POST /v1/_faults")
    reset = data.get("reset", False)
    if not isinstance(reset, bool):
        raise bad_request("field reset must be true or false")
    base = defaults if reset else faults
    new = Faults(**{**base.to_json(), "capacity": {r: dict(g) for r, g in base.capacity.items()}})
    for name in ("error_rate", "timeout_rate"):
        value = _number(data, name, 0.0, 1.0)
        if value is not None:
            setattr(new, name, value)
    for name in (
        "timeout_s",
        "provision_delay_s",
        "per_node_delay_s",
        "terminate_delay_s",
        "spot_notice_s",  # issue 32
    ):
        value = _number(data, name, 0.0, MAX_DELAY_S)
        if value is not None:
            setattr(new, name, value)
    spot_rate = _number(data, "spot_preemptions_per_hour", 0.0, MAX_SPOT_RATE)  # issue 32
    if spot_rate is not None:
        new.spot_preemptions_per_hour = spot_rate
    rate = _number(data, "rate_limit_per_s", 0.0, 1e6)
    if rate is not None:
        new.rate_limit_per_s = rate
    status = data.get("error_status")
    if status is not None:
        if status not in ERROR_STATUSES or isinstance(status, bool):
            raise bad_request(
                f"field error_status must be one of {', '.join(map(str, ERROR_STATUSES))}"
            )
        new.error_status = int(status)
    fail = _integer(data, "fail_nodes", required=False, minimum=0)
    if fail is not None:
        new.fail_nodes = fail
    capacity = data.get("capacity")
    if capacity is not None:
        _merge_capacity(new, capacity, offers)
    return new


def _merge_capacity(faults: Faults, capacity: Any, offers: Sequence[Offer]) -> None:
    example = 'such as {"Xiamen": {"A800": 64}}'
    if not isinstance(capacity, dict):
        raise bad_request(f"field capacity must map regions to GPUs to cards, {example}")
    regions = sorted({o.region for o in offers})
    for region_text, per_gpu in capacity.items():
        region = _choose(str(region_text), regions, "capacity region", "")
        if not isinstance(per_gpu, dict):
            raise bad_request(f"capacity.{region} must map GPUs to cards, {example}")
        gpus = sorted({o.gpu for o in offers if o.region == region})
        for gpu_text, cards in per_gpu.items():
            gpu = _choose(normalise_gpu_name(str(gpu_text)), gpus, "capacity GPU", f" in {region}")
            if isinstance(cards, bool) or not isinstance(cards, int) or cards < 0:
                raise bad_request(f"capacity.{region}.{gpu} must be a whole number of cards >= 0")
            faults.capacity.setdefault(region, {})[gpu] = cards
