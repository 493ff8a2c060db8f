"""XyClaw: plan, rent, tune, run, watch and release rented GPU clusters."""

from xyclaw import httpx_without_cli as _httpx_without_cli

__version__ = "0.1.0"

# Before anything imports httpx (the providers, openai, langsmith): see the module.
_httpx_without_cli.install()
