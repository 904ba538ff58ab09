"""The one kind of error the kvlab command turns into a line on stderr instead of a traceback."""


class UserError(Exception):
    """A problem with what the user asked for or supplied, worded for them; `code` is the exit status."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code
