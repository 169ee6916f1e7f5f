"""The provider model: a provider's behaviour as plain data (``ProviderModel``) and how it is built
from a measured or published profile (its cells, measured surface, published spread, saturation band and
wake-up term). It imports nothing else of ``planner.sim`` but ``spec`` and ``result``.

The names below are what the rest of ``planner.sim`` uses of it."""

from planner.sim.model.profile_adapter import provider_model_from_profile
from planner.sim.model.provider import (
    BILLED_OPERATIONS,
    BandwidthCurve,
    BandwidthPoint,
    Direction,
    HotObjectLimit,
    LatencyModel,
    ProviderModel,
    RateLimit,
    ServerQueue,
    SizedLatency,
    error_billing,
    error_status,
    measured_as,
)
from planner.sim.model.saturation import band_text, capacity_band
from planner.sim.model.wake_window import with_wake_up_at

__all__ = [
    "BILLED_OPERATIONS",
    "BandwidthCurve",
    "BandwidthPoint",
    "Direction",
    "HotObjectLimit",
    "LatencyModel",
    "ProviderModel",
    "RateLimit",
    "ServerQueue",
    "SizedLatency",
    "band_text",
    "capacity_band",
    "error_billing",
    "error_status",
    "measured_as",
    "provider_model_from_profile",
    "with_wake_up_at",
]
