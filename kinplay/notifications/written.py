"""What the player wrote in a reply: their own lines, above, below or between the quoted email,
and never a line of the quote itself (the quoted turn email lists the legal moves).

Quoted text is what a mail client marks as quoted: ``>`` lines in plain text, ``<blockquote>``
in HTML (written out as ``>`` lines here, so both read the same way). A quote header ("On … wrote:",
"Am … schrieb …:", Outlook's "From: … Sent: …", "-----Original Message-----", in the languages
mail-parser-reply knows) followed by ``>`` lines is skipped and reading goes on below the quote
(bottom-posting, answers between quoted lines); followed by unmarked text (Outlook quotes without
``>``) it ends what the player wrote: there is no telling their text from the quote after it.
"""

from __future__ import annotations

import logging
import re
from html.parser import HTMLParser

from kinplay.notifications import headers

log = logging.getLogger("kinplay.notifications")

MAX_LINE = 200
# Headings of our own emails (templates/mail/): nobody writes them, so an unmarked one starts a
# quote of our email whose quote header was not recognised, and its move list is never read.
OUR_HEADINGS = re.compile(r"^(?:your moves(?: now| \(reply with the whole line\))?|what happened since you last looked"
                          r"|this is the answer to your reply by email\.?):?$", re.IGNORECASE)
BLANK_RUN = re.compile(r"\n[^\S\n]*(?:\n[^\S\n]*)+\n")
QUOTE_RUN = re.compile(r"^[^\S\n]*>.*(?:\n[^\S\n]*(?:>.*)?(?=\n|\Z))*", re.MULTILINE)  # quoted lines, blank ones between


def text_of(msg) -> str:
    """The reply's text: its plain part, else its HTML part with quotes marked by ``>``."""
    try:
        body = msg.get_body(preferencelist=("plain", "html"))
        if body is None:
            return ""
        content = body.get_content()
        if not isinstance(content, str):
            return ""
        return html_text(content) if body.get_content_type() == "text/html" else content
    except Exception:  # noqa: BLE001  unknown charsets, the stdlib parsers on hostile MIME headers or HTML
        return ""


def read_lines(text: str) -> list[str]:
    """The lines the player wrote, in order: no quoted mail, no signature, no blank lines."""
    # deferred: only mail coming in needs the parser, which is slow to import
    from mailparser_reply import EmailReplyParser
    from mailparser_reply.constants import MAIL_LANGUAGES
    from mailparser_reply.parser import EmailMessage

    text = headers.clean(text or "").replace("\r\n", "\n")
    # The parser's regexes take quadratic time over runs of blank or quoted lines (minutes for
    # 100 kB): a quote is never read, so each run of it is one ">" line, and blank runs one blank line.
    text = BLANK_RUN.sub("\n\n", QUOTE_RUN.sub(">", text))
    parser = EmailReplyParser(languages=list(MAIL_LANGUAGES))
    try:
        own = unquoted(EmailMessage(text=text, languages=parser.languages))  # its quote headers, not yet its parts
        replies = parser.read(text=own).replies  # no quote header is left: one part, less its signature
        text = replies[0].body if replies else ""
    except Exception:  # noqa: BLE001  the parser's regexes on hostile input: the text less its ">" lines
        log.warning("reply parser failed; reading the raw text")
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if line in ("--", "-- ") or OUR_HEADINGS.match(line):
            break
        if line and not line.startswith(">"):
            lines.append(line[:MAX_LINE])
    return lines


def unquoted(message) -> str:
    """The parsed message's text less its quote headers and quoted lines."""
    text = message.text  # as the parser normalised it: each line stripped
    own, at = [], 0
    for header in message.HEADER_REGEX.finditer(text):
        first = header.start() + len(header.group()) - len(header.group().lstrip("\n"))  # some match the newline before
        start = text.rfind("\n", 0, first) + 1  # the header's whole line
        if first < at or text[start:].startswith(">"):
            continue  # a header inside the quote (an older reply quoted in it)
        own.append(text[at:start])
        at = header.end()
        following = next((line for line in text[at:].splitlines() if line.strip()), "")
        if not following.startswith(">"):
            return "".join(own)  # an unmarked quote runs to the end: nothing after it is the player's
    own.append(text[at:])
    return "\n".join(line for line in "".join(own).splitlines() if not line.startswith(">"))


# ---------------------------------------------------------------- HTML replies

BREAKS = {"br", "p", "div", "li", "tr", "ul", "ol", "table", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6",
          "pre", "hr", "dt", "dd"}
HIDDEN = {"style", "script", "head", "title", "template"}


class _Text(HTMLParser):
    """HTML as a mail client would show it in plain text: a line per block, and each line inside
    a ``<blockquote>`` marked ``>`` once per level."""

    def __init__(self):
        super().__init__(convert_charrefs=True)  # "&nbsp;", "&amp;", "&#39;" as the characters they are
        self.lines: list[str] = []
        self.line: list[str] = []
        self.depth = 0  # blockquotes we are in
        self.line_depth = 0  # the depth at which the current line began
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        self._tag(tag, +1)

    def handle_endtag(self, tag):
        self._tag(tag, -1)

    def handle_startendtag(self, tag, attrs):
        if tag in BREAKS:
            self.flush()

    def _tag(self, tag, step):
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden + step)
        elif tag in BREAKS:
            self.flush()
            if tag == "blockquote":
                self.depth = max(0, self.depth + step)

    def handle_data(self, data):
        if self.hidden:
            return
        for i, part in enumerate(data.split("\n")):  # a <pre>'s own lines
            if i:
                self.flush()
            if part.strip() and not "".join(self.line).strip():
                self.line_depth = self.depth
            self.line.append(part)

    def flush(self):
        text = "".join(self.line).strip()
        if text:
            self.lines.append(">" * self.line_depth + (" " if self.line_depth else "") + text)
        self.line = []


def html_text(content: str) -> str:
    reader = _Text()
    reader.feed(content)
    reader.close()
    reader.flush()
    return "\n".join(reader.lines)
