"""Sampled mutation testing: how many single-token rule bugs would the tests catch?

    python3 tools/mutate.py                              # every module in pyproject
    python3 tools/mutate.py games/trimac/moves.py -n 60 --seed 7 -j 2
    python3 tools/mutate.py --list                       # the configured modules

Why this script and not `mutmut run`: mutmut 3 mutates every function of every
configured file and runs them all (thousands of mutants, hours on two shared
cores), and it cannot draw a bounded random sample. Here mutmut is used as a
library for what it is good at -- its mutation operators
(`mutmut.mutation.file_mutation.create_mutations`) -- and this script does the
sampling and the running: for each module a seeded random sample of its
mutants, each written into a private copy of the checkout, and only that
module's tests (`[tool.pbmserv.mutate.modules]` in pyproject.toml) run on it,
with `-x` so a killed mutant costs one failing test.

A mutant is *killed* when its tests fail (or time out: an endless loop is a
caught bug), *survived* when they pass. Survivors judged equivalent to the
original (no test could tell them apart, because the behaviour is the same)
are listed with the reason in tools/equivalent_mutants.toml, keyed by module
and the changed lines, and are reported apart: the kill rate is
killed / (killed + survived), equivalents excluded. Every other survivor's
diff is printed: each one is a rule bug that the suite lets through.

Not part of the test suite (it takes minutes); run it after changing a rules
module or its tests.
"""

from __future__ import annotations

import argparse
import difflib
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tools" / "equivalent_mutants.toml"
EQUIVALENTS_DIR = ROOT / "tools" / "equivalent_mutants"
# What a private copy of the checkout needs for the tests to run.
COPY_IGNORE = shutil.ignore_patterns(
    ".git", "__pycache__", "*.pyc", "mutants", ".pytest_cache", ".ruff_cache", "*.egg-info"
)


@dataclass(frozen=True)
class Mutant:
    """One mutation of a module: its number in mutmut's order and the mutated source."""

    module: str
    index: int
    source: str
    diff: str
    key: str  # the changed lines, whitespace-stripped: stable across unrelated edits


@dataclass
class Verdict:
    mutant: Mutant
    outcome: str  # "killed", "timeout", "survived", "equivalent"
    reason: str = ""


def load_config() -> dict[str, list[str]]:
    """Module -> the test paths that guard it, from pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        data = tomllib.load(f)
    return data["tool"]["pbmserv"]["mutate"]["modules"]


def load_equivalents() -> dict[tuple[str, str], str]:
    """(module, key) -> why that surviving mutant cannot be told apart.

    Read from tools/equivalent_mutants.toml and from every file in
    tools/equivalent_mutants/ (one per game or area, so work on two areas
    never edits the same file)."""
    files = [EQUIVALENTS, *sorted(EQUIVALENTS_DIR.glob("*.toml"))]
    found: dict[tuple[str, str], str] = {}
    for path in files:
        if not path.exists():
            continue
        with open(path, "rb") as f:
            data = tomllib.load(f)
        found.update({(e["module"], e["change"].strip()): e["why"] for e in data.get("mutant", [])})
    return found


def change_key(diff_lines: list[str]) -> str:
    """The removed and added lines of a diff, stripped: what identifies a mutant."""
    changed = [
        line[0] + " " + line[1:].strip()
        for line in diff_lines
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return "\n".join(changed)


def mutants_of(module: str, tree_root: Path = ROOT) -> list[Mutant]:
    """Every mutant mutmut's operators make of `module`, in a stable order.

    The module is read from `tree_root`, the copy the mutants will run in, so
    editing the checkout during a run cannot mix two versions."""
    from mutmut.mutation.file_mutation import create_mutations, deep_replace

    original = (tree_root / module).read_text()
    tree, mutations, _classes, _functions = create_mutations(module, original)
    result = []
    for index, mutation in enumerate(mutations):
        mutated = deep_replace(tree, mutation.original_node, mutation.mutated_node)
        source = mutated.code  # type: ignore[union-attr]
        if source == original:
            continue
        diff_lines = list(
            difflib.unified_diff(
                original.splitlines(), source.splitlines(), module, module + " (mutant)", n=1, lineterm=""
            )
        )
        result.append(Mutant(module, index, source, "\n".join(diff_lines), change_key(diff_lines)))
    return result


def run_tests(copy: Path, tests: list[str], timeout: float) -> tuple[str, float]:
    """Run `tests` in a checkout copy; 'passed', 'failed' or 'timeout', and seconds."""
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    # No bytecode: a mutant the same size as the original, written within the
    # same second, would otherwise be run from the original's stale .pyc.
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *tests],
            cwd=copy,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start
    return ("passed" if proc.returncode == 0 else "failed"), time.monotonic() - start


def judge(mutant: Mutant, tests: list[str], copies: queue.Queue[Path], timeout: float,
          equivalents: dict[tuple[str, str], str]) -> Verdict:
    """Write the mutant into a free copy, run its tests, put the original back."""
    copy = copies.get()
    target = copy / mutant.module
    original = target.read_text()
    try:
        target.write_text(mutant.source)
        outcome, _seconds = run_tests(copy, tests, timeout)
    finally:
        target.write_text(original)
        copies.put(copy)
    if outcome == "failed":
        return Verdict(mutant, "killed")
    if outcome == "timeout":
        return Verdict(mutant, "timeout")
    why = equivalents.get((mutant.module, mutant.key))
    if why is not None:
        return Verdict(mutant, "equivalent", why)
    return Verdict(mutant, "survived")


def mutate_module(module: str, tests: list[str], args: argparse.Namespace,
                  copies: queue.Queue[Path], equivalents: dict[tuple[str, str], str]) -> list[Verdict]:
    """Sample the module's mutants and judge each; prints one line per mutant with -v."""
    copy = copies.get()
    everything = mutants_of(module, copy)
    baseline, seconds = run_tests(copy, tests, args.timeout or 600)
    copies.put(copy)
    rng = random.Random(f"{args.seed}:{module}")
    count = len(everything) if args.sample <= 0 else min(args.sample, len(everything))
    sample = sorted(rng.sample(everything, count), key=lambda m: m.index)
    if baseline != "passed":
        print(f"{module}: its tests fail without any mutation ({baseline}); skipped", flush=True)
        return []
    timeout = args.timeout or max(60.0, 5 * seconds)
    print(f"{module}: {count} of {len(everything)} mutants, tests {' '.join(tests)} "
          f"({seconds:.1f} s unmutated)", flush=True)
    lock = threading.Lock()
    verdicts: list[Verdict] = []

    def one(mutant: Mutant) -> None:
        verdict = judge(mutant, tests, copies, timeout, equivalents)
        with lock:
            verdicts.append(verdict)
            if args.verbose:
                print(f"  #{mutant.index}: {verdict.outcome}", flush=True)
                if verdict.outcome == "survived":
                    print(mutant.diff, flush=True)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(one, sample))
    verdicts.sort(key=lambda v: v.mutant.index)
    return verdicts


