# A stub, as AgentKernelArena's rocmbench folders ship it (arena's fixture,
# not AKA's file): AKA writes the real helper into each workspace, arena
# puts its own stand-in (engine/runner/python/aka_perf_utils.py) in place.
raise RuntimeError("performance_utils_pytest.py is a stub in task sources")
