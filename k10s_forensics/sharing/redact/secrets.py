"""Secret detectors: find credentials in free text and in structured fields.

A found secret is replaced by ``[REDACTED:<kind>]``; the surrounding text (the variable
name, the URL user and host, the ``Bearer`` scheme) stays so the reader still knows what
was there. Replacements are not reversible: no map of secrets is ever kept.

Detected, wherever they appear (env values, annotations, args, log lines, command output):

* ``NAME=value`` / ``NAME: value`` / ``"name": "value"`` / ``--name value`` where the name
  contains pass, secret, token, key, credential, auth, cookie, session or private
  (numbers and booleans after the weak words token/key/session/auth/pass are kept:
  ``max_tokens=512`` is not a secret);
* ``Authorization: Bearer ...`` and any ``Bearer <token>``; ``Cookie:`` headers;
* JWTs (``eyJ...\\.eyJ...\\....``), PEM private key blocks, GCP service-account
  ``"private_key"``, AWS access key ids (``AKIA...``) and secret keys (by name), Azure
  ``AccountKey=`` / ``SharedAccessKey=`` / SAS ``sig=``, URLs with ``user:password@``,
  GitHub (``ghp_``, ``github_pat_``), GitLab, Slack (``xoxb-``, webhooks), Hugging Face
  (``hf_``), OpenAI (``sk-``), Google API keys (``AIza``), Stripe live keys, npm tokens.
"""

from __future__ import annotations

import re
from collections import Counter

NAME_FRAGMENT = r"(?:pass|secret|token|key|credential|auth|cookie|session|private)"
_STRONG = re.compile(
    r"(?i)(passw|passphrase|pwd|secret|credential|private|cookie|api[_-]?key|access[_-]?key|auth[_-]?key|signing|"
    r"(?:auth|access|api|bearer|refresh|session|id|oauth|hf|github|gh|slack|bot)[_-]?token)"
)
_NOT_A_SECRET_NAME = re.compile(
    r"(?i)(tokeniz|keyboard|monkey|keyspace|author(?!i[sz])|bypass|compass|passed|passing|passes|keys$|^key$|"
    r"timeout|length$|size$|len$|count$|expir|policy$|enabled$|_id$|^id$)"
)
#: Names that point at a secret rather than hold it (secretName, secretKeyRef, PASSWORD_FILE).
_REFERENCE = re.compile(r"(?i)(name|names|ref|refs|path|file|dir|mode|type|seconds|error|exception|warning|header|url)$")
_HARMLESS_VALUE = re.compile(r"(?i)^(?:[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?|true|false|none|null|nil|yes|no|on|off|enabled|disabled|required|optional|\*+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)$")

