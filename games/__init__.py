# The compiled engines, when built from the source as it is now (games/compiled.py).
from games import compiled

compiled.use()
