"""The one kind of error the kvlab command turns into a line on stderr instead of a traceback."""


class UserError(Exception):
    """A problem with what the user asked for or supplied, worded for them; `code` is the exit status."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


def visible(text, limit=300):
    """`text` for a terminal, one line: each control or format character escaped visibly (\\n, \\x1b),
    so that two names that differ are shown apart and no escape sequence reaches the terminal."""
    shown = []
    for char in str(text):
        if char == "\\":
            shown.append("\\\\")
        elif char.isprintable():
            shown.append(char)
        else:
            shown.append(repr(char)[1:-1] if char in "\n\r\t" else
                         f"\\x{ord(char):02x}" if ord(char) < 256 else f"\\u{ord(char):04x}")
    text = "".join(shown)
    return text if len(text) <= limit else text[:limit - 1] + "…"
