"""The real clouds' API addresses, in a module of their own: registering the providers
(every command does) needs them, their HTTP clients only once a provider is used."""

from __future__ import annotations

LAMBDA_API_URL = "https://cloud.lambdalabs.com/api/v1"
AUTODL_API_URL = "https://api.autodl.com"
VASTAI_API_URL = "https://console.vast.ai"
RUNPOD_REST_URL = "https://rest.runpod.io/v1"
RUNPOD_GRAPHQL_URL = "https://api.runpod.io/graphql"
# REST v2: the only listing of Instant Clusters (docs.runpod.io/api-reference-v2/clusters)
RUNPOD_CLUSTERS_URL = "https://api.runpod.io/v2"
