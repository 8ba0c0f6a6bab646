"""The OpenCL C conformance corpus: kernels run on pyemu and on PoCL, compared.

    kernels/*.cl   the OpenCL C sources, as a GPU programmer writes them
    model.py       what a case is: kernel, build options, arguments, sizes
    compare.py     how an output is compared: exactly, in ulp, or by tolerance
    bounds.py      the OpenCL specification's ulp bounds per built-in
    cases*.py      the cases themselves (cases.py collects them)

`python -m pyemu conformance` (pyemu/tools/conformance/runner.py) runs every case through
pyemu.opencl and through PyOpenCL on PoCL and prints one line per case;
tests/conformance/test_conformance.py asserts each case passes.
"""
