"""Tests of the task worker, its bot moves and sweeps, lost tasks."""
