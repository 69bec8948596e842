"""Tests of moves, cards and results in words, in Spanish and English."""
