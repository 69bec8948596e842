"""Tests of the admin: actions, permissions, secrets it must not show."""
