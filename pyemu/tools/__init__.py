"""The tools around the library: the command line (cli.py), the benchmark
(bench.py), the terminology table (terms.py) and the OpenCL C conformance
run (conformance/)."""
