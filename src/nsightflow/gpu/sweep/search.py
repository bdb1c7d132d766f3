"""Which configurations a sweep evaluates, in what order, and what it already knows.

:class:`SweepCache` is the sweep's memory: one JSON line per evaluated configuration,
appended (and flushed to disk) the moment its result exists. An entry counts only for
the same cubin (its hash) and the same measurement settings (a key over sizes, seed
and sampling), so an edited kernel or another size is measured afresh. A sweep that
was interrupted, or whose process a configuration killed, starts again and takes
every cached configuration from here instead of the GPU.

The order: ``exhaustive`` evaluates every compiled configuration in the space's
order. Any other strategy name is one of Kernel Tuner's (``random_sample``,
``genetic_algorithm``, ``greedy_ils``, ``simulated_annealing``, ...): Kernel Tuner
chooses the configurations and nsightflow evaluates them through its own launcher and
cache. Kernel Tuner's own runner and cache file are not used: its runner compiles and
launches kernels itself, while here a configuration's cubin, verification and timing
belong to nsightflow's stages (so only its search strategies are used).
"""

import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.errors import NsightflowError

Evaluate = Callable[[dict[str, Any]], dict[str, Any] | None]
"""Evaluates one configuration; returns its result, or None once the budget is spent."""


class SweepCache:
    """Results of a sweep so far, one JSON line each (``cache.jsonl``).

    Args:
        path: The cache file (created on the first append).
        key: The measurement settings' key; lines with another key are ignored.
    """

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self._entries: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for line in path.read_text().splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short when the process was killed
                if isinstance(entry, dict) and entry.get("key") == key:
                    self._entries[str(entry["id"])] = entry

    def get(self, config_id: str, cubin_sha: str) -> dict[str, Any] | None:
        """The cached entry of a configuration built from this cubin, or None."""
        entry = self._entries.get(config_id)
        if entry is None or entry.get("cubin_sha") != cubin_sha:
            return None
        return entry

    def has(self, config_id: str, cubin_sha: str) -> bool:
        """Whether a configuration built from this cubin has a result."""
        return self.get(config_id, cubin_sha) is not None

    def append(self, config_id: str, cubin_sha: str, result: Mapping[str, Any]) -> None:
        """Record one result, durably, before anything else can go wrong."""
        entry = {
            "key": self.key,
            "id": config_id,
            "cubin_sha": cubin_sha,
            "result": dict(result),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as fh:
            fh.write(json.dumps(entry, default=float) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self._entries[config_id] = entry


def search(
    strategy: str,
    axes: Mapping[str, list[int]],
    configs: list[dict[str, Any]],
    evaluate: Evaluate,
    limits: tuple[int, int],
) -> int:
    """Evaluate configurations in the order the strategy chooses.

    Args:
        strategy: ``exhaustive`` or a Kernel Tuner strategy name.
        axes: The swept axes and their values (the space's).
        configs: The runnable configurations (``id``, ``params``, ...).
        evaluate: Runs one configuration (or returns its cached result).
        limits: (max_configs, seed): evaluations at most (0: no limit; a strategy
            only) and the strategy's random seed.

    Returns:
        The number of configurations evaluated (cached ones included).
    """
    if strategy == "exhaustive":
        done = 0
        for config in configs:
            if evaluate(config) is None:
                break
            done += 1
        return done
    return _kernel_tuner(strategy, axes, configs, evaluate, limits)


def _kernel_tuner(
    strategy: str,
    axes: Mapping[str, list[int]],
    configs: list[dict[str, Any]],
    evaluate: Evaluate,
    limits: tuple[int, int],
) -> int:
    """One of Kernel Tuner's strategies over the runnable configurations.

    Raises:
        SweepStrategyError: kernel_tuner is not installed, or has no such strategy.
    """
    kt = _import_kernel_tuner(strategy)
    names = list(axes)
    # tuned.yaml's points join the quick space with values off its axes: Kernel
    # Tuner's space is the product of the axes, so without their values it could
    # never choose them (the restriction still admits only the runnable points)
    axes = {
        a: sorted({*axes[a], *(int(c[col.PARAMS][a]) for c in configs)}) for a in names
    }
    by_values = {tuple(c[col.PARAMS][a] for a in names): c for c in configs}
    max_configs, seed = limits

    def runnable(p: Any) -> bool:
        # Kernel Tuner passes a dict of the values (one value when there is one axis)
        values = tuple(p[a] for a in names) if isinstance(p, dict) else (p,)
        return tuple(int(v) for v in values) in by_values

    space = kt.Searchspace({a: list(v) for a, v in axes.items()}, [runnable], 1024)
    distinct = min(max_configs or space.size, space.size)
    runner = _runner(kt, by_values, evaluate, distinct)
    # Kernel Tuner counts a repeated configuration as an evaluation again; the runner
    # stops at `distinct` different ones, this only bounds a strategy that cycles.
    fevals = REPEATS * distinct
    options = kt.Options(
        tune_params={a: list(v) for a, v in axes.items()},
        objective=["time"],
        objective_higher_is_better=[False],
        objectives=None,
        strategy_options=kt.Options(max_fevals=fevals),
        budget=kt.util.TuningBudget(None, fevals),
        max_fevals=fevals,
        verbose=False,
        quiet=True,
        metrics=None,
        cache={},
        cachefile=None,
        simulation_mode=False,
        restrictions=[runnable],
        restrictions_unmodified=[runnable],
        seed=seed,
        strategy=strategy,
        eps=1,
    )
    import numpy as np  # Kernel Tuner's strategies draw from numpy's global generator

    np.random.seed(seed)  # noqa: NPY002  (the generator their strategies draw from)
    kt.strategy_map[strategy].tune(space, runner, options)
    return len(runner.seen)


# Evaluations (repeats included) a strategy may ask for per distinct configuration.
REPEATS = 20


class SweepStrategyError(NsightflowError):
    """The configured search strategy cannot run here."""


def _import_kernel_tuner(strategy: str) -> Any:
    try:
        from kernel_tuner import util
        from kernel_tuner.interface import Options, strategy_map
        from kernel_tuner.runners.runner import Runner
        from kernel_tuner.searchspace import Searchspace
    except ImportError as exc:
        raise SweepStrategyError(
            f"config sweep.strategy: {strategy!r} is a Kernel Tuner strategy, and "
            "kernel_tuner is not installed: pip install 'nsightflow[tune]', or set "
            f"sweep.strategy: exhaustive ({exc})"
        ) from exc
    if strategy not in strategy_map:
        raise SweepStrategyError(
            f"config sweep.strategy: {strategy!r} is not one of Kernel Tuner's "
            f"strategies {sorted(strategy_map)} nor 'exhaustive'"
        )

    return SimpleNamespace(
        util=util,
        Options=Options,
        strategy_map=strategy_map,
        Runner=Runner,
        Searchspace=Searchspace,
    )


def _runner(
    kt: Any,
    by_values: Mapping[tuple[int, ...], dict[str, Any]],
    evaluate: Evaluate,
    distinct: int,
) -> Any:
    """A Kernel Tuner runner that evaluates through nsightflow (cache first).

    It stops the strategy (spends its budget) once ``distinct`` different
    configurations have results, or when nsightflow's own time budget is spent.
    """
    device = SimpleNamespace(max_threads=1024, name="nsightflow", quiet=True)

    class NsightflowRunner(kt.Runner):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.seen: set[tuple[int, ...]] = set()
            self.dev = device

        def get_device_info(self) -> Any:
            return device

        def get_environment(self, tuning_options: Any) -> dict[str, Any]:
            return {"device_name": "nsightflow"}

        def run(self, parameter_space: Any, tuning_options: Any) -> list[Any]:
            results: list[Any] = []
            for element in parameter_space:
                if tuning_options.budget.is_done():
                    results.append(None)
                    continue
                tuning_options.budget.add_evaluations(1)
                values = tuple(int(v) for v in element)
                params = dict(zip(tuning_options.tune_params, values, strict=True))
                outcome = evaluate(by_values[values])
                if outcome is None:  # nsightflow's own budget is spent
                    tuning_options.budget.add_evaluations(10**9)
                    results.append(None)
                    continue
                self.seen.add(values)
                if len(self.seen) >= distinct:
                    tuning_options.budget.add_evaluations(10**9)
                cost = outcome.get(col.GEOMEAN_US)
                if (
                    outcome.get(col.STATUS) == Status.OK
                    and cost
                    and math.isfinite(cost)
                ):
                    params["time"] = float(cost)
                else:
                    params["__error__"] = kt.util.RuntimeFailedConfig()
                results.append(params)
            return results

    return NsightflowRunner()
