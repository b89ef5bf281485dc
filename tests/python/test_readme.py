"""The README's Python section, run verbatim: its install line names what its example imports, and the
example runs to the end in a fresh interpreter with the package as installed, so neither can rot."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_section():
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the Python section has one example"
    return section, blocks[0]


def test_install_lines_cover_the_example():
    section, code = python_section()
    install = " ".join(re.findall(r"`(pip install [^`]*)`", section))
    assert "pip install ." in install
    imports = " ".join(re.findall(r"^import (.*)$", code, re.M))
    if "pyopencl" in imports:  # numpy comes with the package itself
        assert "pyopencl" in install, f"the example imports pyopencl; the install lines are: {install}"


@pytest.mark.portability
def test_example_runs_verbatim():
    pytest.importorskip("pyopencl")
    _, code = python_section()
    env = dict(os.environ)
    env.pop("PYOPENCL_CTX", None)  # the example must not need it: it asks for no interaction
    done = subprocess.run([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"the README's example failed:\n{done.stderr}"
    assert float(done.stdout.strip().splitlines()[-1]) > 0  # a sum of maxima of positive values
