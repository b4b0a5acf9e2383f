# As a wheel's torch/version.py says it (annotated, as torch 2.x writes it).
from typing import Optional

__version__ = "2.11.0+cu130"
cuda: Optional[str] = "13.0"
