"""Raises while it is imported: a compile_error that says so."""
import torch

raise RuntimeError("this module refuses to load")
