"""Tests of each game's table and what it hides (Escoba, Schotten Totten, Scout)."""
