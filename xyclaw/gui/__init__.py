"""The desktop app (PySide6 + pyqtgraph). It shows and forwards; the engine decides."""
