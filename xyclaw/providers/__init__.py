"""Where clusters come from: the Provider interface and its adapters (sim, ssh, local)."""