# Shape detectors: (kind, literal triggers (lower-case), regex). A detector runs only when
# one of its triggers occurs in the lower-cased text (C-speed substring search).
_DETECTORS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (kind, triggers, re.compile(pattern))
    for kind, triggers, pattern in (
        ("pem", ("-----begin",), r"(?s:-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z))"),
        ("gcp-private-key", ("private_key",), r"(?P<pre>\\?\"private_key(?:_id)?\\?\"\s*:\s*\\?\")(?P<val>(?:[^\"\\]|\\[^\"])+)"),
        ("jwt", ("eyj",), r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
        ("url-password", ("://",), r"(?P<pre>://[^/\s:@\"'<>]*):(?P<val>[^/\s@\"'<>]+)@"),
        ("aws-access-key", ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
         r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Za-z])"),
        ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
         r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
        ("gitlab-token", ("glpat-",), r"glpat-[A-Za-z0-9_-]{20,}"),
        ("slack-token", ("xox", "hooks.slack"), r"xox[abposr]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
        ("hf-token", ("hf_",), r"hf_[A-Za-z0-9]{30,}"),
        ("openai-key", ("sk-",), r"(?<![A-Za-z0-9_-])sk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_-]{20,}"),
        ("google-api-key", ("aiza",), r"AIza[0-9A-Za-z_-]{35}"),
        ("stripe-key", ("k_live_",), r"[sr]k_live_[0-9A-Za-z]{16,}"),
        ("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
        ("azure-key", ("accountkey=", "sharedaccesskey=", "sharedaccesssignature=", "sig="),
         r"(?P<pre>(?i:(?<![A-Za-z])(?:AccountKey|SharedAccessKey|SharedAccessSignature)=|[?&]sig=))(?P<val>[^;\"'\s&]+)"),
        ("bearer-token", ("bearer",), r"(?P<pre>(?i:(?<![A-Za-z])bearer)\s+)(?P<val>[A-Za-z0-9._~+/=-]{12,})"),
        ("cookie", ("cookie",), r"(?P<pre>(?i:(?<![A-Za-z-])(?:set-)?cookie)\s*:\s*)(?P<val>[^\r\n]+)"),
    )
)
_FRAGMENTS = ("pass", "secret", "token", "key", "credential", "auth", "cookie", "session", "private")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_KV_TAIL = re.compile(r"(?P<mid>\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?)(?P<val>(?:(?i:bearer|basic|token|digest)[ \t]+)?[^\s\"'\\,;&|}<>\[\]()]+)")
_FLAG_TAIL = re.compile(r"(?P<mid>[ \t]+)(?P<val>[^\s\"'-][^\s\"']*)")
_SCHEME = re.compile(r"(?i)(bearer|basic|token|digest)\s+")
#: Kept for callers that want one pattern (documentation, tests): the shape detectors.
SECRET_RE = re.compile("|".join(f"(?:{d[2].pattern})" for d in _DETECTORS if "?P<" not in d[2].pattern))
TRIGGERS = tuple(sorted({t for _k, ts, _p in _DETECTORS for t in ts} | set(_FRAGMENTS)))


def _quick() -> re.Pattern[str]:
    from k10s_forensics.sharing.redact.prefilter import SECRET_PREFILTER

    return re.compile(SECRET_PREFILTER)


#: Short texts (JSON values) are checked with the prefilter first (see prefilter.py).
_QUICK = _quick()
_QUICK_MAX = 2048


def mask(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def kind_for_name(name: str) -> str:
    """The secret kind a sensitive variable name suggests (password, token, api-key, ...)."""
    low = name.lower()
    for frag, kind in (
        ("pass", "password"), ("pwd", "password"), ("private", "private-key"), ("secret", "secret"),
        ("credential", "credential"), ("cookie", "cookie"), ("session", "session"), ("token", "token"),
        ("auth", "auth"), ("key", "api-key"),
    ):
        if frag in low:
            return kind
    return "secret"


def is_sensitive_name(name: str) -> bool:
    """True when a variable / field / flag name says its value is a secret."""
    bare = name.strip().lstrip("-").strip("\"'")
    if not re.search(r"(?i)" + NAME_FRAGMENT, bare) or _REFERENCE.search(bare):
        return False
    return not (_NOT_A_SECRET_NAME.search(bare) and not _STRONG.search(bare))


def value_is_secret(name: str, value: str) -> bool:
    """Whether ``value`` held by sensitive ``name`` must go (weak names keep numbers/booleans)."""
    if not value or value.startswith("[REDACTED:"):
        return False
    if _STRONG.search(name):
        return not re.fullmatch(r"\*+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", value)
    return not _HARMLESS_VALUE.match(value) and not (value.startswith("/") and " " not in value)


class SecretScanner:
    """Replaces secrets in text and counts them per kind (never keeps the values)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def scan(self, text: str) -> str:
        """``text`` with every detected secret replaced."""
        if not text or (len(text) <= _QUICK_MAX and not _QUICK.search(text)):
            return text  # the prefilter matches every text in which anything below could be found
        low = text.lower()
        found: list[tuple[int, int, int, int, str, str]] = []  # match start/end, replace start/end, text, kind
        for kind, triggers, regex in _DETECTORS:
            if any(t in low for t in triggers):
                for m in regex.finditer(text):
                    if "val" in regex.groupindex:
                        found.append((m.start(), m.end(), m.start("val"), m.end("val"), mask(kind), kind))
                    elif kind == "pem":
                        found.append((m.start(), m.end(), m.start(), m.end(),
                                      "-----BEGIN PRIVATE KEY-----" + mask("private-key") + "-----END PRIVATE KEY-----", "private-key"))
                    else:
                        found.append((m.start(), m.end(), m.start(), m.end(), mask(kind), kind))
        found.extend(self._named(text, low))
        if not found:
            return text
        found.sort(key=lambda f: (f[0], -f[1]))
        out, pos, last_end = [], 0, -1
        for start, end, r_start, r_end, replacement, kind in found:
            if start < last_end:
                continue  # inside a secret already replaced (leftmost wins)
            self.counts[kind] += 1
            out.append(text[pos:r_start])
            out.append(replacement)
            pos, last_end = r_end, end
        out.append(text[pos:])
        return "".join(out)

    def _named(self, text: str, low: str) -> list[tuple[int, int, int, int, str, str]]:
        """``NAME=value`` / ``NAME: value`` / ``--name value`` where NAME says secret."""
        out = []
        done_until = -1
        anchors = sorted({i for frag in _FRAGMENTS for i in _find_all(low, frag)})
        for at in anchors:
            if at < done_until:
                continue
            start = at
            while start > 0 and at - start < 40 and text[start - 1] in _NAME_CHARS:
                start -= 1
            end = at
            while end < len(text) and end - at < 60 and text[end] in _NAME_CHARS:
                end += 1
            name = text[start:end]
            is_flag = name.startswith("-")
            m = _KV_TAIL.match(text, end) or (_FLAG_TAIL.match(text, end) if is_flag else None)
            done_until = end
            if m is None:
                continue
            value = m.group("val")
            if not is_sensitive_name(name) or not value_is_secret(name, value):
                continue
            scheme = _SCHEME.match(value)
            kind = "bearer-token" if scheme else kind_for_name(name)
            v_start = m.start("val") + (scheme.end() if scheme else 0)
            out.append((start, m.end(), v_start, m.end(), mask(kind), kind))
            done_until = m.end()
        return out

    def value(self, name: str, value: str) -> str:
        """The value of a field called ``name``: masked when the name says secret, else scanned."""
        if is_sensitive_name(name) and value_is_secret(name, value):
            kind = kind_for_name(name)
            self.counts[kind] += 1
            return mask(kind)
        return self.scan(value)


def _find_all(text: str, needle: str) -> list[int]:
    out, i = [], text.find(needle)
    while i != -1:
        out.append(i)
        i = text.find(needle, i + 1)
    return out


__all__ = ["SecretScanner", "SECRET_RE", "is_sensitive_name", "value_is_secret", "kind_for_name", "mask", "TRIGGERS"]
