"""Tests of the server under load and behind a proxy, query plans."""
