"""The club as one program: the commands that run it (see apps.py) and the task queue's upkeep
(queue.py)."""
