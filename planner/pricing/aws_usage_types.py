"""What an AWS Price List offer file's words mean in planner's price tables: the usage types
``planner.pricing.aws_offer`` prices (usage type and operation to kind, class and key), the units
each kind must be offered in, and the region each location name or usage-type prefix stands for.
"""

from __future__ import annotations

import re

# Usage types carry a region prefix (EUC1-, APN1-, EU- for Ireland; none or USE1- for us-east-1).
REGION_PREFIX = re.compile(r"^[A-Z]{2,4}[0-9]?-(?=[A-Z][a-z])")
INTER_REGION = re.compile(r"^[A-Z]{2,4}[0-9]?-[A-Z]{2,4}[0-9]?-AWS-Out-Bytes$")

# Offers without a regionCode name the location instead.
LOCATIONS = {
    "US East (N. Virginia)": "us-east-1",
    "US East (Ohio)": "us-east-2",
    "US West (N. California)": "us-west-1",
    "US West (Oregon)": "us-west-2",
    "EU (Ireland)": "eu-west-1",
    "EU (London)": "eu-west-2",
    "EU (Paris)": "eu-west-3",
    "EU (Frankfurt)": "eu-central-1",
    "EU (Stockholm)": "eu-north-1",
    "Asia Pacific (Tokyo)": "ap-northeast-1",
    "Asia Pacific (Seoul)": "ap-northeast-2",
    "Asia Pacific (Osaka)": "ap-northeast-3",
    "Asia Pacific (Singapore)": "ap-southeast-1",
    "Asia Pacific (Sydney)": "ap-southeast-2",
    "Asia Pacific (Mumbai)": "ap-south-1",
    "Canada (Central)": "ca-central-1",
    "South America (Sao Paulo)": "sa-east-1",
}

# What each usage type prices: (kind, class, key). Keyed by (usage type, operation); an operation of
# None matches any operation, for usage types the offer prices once.
Target = tuple[str, str, str]
USAGE_TYPES: dict[tuple[str, str | None], Target] = {
    ("TimedStorage-ByteHrs", None): ("storage", "standard", ""),
    ("TimedStorage-SIA-ByteHrs", None): ("storage", "standard-ia", ""),
    ("TimedStorage-ZIA-ByteHrs", None): ("storage", "onezone-ia", ""),
    ("TimedStorage-GIR-ByteHrs", None): ("storage", "glacier-ir", ""),
    ("TimedStorage-GlacierByteHrs", None): ("storage", "glacier-flexible", ""),
    ("TimedStorage-GDA-ByteHrs", None): ("storage", "deep-archive", ""),
    ("TimedStorage-INT-FA-ByteHrs", None): ("storage", "intelligent-tiering", ""),
    ("TimedStorage-INT-IA-ByteHrs", None): ("access_tier", "intelligent-tiering", "infrequent"),
    ("TimedStorage-INT-AIA-ByteHrs", None): ("access_tier", "intelligent-tiering", "archive-instant"),
    ("Requests-Tier1", None): ("request", "standard", "tier-1"),
    ("Requests-Tier2", None): ("request", "standard", "tier-2"),
    ("Requests-SIA-Tier1", None): ("request", "standard-ia", "tier-1"),
    ("Requests-SIA-Tier2", None): ("request", "standard-ia", "tier-2"),
    ("Requests-ZIA-Tier1", None): ("request", "onezone-ia", "tier-1"),
    ("Requests-ZIA-Tier2", None): ("request", "onezone-ia", "tier-2"),
    ("Requests-GIR-Tier1", None): ("request", "glacier-ir", "tier-1"),
    ("Requests-GIR-Tier2", None): ("request", "glacier-ir", "tier-2"),
    ("Requests-INT-Tier1", None): ("request", "intelligent-tiering", "tier-1"),
    ("Requests-INT-Tier2", None): ("request", "intelligent-tiering", "tier-2"),
    ("Requests-GLACIER-Tier1", "PutObject"): ("request", "glacier-flexible", "tier-1"),
    ("Requests-GLACIER-Tier1", "S3-GlacierTransition"): ("request", "glacier-flexible", "lifecycle-transition"),
    ("Requests-GLACIER-Tier2", None): ("request", "glacier-flexible", "tier-2"),
    ("Requests-GDA-Tier1", None): ("request", "deep-archive", "tier-1"),
    ("Requests-GDA-Tier2", None): ("request", "deep-archive", "tier-2"),
    ("Requests-Tier3", "S3-GDATransition"): ("request", "deep-archive", "lifecycle-transition"),
    ("Requests-Tier3", "RestoreObject"): ("retrieval_requests", "glacier-flexible", "standard"),
    ("Retrieval-SIA", None): ("retrieval", "standard-ia", "standard"),
    ("Retrieval-ZIA", None): ("retrieval", "onezone-ia", "standard"),
    ("Retrieval-GIR", None): ("retrieval", "glacier-ir", "standard"),
    ("Standard-Retrieval-Bytes", "RestoreObject"): ("retrieval", "glacier-flexible", "standard"),
    ("Standard-Retrieval-Bytes", "DeepArchiveRestoreObject"): ("retrieval", "deep-archive", "standard"),
    ("Monitoring-Automation-INT", None): ("monitoring", "intelligent-tiering", ""),
    ("DataTransfer-Out-Bytes", None): ("egress", "", "internet"),
}
UNITS = {
    "storage": ("GB-Mo",),
    "access_tier": ("GB-Mo",),
    "request": ("Requests",),
    "retrieval_requests": ("Requests",),
    "retrieval": ("GB",),
    "monitoring": ("Objects",),
    "egress": ("GB",),
    "inter_region": ("GB",),
}
