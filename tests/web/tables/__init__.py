"""Tests of the table machinery: open, join, move, clocks, the lobby, the log, the contract."""
