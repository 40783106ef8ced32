"""performance_utils_pytest.py - arena's stand-in for the benchmark helper
module that AgentKernelArena writes into a rocmbench workspace (its task
folders ship a stub that raises when imported).  arena's own code, not
AKA's: the same three names with the same calls, so that a rocmbench file
imports, and an agent's own pytest run in its workspace prints a time.

arena's verdict never uses these times: its recorder replaces
PytestBenchmarker, and the evaluator times the recorded calls itself
(docs/aka.md).  Here a call is timed with CUDA events on a GPU and the
wall clock on a CPU, median of `repetition` calls after `warm_up`.
"""
import json
import os
import statistics
import time

_results = []


def do_bench_config(warm_up=25, repetition=100, **kwargs):
    return {"warm_up": warm_up, "repetition": repetition}


def _time_once(fn):
    try:
        import torch
        if torch.cuda.is_available():
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            return start.elapsed_time(end)
    except ImportError:
        pass
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


class PytestBenchmarker:
    def __init__(self, op_callable, op_name="op", config=None, **kwargs):
        self.fn = op_callable
        self.name = op_name
        self.config = config or do_bench_config()

    def run_benchmark(self, current_params_dict=None, gbps_calculator=None,
                      tflops_calculator=None, **kwargs):
        for _ in range(self.config.get("warm_up", 0)):
            self.fn()
        times = [_time_once(self.fn)
                 for _ in range(max(1, self.config.get("repetition", 1)))]
        ms = statistics.median(times)
        params = dict(current_params_dict or {})
        res = {"op_name": self.name, "params": params,
               "timing_ms": {"mean": statistics.mean(times), "median": ms,
                             "min": min(times), "max": max(times)}}
        for key, calc in (("gbps", gbps_calculator), ("tflops", tflops_calculator)):
            if calc is not None:
                try:
                    res[key] = calc(params, ms)
                except Exception:  # noqa: B902 - a calculator's own bug
                    pass
        _results.append(res)
        print("%s %s: %.4f ms" % (self.name, params, ms))
        return res


def save_all_benchmark_results(output_directory):
    os.makedirs(output_directory, exist_ok=True)
    with open(os.path.join(output_directory, "benchmark_results.json"), "w") as f:
        json.dump(_results, f, indent=1)
