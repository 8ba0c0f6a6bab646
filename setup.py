from setuptools import setup

setup(cffi_modules=["csrc/build_core.py:ffibuilder"])
