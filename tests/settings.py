"""The test suite's settings: the club's settings in development mode, asked for explicitly.

Production is the default of cardclub.settings, so the tests say they are development. It is
set in the environment (not only here) so servers the tests start in subprocesses inherit it;
a DEBUG already in the environment wins, so ``DEBUG=0 SECRET_KEY=… pytest`` still works.
Django's test runner turns DEBUG off while tests run, as it always does.
"""

import os

os.environ.setdefault("DEBUG", "1")

from cardclub.settings import *  # noqa: E402,F403
