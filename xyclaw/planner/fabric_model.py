"""How much of a cluster's compute survives its network, derived from seed 004's tables.

The factor multiplies a GPU's single-node utilization; 1.0 means no loss.

* One node (or fabric ``none``): 1.0. GPUs talk over NVLink or PCIe; no
  inter-node penalty.
* InfiniBand: seed 004 measured 90%, 88% and 85% utilization on 8, 16 and 32
  H100s, so relative to 8 cards ``f_ib = 1.0, 0.978, 0.944``, interpolated in
  log2(cards) and extended above 32 cards with the 16 -> 32 step (x0.965 per
  doubling): 0.911 at 64, 0.879 at 128.
* RoCE: the same runs took 3.5 vs 3.2, 8.9 vs 7.8 and 24.5 vs 15.2 days, so a
  RoCE run takes ``r = 1.094, 1.141, 1.612`` times the InfiniBand time at 8,
  16 and 32 cards (about 9%, 14% and 61% more). ``r`` is interpolated in
  log2(cards), held at 1.094 below 8 cards and extended above 32 with the
  16 -> 32 slope (2.08 at 64, 2.55 at 128: "above 32 cards only InfiniBand
  holds up"). ``f_roce = f_ib / r``.
* Link rate: the seed measured at 200 Gb/s. A GPU that wants more than the
  fabric gives (seed 004 rule 6: NVLink-class cards want 200 Gb/s, PCIe cards
  are fine on 100) spends proportionally longer in communication: the excess
  time over the ideal, ``1/f - 1``, is multiplied by ``wanted / rate``.
  This scaling is an assumption (communication time ~ 1/bandwidth), not a
  seed figure.
* Plain TCP Ethernet: seed 004 gives 35-45% GPU utilization against
  InfiniBand's 92%, so ``f_eth = 0.40 / 0.92 x f_ib`` (about 2.3x the IB
  time); beyond 128 cards another 0.6 (seed 000: congestion costs more than
  40% of training efficiency there).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from xyclaw.catalog.fabrics import Fabric

FloatArray = npt.NDArray[np.float64]

SEED_CARDS = (8.0, 16.0, 32.0)
IB_UTILIZATION = (0.90, 0.88, 0.85)
IB_DAYS = (3.2, 7.8, 15.2)
ROCE_DAYS = (3.5, 8.9, 24.5)
TCP_UTILIZATION = 0.40  # seed 004: plain TCP/IP Ethernet 35-45%
IB_PEAK_UTILIZATION = 0.92  # seed 004: IB up to 92%
TCP_LARGE_CLUSTER = 128
TCP_LARGE_PENALTY = 0.6

_LOG_CARDS = np.log2(np.asarray(SEED_CARDS))
_IB_RELATIVE = np.asarray(IB_UTILIZATION) / IB_UTILIZATION[0]
_ROCE_RATIO = np.asarray(ROCE_DAYS) / np.asarray(IB_DAYS)


def _log_linear(cards: FloatArray, values: FloatArray, *, log_extend: bool) -> FloatArray:
    """Interpolate ``values`` over log2(cards); flat below 8 cards, extended above 32."""
    x = np.log2(np.maximum(cards, SEED_CARDS[0]))
    inside = np.interp(x, _LOG_CARDS, values)
    if log_extend:  # multiplicative step per doubling
        step = math.log(values[-1] / values[-2])
        beyond = values[-1] * np.exp(step * (x - _LOG_CARDS[-1]))
    else:  # additive step per doubling
        beyond = values[-1] + (values[-1] - values[-2]) * (x - _LOG_CARDS[-1])
    return np.where(x > _LOG_CARDS[-1], beyond, inside)


def ib_scaling(cards: FloatArray) -> FloatArray:
    """``f_ib``: InfiniBand utilization relative to 8 cards."""
    return _log_linear(cards, _IB_RELATIVE, log_extend=True)


def roce_time_ratio(cards: FloatArray) -> FloatArray:
    """``r``: RoCE run time over InfiniBand run time at the same card count."""
    return _log_linear(cards, _ROCE_RATIO, log_extend=False)


def _rate_shortfall(factor: FloatArray, wants_gbps: FloatArray, gbps: int) -> FloatArray:
    scale = np.maximum(1.0, wants_gbps / max(gbps, 1))
    return 1.0 / (1.0 + (1.0 / factor - 1.0) * scale)


def fabric_factor(
    fabric: Fabric, cards: FloatArray, nodes: FloatArray, wants_gbps: FloatArray
) -> FloatArray:
    """Utilization multiplier for ``cards`` GPUs on ``nodes`` nodes of ``fabric``."""
    if fabric.family == "ib":
        factor = _rate_shortfall(ib_scaling(cards), wants_gbps, fabric.gbps)
    elif fabric.family == "roce":
        factor = _rate_shortfall(
            ib_scaling(cards) / roce_time_ratio(cards), wants_gbps, fabric.gbps
        )
    elif fabric.family == "eth":
        factor = TCP_UTILIZATION / IB_PEAK_UTILIZATION * ib_scaling(cards)
        factor = np.where(cards > TCP_LARGE_CLUSTER, factor * TCP_LARGE_PENALTY, factor)
    else:
        factor = np.ones_like(cards)
    return np.where(nodes > 1, factor, 1.0)


def fabric_factor_one(fabric: Fabric, cards: int, nodes: int, wants_gbps: int) -> float:
    """:func:`fabric_factor` for one shape."""
    one = np.asarray([float(cards)])
    value = fabric_factor(fabric, one, np.asarray([float(nodes)]), np.asarray([float(wants_gbps)]))
    return float(value[0])
