"""Variables and their scopes: ``Variable`` and resource variables (``variables.py``),
``variable_scope``/``get_variable`` and the variable store (``variable_scope.py``),
partitioned variables and partitioners, and Python's operators on tensors and variables."""
