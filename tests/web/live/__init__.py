"""Tests of server push: streams, the push between processes, broker outages."""
