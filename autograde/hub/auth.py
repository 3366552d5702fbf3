"""One password per hub user, fixed by the launcher: a local demo authenticator.

Unlike a shared demo password, a student who knows their own password cannot log in as a
classmate or as the instructor, so the isolation the hub shows is the isolation it has.
"""
from secrets import compare_digest

from jupyterhub.auth import Authenticator
from traitlets import Dict


class CoursePasswordAuthenticator(Authenticator):
    """Accept ``username`` only with the password ``passwords[username]``."""

    passwords = Dict(config=True, help="{username: password}; users not listed cannot log in.")

    async def authenticate(self, handler, data):
        name, typed = data.get("username", ""), data.get("password", "")
        expected = self.passwords.get(name)
        if expected is not None and compare_digest(typed.encode(), expected.encode()):
            return name
        return None
