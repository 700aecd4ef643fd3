"""An installed library's plugin loader: it registers its tools on every server it is given."""

from fakelib.tools import lookup


def attach_all(servers):
    for server in servers:
        server.add_tool(lookup)
