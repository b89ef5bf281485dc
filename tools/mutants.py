#!/usr/bin/env python3
"""Mutants as code: each tests/mutants/NAME.patch breaks one promise of the library on purpose, and its
header names the tests that must catch it:

    # catches: SUITE:TEST [TEST ...]      a Check suite's tests (run by name, CLPOOL_CHECK_TESTS)
    # catches: pytest:EXPRESSION           tests/python tests selected with pytest -k
    # why: one line on what the mutant breaks

Each named test must pass on the tree as it is (checked once per test first: a misspelt or broken test
would otherwise "catch" everything). For each mutant this applies the patch to a scratch copy and runs
only those tests: kernel mutants
(kernels/ only) through CLPOOL_KERNEL_DIR against the existing build, Python mutants through PYTHONPATH,
host mutants in a scratch build of the whole tree. A mutant is caught when one of its tests fails, and
survives otherwise. Not part of CI's budget: run it before a release and whenever a listed test changes,
and record the result in docs/testing.md.

    tools/mutants.py [--build build] [--python build/venv/bin/python] [NAME ...]
    tools/mutants.py --check [NAME ...]   every patch applies to the tree (ctest mutant_patches)

Exit status: 0 every mutant caught, 1 one survived (or could not be applied), 2 usage error.
Each test process runs with the environment ctest gives it (ctest --show-only=json-v1), minus the tag
filters that split a suite across ctests."""
import argparse
import functools
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "tests" / "mutants"


def header(path, key):
    return [line.split(":", 1)[1].strip() for line in path.read_text().splitlines()
            if line.startswith(f"# {key}:")]


def touched(path):
    return [line[6:].strip() for line in path.read_text().splitlines() if line.startswith("+++ b/")]


@functools.lru_cache(maxsize=None)
def ctest_env(build, suite):
    """The test's command and environment as ctest runs it (asked once per suite)."""
    out = subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1", "-R", f"^{suite}$"],
                         capture_output=True, text=True, check=True).stdout
    tests = json.loads(out)["tests"]
    if not tests:
        raise SystemExit(f"mutants.py: ctest has no test {suite} in {build}")
    env, cwd = {}, str(build)
    for prop in tests[0].get("properties", []):
        if prop["name"] == "ENVIRONMENT":
            env.update(item.split("=", 1) for item in prop["value"])
        if prop["name"] == "WORKING_DIRECTORY":
            cwd = prop["value"]
    return tuple(tests[0]["command"]), tuple(env.items()), cwd


def apply(patch, scratch):
    done = subprocess.run(["patch", "-p1", "-s", "-d", str(scratch), "-i", str(patch)], capture_output=True, text=True)
    return done.returncode == 0, done.stdout + done.stderr


def run_catch(catch, build, args, kind="", scratch=None, extra=None):
    """Runs one '# catches:' entry; True when its tests pass."""
    what, _, tests = catch.partition(":")
    if what == "pytest":
        env = dict(os.environ, CLPOOL_LIBRARY=str(build / "libclpool.so"), CLPOOL_CACHE_DIR="off",
                   PYTHONPATH=str(scratch / "python" if kind == "python" else ROOT / "python"))
        cmd, cwd = [args.python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", tests,
                    str(ROOT / "tests" / "python")], str(ROOT)
    else:
        command, test_env, cwd = ctest_env(pathlib.Path(args.build).resolve(), what)
        cmd = [str(build / "tests" / what), *command[1:]]
        env = dict(os.environ, **dict(test_env))
        for key in ("CK_EXCLUDE_TAGS", "CK_INCLUDE_TAGS", "CK_RUN_CASE", "CK_RUN_SUITE"):
            env.pop(key, None)
        env["CLPOOL_CHECK_TESTS"] = tests
    env.update(extra or {})
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=1800).returncode == 0


