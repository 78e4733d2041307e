"""The package list, which pyproject.toml cannot compute: core and its subpackages as found, plus the
dashboard (app.py, serve.py, ui/, pages/) as ``radconcord_app``, mapped onto the checkout's root by
``[tool.setuptools.package-dir]`` (docs/ARCHITECTURE.md, "Packaging"). Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

DASHBOARD = {"app", "serve"}  # the root's modules that belong to the dashboard (not this file)


class BuildPy(build_py):
    def find_package_modules(self, package, package_dir):
        found = super().find_package_modules(package, package_dir)
        return [m for m in found if package != "radconcord_app" or m[1] in DASHBOARD]


setup(
    packages=[*find_packages(include=["core", "core.*"]), "radconcord_app", "radconcord_app.ui", "radconcord_app.pages"],
    cmdclass={"build_py": BuildPy},
)
