"""The LMS's services as the course uses them: AGS line items and scores, NRPS memberships (LTI Advantage).

Every request carries an OAuth2 access token the hub obtained for the course (:mod:`.hub_client`: the tool's private
key never leaves the hub). A failure is the machine's, never a student's, and says whose machine: :class:`LMSDown`
when the LMS (or the hub on the way) did not answer or answered 5xx/429 (try again later, for every score),
:class:`Refused` when it answered no to this one request (4xx, its words quoted).
"""
import json
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["LMSDown", "Refused", "Platform", "SCORE_SCOPE", "LINEITEM_SCOPE", "MEMBERSHIP_SCOPE"]

LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
MEMBERSHIP_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE = "application/vnd.ims.lis.v1.score+json"
MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
TIMEOUT = 15.0


class LMSDown(RuntimeError):
    """The LMS (or the hub, asked for a token) did not answer as a service should: every post waits and is retried."""


class Refused(RuntimeError):
    """The LMS answered this request with a refusal (4xx): the course's settings or the LMS's, never a student's."""


def _fail(method: str, url: str, error: Exception) -> Exception:
    if isinstance(error, urllib.error.HTTPError):
        said = error.read(300).decode("utf-8", "replace").strip()
        kind = LMSDown if error.code >= 500 or error.code == 429 else Refused
        return kind(f"{method} {url} answered {error.code} {error.reason}: {said}")
    return LMSDown(f"{method} {url} did not answer: {getattr(error, 'reason', error)}")


def request(method: str, url: str, token: str, body=None, accept="application/json", content_type=None):
    """One request with a bearer token; (decoded JSON or None, the response's headers)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": accept}
    if content_type:
        headers["Content-Type"] = content_type
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers, method=method),
                                    timeout=TIMEOUT) as response:
            payload = response.read()
            return (json.loads(payload) if payload.strip() else None), response.headers
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise _fail(method, url, error) from None


def _with_path(url: str, suffix: str, query: dict | None = None) -> str:
    """``url`` with ``suffix`` added to its path (before any query, as Moodle's line item URLs have one)."""
    parts = urllib.parse.urlsplit(url)
    params = urllib.parse.parse_qsl(parts.query) + list((query or {}).items())
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + suffix,
                                                  query=urllib.parse.urlencode(params)))


def _next_link(headers) -> str:
    for link in (headers.get_all("Link") or []) if headers else []:
        for part in link.split(","):
            if 'rel="next"' in part or "rel=next" in part:
                return part.split(";")[0].strip().strip("<>")
    return ""


class Platform:
    """The LMS of one course context, with ``tokens(scopes) -> str`` giving a bearer token."""

    def __init__(self, tokens):
        self.tokens = tokens

    def find_line_item(self, lineitems: str, resource_id: str) -> str:
        """The URL of the context's line item for ``resource_id``; "" when there is none."""
        found, _ = request("GET", _with_path(lineitems, "", {"resource_id": resource_id}),
                           self.tokens([LINEITEM_SCOPE]), accept=LINEITEMS)
        return next((str(item["id"]) for item in found or () if item.get("resourceId") == resource_id), "")

    def create_line_item(self, lineitems: str, resource_id: str, label: str, maximum: float) -> str:
        body = {"label": label, "scoreMaximum": maximum, "resourceId": resource_id, "tag": "grade"}
        made, _ = request("POST", lineitems, self.tokens([LINEITEM_SCOPE]), body, LINEITEM, LINEITEM)
        return str(made["id"])

    def post_score(self, line_item: str, payload: dict) -> None:
        request("POST", _with_path(line_item, "/scores"), self.tokens([SCORE_SCOPE]), payload, content_type=SCORE)

    def members(self, memberships: str) -> list:
        """Every member of the context (NRPS), following the pages the LMS links."""
        found, url = [], memberships
        while url:
            page, headers = request("GET", url, self.tokens([MEMBERSHIP_SCOPE]), accept=MEMBERSHIPS)
            found += list((page or {}).get("members") or [])
            url = _next_link(headers)
        return found
