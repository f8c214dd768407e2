"""Qt only (PySide6 + qasync): the tray, its menu and dialogs. Reaches the engine through the App."""
