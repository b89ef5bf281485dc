"""The public API's documentation and types: numpy-style docstrings on every public function and class (each
parameter with its default, Returns, Raises, a runnable Examples section, which runs here), help() renders
them, py.typed ships, and mypy --strict passes on the package and on code that uses it."""
import doctest
import inspect
import pathlib
import pydoc
import re
import subprocess
import sys

import pytest

import clpool

REPO = pathlib.Path(__file__).resolve().parents[2]
OPS = [clpool.max_pool, clpool.average_pool, clpool.lp_pool, clpool.max_unpool, clpool.global_max_pool,
       clpool.global_average_pool, clpool.global_lp_pool, clpool.max]
PUBLIC = OPS + [clpool.Context, clpool.Context.from_pyopencl, clpool.devices, clpool.DeviceInfo]
NAMES = [getattr(o, "__qualname__", o.__name__) for o in PUBLIC]


def section(doc, title):
    """The text of a numpy-style section (up to the next underlined title)."""
    match = re.search(rf"^\s*{title}\n\s*-+\n(.*?)(?=^\s*\w[\w ]*\n\s*-+\n|\Z)", doc, re.M | re.S)
    assert match, f"no {title} section"
    return match.group(1)


@pytest.mark.parametrize("obj", PUBLIC, ids=NAMES)
def test_numpy_style_docstring(obj):
    doc = inspect.getdoc(obj)
    assert doc and len(doc.splitlines()[0]) <= 110
    for title in ("Examples",) + (("Parameters", "Returns", "Raises") if obj in OPS else ()):
        assert section(doc, title).strip(), title
    assert ">>> " in section(doc, "Examples")
    if obj is clpool.DeviceInfo:
        attributes = section(doc, "Attributes")
        assert all(f in attributes for f in clpool.DeviceInfo._fields)


@pytest.mark.parametrize("op", OPS, ids=[o.__name__ for o in OPS])
def test_every_parameter_is_documented_with_its_default(op):
    params = section(inspect.getdoc(op), "Parameters")
    entries = {}  # name: its entry's text, from its line to the next entry's
    for match in re.finditer(r"^(\S[^\n]*?) : ([^\n]*)\n((?:^ [^\n]*\n?)*)", params, re.M):
        for name in match.group(1).split(", "):
            entries[name.lstrip("*")] = match.group(2) + "\n" + match.group(3)
    for name, p in inspect.signature(op).parameters.items():
        assert name in entries, f"{op.__name__}: {name} is not documented"
        if p.default is not inspect.Parameter.empty:
            text = entries[name]
            assert "default" in text.lower() or "optional" in text, f"{op.__name__}: {name}'s default"
            if p.default is not None:
                assert repr(p.default) in text or str(p.default) in text, f"{op.__name__}: {name}={p.default!r}"
    if "pads" in entries:
        assert "[begin_0, ..., begin_{n-1}, end_0, ..., end_{n-1}]" in entries["pads"]


@pytest.mark.parametrize("obj", PUBLIC, ids=NAMES)
def test_help_renders_the_docstring(obj):
    text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    assert "Examples" in text and inspect.getdoc(obj).splitlines()[0] in text
    if obj in OPS:
        assert "Parameters" in text and "Returns" in text and "Raises" in text


@pytest.mark.parametrize("obj", PUBLIC, ids=NAMES)
def test_examples_run(obj):
    if obj is clpool.Context.from_pyopencl:
        pytest.importorskip("pyopencl")
    finder, runner = doctest.DocTestFinder(recurse=False), doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(obj, globs={}) if t.examples]
    assert tests
    report = []
    for t in tests:
        runner.run(t, out=report.append)
    assert runner.failures == 0 and runner.tries >= 2, "".join(report)


def test_py_typed_ships_with_the_package():
    assert (pathlib.Path(clpool.__file__).parent / "py.typed").is_file()
    pyproject = REPO / "pyproject.toml"
    if pyproject.is_file():  # wheel.packages names the whole package directory: py.typed goes in the wheel
        assert re.search(r'^wheel\.packages = \["python/clpool"\]$', pyproject.read_text(), re.M)


USES = '''
from typing import TYPE_CHECKING, Any, List, Tuple

import numpy as np
import numpy.typing as npt

import clpool
from clpool import *  # noqa: F403

if TYPE_CHECKING:
    from typing_extensions import assert_type

x = np.zeros((1, 2, 4, 4), np.float32)
assert_type(clpool.max_pool(x, [2, 2], strides=(2, 2)), npt.NDArray[Any])
assert_type(clpool.max_pool(x, np.array([2, 2]), return_indices=True), Tuple[npt.NDArray[Any], npt.NDArray[Any]])
assert_type(clpool.max(x, 0.5, np.float32(1), out=x), npt.NDArray[Any])
assert_type(clpool.lp_pool(x, [2, 2], p=np.float32(3)), npt.NDArray[Any])
assert_type(clpool.max_unpool(x, x.astype(np.int64), [2, 2], output_shape=x.shape), npt.NDArray[Any])
assert_type(max(1, 2), int)  # the built-in, after the star import
assert_type(devices(), List[DeviceInfo])  # noqa: F405
with clpool.Context(device=0) as ctx:
    assert_type(clpool.global_lp_pool(x, p=3, ctx=ctx), npt.NDArray[Any])
try:
    pass
except clpool.InvalidTypeError as e:
    assert_type(e.status, str)
'''

USES_PYOPENCL = '''
import pyopencl as cl
import pyopencl.array as cla


def device(q: cl.CommandQueue, a: cla.Array, ev: cl.Event) -> None:
    assert_type(clpool.max_pool(a, [2, 2], queue=q, wait_for=[ev]), cla.Array)
    assert_type(clpool.max_pool(a, [2, 2], return_indices=True, out=(None, a)), Tuple[cla.Array, cla.Array])
    assert_type(clpool.max(a, 1.0, a), cla.Array)
    assert_type(clpool.max(1.0, a), cla.Array)
    assert_type(clpool.global_average_pool(a, out=a), cla.Array)
'''

MISUSES = '''
import numpy as np

import clpool

x = np.zeros((1, 2, 4, 4), np.float32)
clpool.lp_pool(x, [2, 2], p="2")
clpool.max_pool(x, 2)
clpool.global_max_pool(x, ctx=3)
'''


def run_mypy(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    package = REPO / "python" / "clpool"
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                           f"--cache-dir={tmp_path / 'cache'}", str(package), str(path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)


def test_mypy_strict(tmp_path):
    """The package and typical uses of it pass mypy --strict; misuses fail it (its types are not Any)."""
    pytest.importorskip("mypy")
    if not (REPO / "python" / "clpool" / "__init__.py").is_file():
        pytest.skip("the package's sources are not beside the tests")
    try:
        import pyopencl.array  # noqa: F401
        uses = USES + USES_PYOPENCL
    except ImportError:
        uses = USES
    done = run_mypy(tmp_path, "uses.py", uses)
    assert done.returncode == 0, done.stdout + done.stderr
    done = run_mypy(tmp_path, "misuses.py", MISUSES)
    errors = [line for line in done.stdout.splitlines() if "misuses.py" in line and ": error:" in line]
    assert [int(line.split(":")[1]) for line in errors] == [7, 8, 9], done.stdout
