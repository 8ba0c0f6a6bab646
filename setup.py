"""Build script: the C core through cffi, and the data the package needs at
run time copied into it.

pyproject.toml holds the metadata.  Two things need code:

* ``cffi_modules`` builds csrc/ into the extension ``pyemu._native``;
* the device headers (the top-level include/pyemu/, which kernels are
  compiled against and which stays where it is in the repository) and the
  example programs (examples/cuda/, examples/opencl/) are copied into the
  build as ``pyemu/include/`` and ``pyemu/examples/``, so a regular install
  (``pip install .``, a wheel, a wheel built from the sdist) carries them.
  An editable install (``pip install -e .``) copies nothing: there the
  package finds them in the source tree beside it.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent

# repository folder -> folder inside the installed package, with what to take
PACKAGE_DATA_TREES = [
    ("include", "pyemu/include", ("*.h", "*.hpp", "*.py")),
    ("examples", "pyemu/examples", ("*.py", "*.md")),
]


def _data_files(src: Path, patterns):
    """The files under `src` matching `patterns`, without caches."""
    found = set()
    for pattern in patterns:
        found.update(p for p in src.rglob(pattern)
                     if p.is_file() and "__pycache__" not in p.parts)
    return sorted(found)


class build_py_with_data(build_py):
    """build_py that also copies include/ and examples/ into the package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for src_name, dest_name, patterns in PACKAGE_DATA_TREES:
            src = HERE / src_name
            if not src.is_dir():
                raise SystemExit(f"setup.py: {src} is missing; the package needs it "
                                 "(is MANIFEST.in complete?)")
            for path in _data_files(src, patterns):
                target = Path(self.build_lib) / dest_name / path.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)

    def get_outputs(self, include_bytecode=True):
        outputs = list(super().get_outputs(include_bytecode))
        if getattr(self, "editable_mode", False):
            return outputs
        for src_name, dest_name, patterns in PACKAGE_DATA_TREES:
            src = HERE / src_name
            if src.is_dir():
                outputs += [str(Path(self.build_lib) / dest_name / p.relative_to(src))
                            for p in _data_files(src, patterns)]
        return outputs


class build_ext_in_place(build_ext):
    """build_ext that, building in place (an editable install), removes a core
    left in pyemu/ under another name (`python csrc/build_core.py` makes
    pyemu/_native.cpython-*.so): Python would import that one instead."""

    def run(self):
        super().run()
        if not (self.inplace or getattr(self, "editable_mode", False)):
            return
        built = {Path(p).resolve() for p in self.get_outputs()}
        built |= {(HERE / Path(p).relative_to(self.build_lib)).resolve()
                  for p in self.get_outputs() if Path(p).is_relative_to(self.build_lib)}
        for old in (HERE / "pyemu").glob("_native*.so"):
            if old.resolve() not in built:
                old.unlink()


setup(cffi_modules=["csrc/build_core.py:ffibuilder"],
      cmdclass={"build_py": build_py_with_data, "build_ext": build_ext_in_place})
