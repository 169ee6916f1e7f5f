"""Recording what an S3 client does, and pricing it at every provider.

``record(command, out, local=True)`` runs a command against a recording proxy (in front of a SeaweedFS server
started for the run, or an http:// endpoint) and returns the ``Recording``; ``price_mix(recording)`` bills a
month of its requests at each provider (``PricedMix``).
"""

from planner.recording.price import OperationShare, PricedMix, ProviderMix, price_mix
from planner.recording.session import OperationCount, Recording, record

__all__ = ["OperationCount", "OperationShare", "PricedMix", "ProviderMix", "Recording", "price_mix", "record"]
