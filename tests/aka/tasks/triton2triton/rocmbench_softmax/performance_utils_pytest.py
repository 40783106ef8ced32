# A stand-in for the benchmark helper module AgentKernelArena writes into a
# rocmbench workspace (arena's fixture): wall-clock timing on the CPU.
import time


def do_bench_config(warm_up=10, repetition=100):
    return {"warm_up": warm_up, "repetition": repetition}


class PytestBenchmarker:
    def __init__(self, op_callable, op_name, config=None):
        self.fn = op_callable
        self.config = config or do_bench_config()

    def run_benchmark(self, current_params_dict=None, **kwargs):
        for _ in range(self.config["warm_up"]):
            self.fn()
        t0 = time.perf_counter()
        for _ in range(self.config["repetition"]):
            self.fn()
        ms = (time.perf_counter() - t0) * 1e3 / self.config["repetition"]
        print("timing_ms", ms, current_params_dict)
        return {"timing_ms": {"mean": ms}}


def save_all_benchmark_results(*args, **kwargs):
    pass
