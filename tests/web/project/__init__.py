"""Tests of checks on the project itself: settings, README, import graph, signals."""
