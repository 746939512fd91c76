"""Random numbers: TF's Philox streams (``philox.py``), random ops and candidate samplers."""
