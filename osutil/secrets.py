"""Passwords out of anything printed: :func:`redact` removes them from every form an
address can take, well-formed or not (issue 40 item 14).

Forms covered: ``user:password@`` anywhere in a token (``tcp://bob:pw@h:1``, a single
slash ``tcp:/bob:pw@h:1``, after the host ``tcp://h:1/bob:pw@``, no scheme
``bob:pw@h:1``); ``password=`` / ``pwd=`` / ``passwd=`` / ``pass=`` / ``sslpassword=``
query parameters and libpq ``key=value`` strings (quoted values too:
``password='a b'``). What is removed becomes ``***``; everything else is kept so the
message still says which address was meant. Standard library only (every layer uses it).
"""

from __future__ import annotations

import re

MASK = "***"

# user:password@ — the user starts a token or follows a slash, quote, '=' ...; the password
# runs to the token's last '@' (an unquoted '@' in a password is still hidden) but never
# across '//' (so ``tcp://h:1/bob:pw@`` hides only what follows ``bob:``).
_USERINFO = re.compile(
    r"""(?<![^\s/'"(=,;<\[])(?P<user>[^\s:/@?#&'"=\[\]]*):(?P<pw>(?:(?!//)[^\s'"])*)@"""
)
# password=VALUE in a query string or a libpq conninfo; VALUE quoted or up to & ; # space
_PARAM = re.compile(
    r"""(?i)(?<![\w.-])(?P<key>(?:ssl)?password|passwd|pwd|pass)(?P<eq>\s*=\s*)"""
    r"""(?P<val>'(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^&;#\s'"]*)"""
)


def redact(text: str) -> str:
    """``text`` with every password in it replaced by ``***`` (module doc)."""
    if not isinstance(text, str) or not text:
        return text
    out = _PARAM.sub(lambda m: f"{m['key']}{m['eq']}{MASK}" if m["val"] else m[0], text)
    return _USERINFO.sub(lambda m: f"{m['user']}:{MASK}@" if m["pw"] else m[0], out)


def has_secret(text: str) -> bool:
    """True when :func:`redact` would change ``text``."""
    return redact(text) != text