def run_one(name, args):
    patch = MUTANTS / f"{name}.patch"
    catches = header(patch, "catches")
    files = touched(patch)
    if not catches or not files:
        return "unusable", "no '# catches:' line or no file in the patch"
    kind = ("kernel" if all(f.startswith("kernels/") for f in files)
            else "python" if all(f.startswith("python/") for f in files) else "host")
    scratch = pathlib.Path(tempfile.mkdtemp(prefix=f"clpool-mutant-{name}-"))
    try:
        build = pathlib.Path(args.build).resolve()
        extra = {}
        if kind == "kernel":
            shutil.copytree(ROOT / "kernels", scratch / "kernels")
            extra["CLPOOL_KERNEL_DIR"] = str(scratch / "kernels")
        elif kind == "python":
            shutil.copytree(ROOT / "python", scratch / "python")
        else:  # the tracked tree, patched and built on its own
            listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                                    check=True).stdout.decode().split("\0")
            for rel in filter(None, listed):
                dest = scratch / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / rel, dest)
        ok, message = apply(patch, scratch)
        if not ok:
            return "unusable", f"the patch does not apply: {message.strip()}"
        if kind == "host":
            suites = sorted({c.split(":", 1)[0] for c in catches if not c.startswith("pytest:")})
            subprocess.run(["cmake", "-S", str(scratch), "-B", str(scratch / "build"), "-DCMAKE_BUILD_TYPE=Release"],
                           capture_output=True, check=True)
            subprocess.run(["cmake", "--build", str(scratch / "build"), "-j", str(os.cpu_count() or 2), "--target",
                            "clpool", *suites], capture_output=True, check=True)
            build = scratch / "build"
        for catch in catches:
            if not run_catch(catch, build, args, kind, scratch, extra):
                return "caught", catch
        return "survived", ", ".join(catches)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check(names):
    """--check: every patch names its tests and applies to the tree as it is (patch --dry-run on a copy of
    the files it touches), so a patch whose context moved is found when the code changes, not at the next
    run. Returns the count that do not."""
    bad = 0
    for name in names:
        patch = MUTANTS / f"{name}.patch"
        files = touched(patch)
        problem = "no '# catches:' or '# why:' line, or no file" if not (header(patch, "catches") and
                                                                        header(patch, "why") and files) else ""
        # one suite per line: a second "SUITE:" on it would be taken for a test name of the first
        if not problem and any(":" in word for c in header(patch, "catches") for word in c.split()[1:]):
            problem = "a '# catches:' line names two suites (one line each)"
        if not problem:
            scratch = pathlib.Path(tempfile.mkdtemp(prefix=f"clpool-mutant-check-{name}-"))
            try:
                for rel in files:
                    (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / rel, scratch / rel)
                done = subprocess.run(["patch", "-p1", "-s", "--dry-run", "-d", str(scratch), "-i", str(patch)],
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    problem = "does not apply: " + (done.stdout + done.stderr).strip().splitlines()[0]
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
        if problem:
            print(f"stale     {name}: {problem}", flush=True)
            bad += 1
    print(f"{len(names) - bad} of {len(names)} mutant patches apply")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"), help="a configured and built tree (tests on)")
    ap.add_argument("--python", default=str(ROOT / "build" / "venv" / "bin" / "python"))
    ap.add_argument("--check", action="store_true", help="only check that every patch applies (no build, no test)")
    ap.add_argument("names", nargs="*", help="mutants to run (default: all of tests/mutants)")
    args = ap.parse_args()
    names = args.names or sorted(p.stem for p in MUTANTS.glob("*.patch"))
    missing = [n for n in names if not (MUTANTS / f"{n}.patch").is_file()]
    if missing:
        print(f"mutants.py: no tests/mutants/{missing[0]}.patch", file=sys.stderr)
        return 2
    if args.check:
        return 1 if check(names) else 0
    bad = 0
    build = pathlib.Path(args.build).resolve()
    baseline = {}
    for name in names:  # every test named must pass unmutated
        for catch in header(MUTANTS / f"{name}.patch", "catches"):
            if catch not in baseline:
                baseline[catch] = run_catch(catch, build, args)
                if not baseline[catch]:
                    print(f"broken    {catch}: fails on the tree as it is (or names no test)", flush=True)
    for name in names:
        if not all(baseline.get(c, False) for c in header(MUTANTS / f"{name}.patch", "catches")):
            print(f"unusable  {name}: a test it names fails unmutated", flush=True)
            bad += 1
            continue
        result, detail = run_one(name, args)
        why = (header(MUTANTS / f"{name}.patch", "why") or [""])[0]
        print(f"{result:9} {name}: {why} ({detail})", flush=True)
        bad += result != "caught"
    print(f"{len(names) - bad} of {len(names)} mutants caught")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
