"""Tests of rematch, challenges, chat, takebacks, who is online, watching, notifications."""
