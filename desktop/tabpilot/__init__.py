"""Tabpilot: AI coding agents read and drive your own browser, on localhost, under your control."""

__version__ = "0.1.0"
