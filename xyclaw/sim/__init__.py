"""The simulated GPU cloud: SSH servers that answer like GPU nodes, and an HTTP control plane."""
