"""A stand-in for AgentKernelArena's gpumode correctness script, which
this fixture names in its correctness_command: arena never runs it (it
records the module, its functional twin and get_inputs() itself,
docs/aka.md), and a gpumode folder is recognised by this path."""
import sys

if __name__ == "__main__":
    sys.exit("arena's gpumode fixture: evaluate it with arena")
