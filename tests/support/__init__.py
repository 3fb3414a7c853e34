"""Helpers shared by tests and benchmarks: review documents to export, headless Chromium."""
