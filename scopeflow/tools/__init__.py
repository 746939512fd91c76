"""TF's command-line tools that TF1 programs import as modules
(``tensorflow.python.tools``): ``inspect_checkpoint``."""
