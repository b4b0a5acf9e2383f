"""The real-commands differential test (issue 34): run_real.py and its list."""
