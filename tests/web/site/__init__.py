"""Tests of pages as a whole: error pages, CSP, contrast, favicon."""
