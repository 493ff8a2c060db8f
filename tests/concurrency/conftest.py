"""The window walk (test_window_beside_cli.py) uses the History page's fixtures: a real
simulated-cloud run's history, and an engine on it whose providers all fail."""

from tests.gui_history.conftest import (  # noqa: F401 - fixtures, used by name
    history_db,
    history_facts,
    offline,
    offline_engine,
    offline_parts,
)
