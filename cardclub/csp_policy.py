"""django-csp's middleware with the policy written once rather than built for every response
(issue 34).

django-csp builds the header afresh on every response (``dataclasses.asdict`` of its parts, the
directives copied, sorted and joined), which cost about as much CPU as reading the session. The
club's pages use no nonce and no per-view policy, so the header is the same on every response
while the settings stay the same: it is built once per setting and kept. A response or request
that does use one of django-csp's per-view tools (a nonce, ``@csp_update``, ``@csp_replace``,
``@csp_override``) goes through django-csp's own code, as does a debug page.
"""

from __future__ import annotations

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as _CSPMiddleware
from csp.utils import build_policy
from django.conf import settings

# What a view or a template sets for a policy of its own (django-csp's decorators and nonce).
PER_RESPONSE = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)
_kept: tuple = (None, None, "", "")


def _headers() -> tuple[str, str]:
    """The policy and report-only headers of the settings as they are, built once for them
    (a test's ``override_settings`` gives new settings objects, so a new build)."""
    global _kept
    policy = getattr(settings, "CONTENT_SECURITY_POLICY", None)
    report_only = getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
    kept_policy, kept_report_only, header, header_ro = _kept
    if policy is kept_policy and report_only is kept_report_only and kept_policy is not None:
        return header, header_ro
    header, header_ro = build_policy(), build_policy(report_only=True)
    _kept = (policy, report_only, header, header_ro)
    return header, header_ro


class CSPMiddleware(_CSPMiddleware):
    def process_response(self, request, response):
        if (
            settings.DEBUG
            or getattr(request, "_csp_nonce", None) is not None
            or any(getattr(response, name, None) is not None for name in PER_RESPONSE)
        ):
            return super().process_response(request, response)
        header, header_ro = _headers()
        for name, value, exempt, setting in (
            (HEADER, header, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
            (
                HEADER_REPORT_ONLY,
                header_ro,
                "_csp_exempt_ro",
                "CONTENT_SECURITY_POLICY_REPORT_ONLY",
            ),
        ):
            if not value or name in response or getattr(response, exempt, False) is not False:
                continue
            prefixes = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
            if not request.path_info.startswith(tuple(prefixes)):
                response[name] = value
        # As django-csp: a nonce asked for after the header is written is an error, not a
        # nonce the header does not carry.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
