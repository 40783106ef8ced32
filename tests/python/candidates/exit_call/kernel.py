"""Exits the runner from launch(): a runtime_error naming the exit."""
import os


def launch(args, params):
    os._exit(3)
