"""Tests of sign-up, log-in, sessions and the login lock-out."""
