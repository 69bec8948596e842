"""Production settings with the benchmarks' bare view added (``bench_moves_server``)."""

from cardclub.settings import *  # noqa: F403

ROOT_URLCONF = "tests.bench.bench_server_urls"
