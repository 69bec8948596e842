"""Tests of seasons, fixtures, standings, Swiss, cups, divisions, pairs, exports."""