def summary(module: str, verdicts: list[Verdict]) -> str:
    """One line: killed / survived / equivalent and the kill rate of the rest."""
    counts = {k: sum(1 for v in verdicts if v.outcome == k)
              for k in ("killed", "timeout", "survived", "equivalent")}
    caught = counts["killed"] + counts["timeout"]
    judged = caught + counts["survived"]
    rate = f"{100 * caught / judged:.0f}%" if judged else "-"
    return (f"{module}: killed {caught} (timeouts {counts['timeout']}), survived "
            f"{counts['survived']}, equivalent {counts['equivalent']}; kill rate {rate}")


def main(argv: list[str] | None = None) -> int:
    config = load_config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="modules to mutate (default: all configured)")
    parser.add_argument("-n", "--sample", type=int, default=40,
                        help="mutants per module, drawn at random (0: all); default 40")
    parser.add_argument("--seed", default="18", help="sampling seed; default 18")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="mutants run at once; default 1")
    parser.add_argument("--timeout", type=float, default=0,
                        help="seconds per mutant (default: 5x the unmutated run, at least 60)")
    parser.add_argument("--tests", nargs="+", help="override the configured tests of every module")
    parser.add_argument("--list", action="store_true", help="list the configured modules and exit")
    parser.add_argument("--show-equivalent", action="store_true",
                        help="also print the diffs of survivors listed as equivalent")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="one line per mutant as it is judged (survivors with their diff)")
    args = parser.parse_args(argv)
    if args.list:
        for module, tests in config.items():
            print(f"{module}: {' '.join(tests)}")
        return 0
    modules = args.modules or list(config)
    unknown = [m for m in modules if m not in config and not args.tests]
    if unknown:
        parser.error(f"not configured (give --tests): {', '.join(unknown)}")
    equivalents = load_equivalents()
    results: dict[str, list[Verdict]] = {}
    with tempfile.TemporaryDirectory(prefix="pbmserv-mutate-") as tmp:
        copies: queue.Queue[Path] = queue.Queue()
        for i in range(max(1, args.jobs)):
            copy = Path(tmp) / f"copy{i}"
            shutil.copytree(ROOT, copy, ignore=COPY_IGNORE)
            copies.put(copy)
        for module in modules:
            tests = args.tests or config[module]
            results[module] = mutate_module(module, tests, args, copies, equivalents)
            print(summary(module, results[module]), flush=True)
    print()
    for module, verdicts in results.items():
        for v in verdicts:
            if v.outcome == "survived" or (args.show_equivalent and v.outcome == "equivalent"):
                label = "SURVIVED" if v.outcome == "survived" else f"equivalent ({v.reason})"
                print(f"--- {label}: {module} mutant #{v.mutant.index}")
                print(v.mutant.diff)
                print()
    print("Summary")
    for module, verdicts in results.items():
        print("  " + summary(module, verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
