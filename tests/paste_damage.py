"""What pasting does to a log, as functions: each takes a log's text and returns it damaged the way
a terminal, a web page or a user's redaction would (tests of k10s_forensics/parsers/log_paste.py
and of the wordings' masked fields). Nothing here knows any incident."""

from __future__ import annotations

import re
from typing import Callable

TQDM = " 45%|████▌     | 450/1000 [01:23<01:42,  5.36it/s]"


def double_space(text: str) -> str:
    """A blank line after every line (a meaningful blank line becomes three)."""
    return "\n\n".join(text.split("\n"))


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def lone_cr(text: str) -> str:
    return text.replace("\n", "\r")


_LEVEL = re.compile(r"\b(ERROR|WARNING|INFO|CRITICAL)\b")


def ansi(text: str) -> str:
    """Colour codes around levels and error lines, an erase-to-end-of-line code after each line."""
    out = []
    for line in text.split("\n"):
        line = _LEVEL.sub(lambda m: f"\x1b[1;31m{m.group(1)}\x1b[0m", line)
        if "Error" in line:
            line = f"\x1b[31m{line}\x1b[0m"
        out.append(line + ("\x1b[K" if line else ""))
    return "\n".join(out)


def fences_quotes(text: str) -> str:
    """GitHub: a collapsed "Click to expand" block holding a fenced block, the whole reply quoted."""
    body = ["<details><summary>Click to expand</summary>", "", "```text", *text.split("\n"), "```", "</details>"]
    return "\n".join(("> " + ln) if ln else ">" for ln in body)


def nested_quotes(text: str) -> str:
    return "\n".join("> > " + ln for ln in ["~~~", *text.split("\n"), "~~~"])


def bullets(text: str) -> str:
    return "\n".join(("- " + ln) if ln.strip() else ln for ln in text.split("\n"))


_IP = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")
_PORT = re.compile(r"(xxx\.xxx\.xxx\.xxx)<\d{1,5}>")
_NCCL = re.compile(r"(^|\s|\]|:)([A-Za-z0-9][\w.-]{0,252}):(\d+):(\d+) \[(\d+)\] ")
_PIDS = (
    re.compile(r"(\(pid: )\d+"),
    re.compile(r"(\bPID )\d+"),
    re.compile(r"(Sending process )\d+"),
    re.compile(r"(Unable to shutdown process )\d+"),
    re.compile(r"(\bprocess )\d+( spawned with)"),
    re.compile(r"(\bpid=)\d+"),
)
_HOSTS = (re.compile(r"(\bon node )\S+"), re.compile(r"^(\s*host\s*: )\S+", re.M))
#: a peer NCCL names by host name (not IP) and port: ``Connection closed by remote peer gpu-7.cluster<47861>``
_PEER_HOST = re.compile(r"(\bremote peer )[^\s<>]{1,253}<\d{1,5}>")


def redact(text: str, style: int = 0) -> str:
    """PIDs, hosts, IPs and ports masked the way users mask them (``style`` picks the spelling)."""
    pid, host = (("xxxxxx", "xxxxxxxx"), ("<PID>", "<hostname>"), ("***", "[REDACTED]"), ("...", "$HOST"), ("…", "XXXX"))[style % 5]
    text = _NCCL.sub(lambda m: f"{m.group(1)}{host}:{pid}:{pid} [{m.group(5)}] ", text)
    for rx in _PIDS:
        text = rx.sub(lambda m: m.group(1) + pid + (m.group(2) if m.lastindex and m.lastindex > 1 else ""), text)
    for rx in _HOSTS:
        text = rx.sub(lambda m: m.group(1) + host, text)
    text = _IP.sub("xxx.xxx.xxx.xxx", text)
    text = _PORT.sub(r"\1<port>", text)
    return _PEER_HOST.sub(lambda m: f"{m.group(1)}{host}<port>", text)


def wrap(text: str, width: int = 100, pad: bool = True) -> str:
    """Cut at the terminal's width; ``pad``: every row padded with spaces to it (conhost copies so)."""
    out = []
    for line in text.split("\n"):
        chunks = [line[i:i + width] for i in range(0, len(line), width)] or [""]
        out.extend(c.ljust(width) if pad else c for c in chunks)
    return "\n".join(out)


def tqdm_front(text: str) -> str:
    """A progress bar left on the terminal line where the first log line then printed."""
    lines = text.split("\n")
    i = next((k for k, ln in enumerate(lines) if ln.strip()), 0)
    lines[i] = TQDM + lines[i]
    return "\n".join(lines)


def html_escaped(text: str) -> str:
    """Taken from a page's source (a mailing-list archive, a feed): ``< > & " '`` as HTML entities."""
    import html

    return html.escape(text, quote=True)


def line_numbered(text: str) -> str:
    """Copied from ``cat -n`` (the number right-aligned in six columns, then a tab)."""
    return "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(text.split("\n"), 1))


def web_copied(text: str) -> str:
    """Copied from a rendered page: indentation and runs of spaces as non-breaking spaces (HTML collapses spaces,
    so a renderer keeps them so), a zero-width space after every dot of a long dotted name (a break opportunity)."""
    import re

    spaced = re.sub(r"  +", lambda m: "\u00a0 " * (len(m.group(0)) // 2) + " " * (len(m.group(0)) % 2), text)
    return re.sub(r"(?<=\w)\.(?=\w{4,}\.)", ".\u200b", spaced)


def editor_typography(text: str) -> str:
    """Pasted through a rich-text editor (Word, Slack outside a code block, macOS text substitution): a quote after a
    line's start, a space or a bracket opens (``“ ‘``), every other one closes (``” ’``), and ``--`` is an em dash."""
    import re

    text = re.sub(r'(^|[\s(\[{=])"', "\\1\u201c", text, flags=re.M).replace('"', "\u201d")
    text = re.sub(r"(^|[\s(\[{=])'", "\\1\u2018", text, flags=re.M).replace("'", "\u2019")
    return text.replace("--", "\u2014")


def indented_block(text: str) -> str:
    """Kept as markdown's indented code block (Stack Overflow, Reddit, older issue threads): four spaces before every
    line that is not blank."""
    return "\n".join("    " + line if line.strip() else line for line in text.split("\n"))


def forum_code_tags(text: str) -> str:
    """Posted on a BBCode forum: the log between ``[code]`` and ``[/code]``, glued to its first and last lines."""
    return "[code]" + text.strip("\n") + "[/code]\n"


#: The damages of the property test, one at a time; ``combined`` applies all in a row.
DAMAGES: dict[str, Callable[[str], str]] = {
    "double-space": double_space,
    "crlf": crlf,
    "ansi": ansi,
    "fences-quotes": fences_quotes,
    "redact": redact,
    "wrap-100": wrap,
    "html-escaped": html_escaped,
    "line-numbers": line_numbered,
    "web-copied": web_copied,
    "editor-typography": editor_typography,
    "indented-block": indented_block,
    "forum-code-tags": forum_code_tags,
}


def combined(text: str) -> str:
    """Everything at once, in the order it happens: redacted, coloured, wrapped, copied double
    spaced, pasted in a quoted fenced block, sent with CRLF."""
    return crlf(fences_quotes(double_space(ansi(wrap(redact(text), 100)))))


__all__ = ["DAMAGES", "TQDM", "ansi", "bullets", "combined", "crlf", "double_space", "editor_typography", "fences_quotes", "forum_code_tags", "html_escaped",
           "indented_block", "line_numbered", "lone_cr",
           "nested_quotes", "redact", "tqdm_front", "web_copied", "wrap"]
