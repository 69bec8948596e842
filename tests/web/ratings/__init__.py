"""Tests of ratings, leaderboards and their charts."""
