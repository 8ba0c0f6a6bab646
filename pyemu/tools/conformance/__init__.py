"""The OpenCL C conformance corpus (corpus/) and its runner (runner.py)."""
