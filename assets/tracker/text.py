"""Untrusted text (titles, bodies, commit messages, URLs from the sources) made safe to
show: control characters dropped, and only http(s) links kept. HTML escaping itself is
the template engine's (autoescape) and the XML writer's job."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from markupsafe import Markup

#: C0 and C1 control characters except tab and newline (XML 1.0 forbids most of them,
#: and a terminal or a page can be made to misrender with them).
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain_text(value: object) -> object:
    """`value` without control characters where it is a string, else unchanged (markup the
    site made itself, such as a chart's SVG, is left as markup)."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return CONTROL_CHARACTERS.sub("", value)


def safe_url(value: object) -> str:
    """`value` where it is an http(s) URL, else "" (no `javascript:`, `data:` or relative links)."""
    if not isinstance(value, str):
        return ""
    url = plain_text(value).strip()
    return url if urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc else ""
