"""Per-second cost meter, budget guard and idle auto-release."""
