"""XyClaw: plan, rent, tune, run, watch and release rented GPU clusters."""

__version__ = "0.1.0"
