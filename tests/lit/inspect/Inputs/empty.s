# An object with no code, for the error tests.
